#!/usr/bin/env node
// Builds the CLI's bundle, dist/cli/conda-resolve.cjs, with esbuild (run by `npm run build` after
// tsc): the command line and everything a resolve needs, as one script that dist/src/cli/bin.cjs
// compiles with V8's code cache (src/cli/launch/code-cache.ts), and the launcher bin.cjs itself.
// Why each choice here pays, with its measured figure: src/cli/launch/README.md.
//
// Left out, loaded only by the runs that need them, each from a bundle of its own run with its own
// code cache (launch/start.ts): `serve` and `worker` (the HTTP service and the queue worker, with
// fastify and pino: dist/cli/services.cjs) and undici (dist/cli/undici.cjs, on the first request);
// zstd-codec and bullmq from node_modules.
import process from 'node:process';
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { embedStatic } from './static-files.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_BUNDLE = join(ROOT, 'dist', 'cli', 'conda-resolve.cjs');
export const UNDICI_BUNDLE = join(ROOT, 'dist', 'cli', 'undici.cjs');
export const SERVICES_BUNDLE = join(ROOT, 'dist', 'cli', 'services.cjs');

/**
 * `serve` and `worker` are left out of the CLI's bundle: the command table's import of either
 * becomes a stub that takes the command from the services' bundle, dist/cli/services.cjs (below),
 * which launch/start.ts runs with its own code cache on the bundle's first
 * `require('conda-resolve:services')`; when that bundle is missing or does not load, from tsc's
 * output (dist/src/cli/commands/) through `__crImport` (launch/code-cache.ts), since a script's own
 * `import()` needs a flag on Node 20. The stub's `usage` is the real one, read from tsc's output now.
 */
const SERVICES = /^\.\/commands\/(serve|worker)\.js$/;
export const SERVICES_MODULE = 'conda-resolve:services';
const commandsFromDist = {
  name: 'commands-from-dist',
  setup(b) {
    b.onResolve({ filter: SERVICES }, (args) =>
      args.importer.endsWith(join('src', 'cli', 'command-table.ts')) ? { path: args.path, namespace: 'from-dist' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'from-dist' }, async (args) => {
      const name = SERVICES.exec(args.path)[1];
      const real = `../src/cli/${args.path.slice(2)}`;
      const { usage } = await import(pathToFileURL(join(ROOT, 'dist', 'src', 'cli', args.path.slice(2))).href);
      const contents = [
        `export const usage = ${JSON.stringify(usage)};`,
        'export async function run(...args) {',
        '  let services;',
        // Undefined, or not there at all when the bundle is run without launch/start.ts.
        `  try { services = require(${JSON.stringify(SERVICES_MODULE)}); } catch {}`,
        `  return (services ? services.${name} : await __crImport(${JSON.stringify(real)})).run(...args);`,
        '}',
      ].join('\n');
      return { contents, loader: 'js' };
    });
  },
};

/**
 * Modules a resolve answered from the cache never uses, loaded on first use instead of when the
 * bundle starts: worker_threads (the solve pool), fs/promises (it loads readline; the warm path
 * reads through node:fs's callbacks), and the packages whose module bodies would otherwise run,
 * and be kept in the code cache, on every start: the YAML and TOML parsers, semver, msgpack. Each
 * becomes a module whose exports are getters that load the real one.
 */
const LAZY_MODULES = ['node:worker_threads', 'node:fs/promises', 'js-yaml', 'smol-toml', 'semver', '@msgpack/msgpack'];
const requireModule = createRequire(import.meta.url);
const lazyModules = {
  name: 'lazy-modules',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      LAZY_MODULES.includes(args.path) && args.namespace !== 'lazy-module' ? { path: args.path, namespace: 'lazy-module' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-module' }, (args) => {
      const id = JSON.stringify(args.path);
      const real = requireModule(args.path);
      const getters = Object.keys(real)
        .filter((key) => key !== '__esModule')
        .map((key) => `${JSON.stringify(key)}: { get: () => load()[${JSON.stringify(key)}], enumerable: true }`);
      // A plain value: esbuild's interop reads it when the module is imported, which must not load it.
      if (real.__esModule) getters.push('__esModule: { value: true }');
      const contents = `let real;\nconst load = () => (real ??= require(${id}));\nObject.defineProperties(module.exports, { ${getters.join(', ')} });\n`;
      // The real module's require() resolves from the project, as the importer's would.
      return { contents, loader: 'js', resolveDir: ROOT };
    });
  },
};

/** What the bundles and the launcher share: CommonJS for Node 20.19, builtins left to require(). */
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20.19', legalComments: 'none', logLevel: 'warning' };

