/**
 * What the `conda-resolve` executable (`src/cli/bin.ts`) does: run the built bundle beside
 * dist/src (`dist/cli/conda-resolve.cjs`, see scripts/build-cli.mjs) with V8's code cache
 * (code-cache.ts), else import the modules as they are: a checkout run through tsx, tsc's output
 * alone, a bundle older than `main.js` (tsc ran again after it was built), or one that does not
 * load. The bundle's `require('undici')` (on its first request) runs undici's own bundle,
 * `dist/cli/undici.cjs`, the same way, else the package from node_modules; `serve` and `worker`
 * run from the services' bundle, `dist/cli/services.cjs`, else from tsc's output. Why each step pays:
 * README.md in this folder.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { codeCacheDir, loadBundle, runCachedScript, type BundleExports, type LoadOptions } from './code-cache.js';
import { runThisProcess } from './exit-when-idle.js';
import { keepParserOnBaseline } from './wasm-tiering.js';

/** Commands that run too little of the bundle to make a code cache worth keeping. */
const LIGHT = new Set(['--version', '-V', '--help', '-h', 'help', 'completion']);

/** The bundle, when `binUrl` is the launcher in dist/src/cli and the bundle is at least as new as tsc's output and loads. */
function builtBundle(binUrl: string): BundleExports | undefined {
  // The action's one-file CLI (an .mjs holding everything) and a checkout run through tsx have none.
  if (!/\.c?js$/.test(binUrl)) return undefined;
  try {
    const bundle = fileURLToPath(new URL('../../cli/conda-resolve.cjs', binUrl));
    const compiled = fileURLToPath(new URL('./main.js', binUrl));
    // A second's slack: an unpacked package's files may get their times one by one.
    if (statSync(bundle).mtimeMs < statSync(compiled).mtimeMs - 1000) return undefined;
    const options = { codeCacheDir: codeCacheDir(process.env), write: !LIGHT.has(process.argv[2] ?? '') };
    const undici = { undici: () => undiciBundle(fileURLToPath(new URL('../../cli/undici.cjs', binUrl)), options) };
    const services = fileURLToPath(new URL('../../cli/services.cjs', binUrl));
    return loadBundle(bundle, {
      ...options,
      modules: { ...undici, 'conda-resolve:services': () => servicesBundle(services, { ...options, modules: undici }) },
    });
  } catch {
    return undefined;
  }
}

/** A bundle's exports run with its code cache (`runCachedScript`), or undefined when it is missing, does not load or lacks `has`. */
function bundleExports<T>(path: string, options: LoadOptions, has: (exports: T) => boolean): T | undefined {
  try {
    const exports = runCachedScript(path, options) as T;
    if (has(exports)) return exports;
  } catch {
    // the caller's fallback
  }
  return undefined;
}

/**
 * undici's public exports from its own bundle (scripts/build-cli.mjs) with its own code cache:
 * compiling undici's ~100 files from node_modules is most of what loading it costs. The package
 * itself when the bundle is missing or does not load.
 */
function undiciBundle(path: string, options: LoadOptions): unknown {
  return (
    bundleExports<{ Agent?: unknown }>(path, options, (e) => typeof e.Agent === 'function') ?? (createRequire(path)('undici') as unknown)
  );
}

/**
 * `serve` and `worker` from the services' bundle (scripts/build-cli.mjs) with its own code cache:
 * loading fastify, pino and the MCP server from node_modules is most of what starting `serve`
 * costs. Undefined (the CLI's bundle then imports tsc's output) when it is missing or does not load.
 */
function servicesBundle(path: string, options: LoadOptions): unknown {
  return bundleExports<{ serve?: { run?: unknown } }>(path, options, (e) => typeof e.serve?.run === 'function');
}

/** `binUrl` is the executable's module URL (dist/src/cli/bin.cjs when built): worker threads start there too. */
export async function start(binUrl: string): Promise<void> {
  const built = builtBundle(binUrl);
  if (built) {
    await built.run(binUrl);
    return;
  }
  keepParserOnBaseline();
  const { main } = await import('../main.js');
  await runThisProcess(main);
}
