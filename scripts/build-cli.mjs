#!/usr/bin/env node
// Builds the CLI's bundle, dist/cli/conda-resolve.cjs, with esbuild (run by `npm run build` after
// tsc): the command line and everything a resolve needs, as one script that dist/src/cli/bin.cjs
// compiles with V8's code cache (src/cli/code-cache.ts). One file instead of about 150 modules,
// each resolved and read by the module loader, and a script, because Node 20 caches compiled code
// only for scripts.
//
// Left out, loaded from dist/ or node_modules only by the runs that need them: `serve` and
// `worker` (the HTTP service and the queue worker, with fastify and bullmq), and the packages used
// only when something is downloaded (undici, zstd-codec). Everything else that is rarely needed is
// inside but costs nothing until called: a cached script does not parse what it does not run.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_BUNDLE = join(ROOT, 'dist', 'cli', 'conda-resolve.cjs');

/**
 * `serve` and `worker` run from tsc's output (dist/src/cli/), beside which the bundle sits at
 * dist/cli/: main.ts's import of either becomes a stub that imports the real module through
 * `__crImport` (code-cache.ts), since a script's own `import()` needs a flag on Node 20.
 */
const commandsFromDist = {
  name: 'commands-from-dist',
  setup(b) {
    b.onResolve({ filter: /^\.\/(serve|worker)-command\.js$/ }, (args) =>
      args.importer.endsWith(join('src', 'cli', 'main.ts')) ? { path: args.path.slice(2), namespace: 'from-dist' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'from-dist' }, (args) => {
      const name = args.path === 'serve-command.js' ? 'serveCommand' : 'workerCommand';
      const contents = `export async function ${name}(...args) { return (await __crImport(${JSON.stringify(`../src/cli/${args.path}`)})).${name}(...args); }`;
      return { contents, loader: 'js' };
    });
  },
};

/**
 * Built-in modules a resolve answered from the cache never uses, loaded on first use instead of
 * when the bundle starts: worker_threads (the solve pool, only for several platforms) costs ~3 ms.
 * Each becomes a module whose exports are getters that load the real one.
 */
const LAZY_BUILTINS = ['node:worker_threads', 'node:timers/promises'];
const requireBuiltin = createRequire(import.meta.url);
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => (LAZY_BUILTINS.includes(args.path) && args.namespace !== 'lazy-builtin' ? { path: args.path, namespace: 'lazy-builtin' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => {
      const id = JSON.stringify(args.path);
      const getters = Object.keys(requireBuiltin(args.path)).map((key) => `${JSON.stringify(key)}: { get: () => load()[${JSON.stringify(key)}], enumerable: true }`);
      const contents = `let real;\nconst load = () => (real ??= require(${id}));\nObject.defineProperties(module.exports, { ${getters.join(', ')} });\n`;
      return { contents, loader: 'js' };
    });
  },
};

/** What the bundle and the launcher share: CommonJS for Node 20.19, builtins left to require(). */
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20.19', legalComments: 'none', logLevel: 'warning' };

const result = await build({
  ...common,
  entryPoints: [join(ROOT, 'src', 'cli', 'script-main.ts')],
  outfile: CLI_BUNDLE,
  // Whitespace and syntax only: class names stay (errors report `name`), and stack traces readable.
  minifyWhitespace: true,
  minifySyntax: true,
  external: ['undici', 'zstd-codec'],
  plugins: [commandsFromDist, lazyBuiltins],
  // A script cannot import() without a flag on Node 20: the packages' dynamic imports become
  // require() (undici and zstd-codec are CommonJS), the commands' go through __crImport (above).
  supported: { 'dynamic-import': false },
  // code-cache.ts passes these to the script in place of an ES module's import.meta.
  define: { 'import.meta.url': '__crUrl', 'import.meta.resolve': '__crResolve' },
  write: false,
  metafile: true,
});
const dynamic = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path));
if (dynamic.length > 0) throw new Error(`build-cli: the bundle would import() ${dynamic.join(', ')}, which a script cannot do`);
const text = result.outputFiles[0].text;
await mkdir(dirname(CLI_BUNDLE), { recursive: true });
await writeFile(CLI_BUNDLE, text);

/**
 * The launcher package.json's `bin` names, `dist/src/cli/bin.cjs`: src/cli/bin.ts with the two
 * small modules it imports, as CommonJS (an ES module as the entry starts Node's ES module loader
 * first, about 8 ms). Its fallback imports of tsc's modules stay imports, relative to dist/src/cli.
 */
const fallbackModules = {
  name: 'fallback-modules',
  setup(b) {
    b.onResolve({ filter: /^\.\/(main|exit-when-idle)\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined));
  },
};
await build({
  ...common,
  entryPoints: [join(ROOT, 'src', 'cli', 'bin.ts')],
  outfile: join(ROOT, 'dist', 'src', 'cli', 'bin.cjs'),
  plugins: [fallbackModules],
  banner: { js: '"use strict";\nconst __crLauncherUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { 'import.meta.url': '__crLauncherUrl' },
});