/** What the bundles share, each run by code-cache.ts as a script with its code cache. */
const script = {
  ...common,
  // Whitespace and syntax only: class names stay (errors report `name`), and stack traces readable.
  // CR_NO_MINIFY=1 keeps the lines, for a `--cpu-prof` that names lines a reader can find.
  minifyWhitespace: !process.env.CR_NO_MINIFY,
  minifySyntax: true,
};

/** What our own code needs as a script: no import() (a flag on Node 20), and import.meta from code-cache.ts. */
const ourScript = {
  ...script,
  // The packages' dynamic imports become require() (undici and zstd-codec are CommonJS), the
  // commands' go through __crImport (above).
  supported: { 'dynamic-import': false },
  // code-cache.ts passes these to the script in place of an ES module's import.meta.
  define: { 'import.meta.url': '__crUrl', 'import.meta.resolve': '__crResolve' },
};

const result = await build({
  ...ourScript,
  entryPoints: [join(ROOT, 'src', 'cli', 'launch', 'script-main.ts')],
  outfile: CLI_BUNDLE,
  external: ['undici', 'zstd-codec', 'zstd-napi', SERVICES_MODULE],
  plugins: [commandsFromDist, lazyModules],
  write: false,
  metafile: true,
});
const dynamic = Object.values(result.metafile.outputs).flatMap((o) =>
  o.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path),
);
if (dynamic.length > 0) throw new Error(`build-cli: the bundle would import() ${dynamic.join(', ')}, which a script cannot do`);
await mkdir(dirname(CLI_BUNDLE), { recursive: true });
await writeFile(CLI_BUNDLE, result.outputFiles[0].text);

/**
 * The services' bundle: `serve` and `worker` with fastify, pino, the MCP server and everything
 * below them, as one script run with its own code cache (launch/README.md). bullmq and ioredis
 * stay packages (loaded only with --redis; bullmq reads its Lua scripts beside itself), and the
 * page's files are embedded, as there is no folder beside the bundle.
 */
await build({
  ...ourScript,
  entryPoints: [join(ROOT, 'src', 'cli', 'launch', 'services-main.ts')],
  outfile: SERVICES_BUNDLE,
  external: ['undici', 'zstd-codec', 'zstd-napi', 'bullmq', 'ioredis'],
  plugins: [embedStatic],
});

/**
 * Parts of undici's entry that no command of the CLI calls (fetch, WebSocket, EventSource, the
 * caches, cookies, the mocks): its index loads them all, so the bundle holds a stand-in that throws
 * when used. The entry and every export stay as they are; loading the bundle costs a third less
 * (launch/README.md). client-h1 needs fetch's body code only for FormData bodies, which we never send.
 */
const UNUSED_UNDICI = /[\\/]undici[\\/]lib[\\/](web|mock)[\\/]|[\\/]undici[\\/]lib[\\/]cache[\\/]sqlite-cache-store\.js$/;
const unusedUndici = {
  name: 'unused-undici',
  setup(b) {
    b.onLoad({ filter: UNUSED_UNDICI }, (args) => ({
      loader: 'js',
      contents: `const part = ${JSON.stringify(relative(dirname(requireModule.resolve('undici')), args.path).replaceAll('\\', '/'))};
const unused = (name) => new Proxy(function () {}, {
  apply() { throw new Error("undici's " + (name || 'export') + ' (' + part + ") is not in conda-resolve's CLI bundle"); },
  construct() { return new Proxy({}, { get: (_, key) => unused((name || 'export') + '().' + String(key)) }); },
  get(target, key) { return key === 'prototype' ? target.prototype : key === '__esModule' ? undefined : unused(name ? name + '.' + String(key) : String(key)); },
});
module.exports = unused('');
`,
    }));
  },
};
/**
 * undici's public exports (its package entry, what `require('undici')` gives), as one script:
 * compiled with its own code cache, so a run that downloads skips compiling undici's ~100 files,
 * and one answered from the cache does not load it (in the CLI's bundle it would, and its cache
 * would grow: launch/README.md).
 */
await build({
  ...script,
  entryPoints: [requireModule.resolve('undici')],
  outfile: UNDICI_BUNDLE,
  plugins: [unusedUndici],
});

/**
 * The launcher package.json's `bin` names, `dist/src/cli/bin.cjs`: src/cli/bin.ts with the small
 * modules of launch/ it imports, as CommonJS (an ES module as the entry starts Node's ES module
 * loader first: launch/README.md). Its fallback import of tsc's `main.js` stays an import, relative
 * to dist/src/cli where this file is written.
 */
const fallbackModules = {
  name: 'fallback-modules',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/main\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: './main.js', external: true } : undefined,
    );
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
