#!/usr/bin/env node
// Builds the action's one-file command line, action/conda-resolve.mjs, with esbuild: everything
// `conda-resolve` needs at run time (our code and the npm dependencies) in one ES module that the
// `cli` pixi environment's Node.js runs directly, without npm ci or tsc on the runner.
//
//   node scripts/build-action.mjs           write action/conda-resolve.mjs
//   node scripts/build-action.mjs --check   exit 1 when the committed file differs from a fresh build
//
// The output depends only on the sources, package-lock.json's versions and esbuild's version, so
// the check is exact: CI runs it (test/action/bundle.test.ts) and fails on a stale bundle.
import { build } from 'esbuild';
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { embedStatic } from './static-files.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE = join(ROOT, 'action', 'conda-resolve.mjs');

/** zstd-codec picks its WebAssembly build when WebAssembly exists (always on Node 20): the asm.js fallback stays out. */
const noAsmFallback = {
  name: 'no-zstd-asmjs',
  setup(b) {
    b.onResolve({ filter: /zstd-codec-binding\.js$/ }, () => ({ path: 'zstd-asmjs', namespace: 'stub' }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents: 'module.exports = () => { throw new Error("no WebAssembly"); };',
      loader: 'js',
    }));
  },
};

/**
 * The action runs `conda-resolve --version`, resolves and `conda-resolve audit` (action.yml), never
 * `serve` or `worker`: the command table's imports of those two become a stub that says so, which
 * keeps the HTTP service and the Redis queue (fastify, bullmq, ioredis, the MCP server, pino) out.
 */
const SERVICES = /^\.\/commands\/(serve|worker)\.js$/;
const noServices = {
  name: 'no-services',
  setup(b) {
    b.onResolve({ filter: SERVICES }, (args) =>
      args.importer.endsWith(join('src', 'cli', 'command-table.ts')) ? { path: args.path, namespace: 'no-service' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-service' }, (args) => {
      const name = /(serve|worker)\.js$/.exec(args.path)[1];
      const message = `"${name}" is not part of the GitHub Action's conda-resolve; install the npm package to run it`;
      const contents = [
        `import { EXIT_USAGE, writeError } from './io.js';`,
        `export const usage = ${JSON.stringify(`${message}\n`)};`,
        `export async function run(_args, io) { writeError(io, ${JSON.stringify(message)}); return EXIT_USAGE; }`,
      ].join('\n');
      return { contents, loader: 'ts', resolveDir: join(ROOT, 'src', 'cli') };
    });
  },
};

export async function bundle() {
  const result = await build({
    entryPoints: [join(ROOT, 'src', 'cli', 'launch', 'bundle-main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    write: false,
    outfile: BUNDLE,
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [noAsmFallback, embedStatic, noServices],
    // A native addon cannot be bundled: the action's CLI falls back to zstd-codec (WebAssembly) without it.
    external: ['zstd-napi'],
    // CommonJS dependencies call require() for Node's own modules, and some read __dirname
    // (zstd-codec's Emscripten loader does as it starts: without it every .zst download failed).
    banner: {
      js: [
        '#!/usr/bin/env node',
        '// conda-resolve, bundled for the GitHub Action by scripts/build-action.mjs: do not edit.',
        "import { createRequire as __crCreateRequire } from 'node:module'; const require = __crCreateRequire(import.meta.url);",
        "import { fileURLToPath as __crFileURLToPath } from 'node:url'; const __filename = __crFileURLToPath(import.meta.url);",
        "import { dirname as __crDirname } from 'node:path'; const __dirname = __crDirname(__filename);",
      ].join('\n'),
    },
  });
  return result.outputFiles[0].contents;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const fresh = await bundle();
  if (process.argv.includes('--check')) {
    let committed;
    try {
      committed = readFileSync(BUNDLE);
    } catch {
      committed = Buffer.alloc(0);
    }
    if (!Buffer.from(fresh).equals(committed)) {
      process.stderr.write(`${BUNDLE} is not what the sources build: run "npm run build:action" and commit it\n`);
      process.exit(1);
    }
    process.stdout.write(`${BUNDLE} is up to date (${committed.length} bytes)\n`);
  } else {
    await writeFile(BUNDLE, fresh, { mode: 0o755 });
    process.stdout.write(`wrote ${BUNDLE} (${fresh.length} bytes)\n`);
  }
}
