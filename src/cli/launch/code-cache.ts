/**
 * Runs the CLI's bundle (`dist/cli/conda-resolve.cjs`) as a `vm.Script` with V8's code cache:
 * Node 20 has no compile cache for modules (`module.enableCompileCache` came in Node 22), but a
 * script accepts `cachedData`. The cache is what V8 compiled during the first run, written at exit
 * to `<cache dir>/code-cache/` (or `CONDA_RESOLVE_CODE_CACHE_DIR`, `codeCacheDir`); later runs skip
 * parsing and compiling what they share with it.
 *
 * It must never break a run: the file is named by the bundle's size, mtime and inode and Node's
 * version and flags (a rebuilt bundle or another Node gets its own file; the others are deleted
 * when a new one is written), carries its own SHA-1 (V8 checks a cache's header, not every byte
 * of it), is replaced when V8 rejects it, and any error reading or writing it only means a run
 * without it. Writes go through a temporary file and a rename, so concurrent runs are safe.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { defaultCacheDir } from '../../../repodata/cache-dir.js';
import { onMainThread } from './main-thread.js';

/** What the bundle exports (script-main.ts). */
export interface BundleExports {
  run(entryUrl: string): Promise<void>;
}

/** esbuild's CommonJS output, wrapped as a function of what a module gets and of what stands in for `import` (build-cli.mjs). */
const BUNDLE_HEAD = '(function (exports, require, module, __filename, __dirname, __crUrl, __crResolve, __crImport) {';
const BUNDLE_TAIL = '\n})';

const MAGIC = Buffer.from('CRCODE02');
/** The magic, the data's length (4 bytes) and its SHA-1 (20 bytes). */
const HEADER = MAGIC.length + 4 + 20;
/** The start of a bundle's cache files: its file name (`conda-resolve-`, `undici-`), so each bundle replaces only its own. */
function prefixOf(bundlePath: string): string {
  return `${basename(bundlePath).replace(/\.c?js$/, '')}-`;
}

/**
 * The folder of the code cache files: `CONDA_RESOLVE_CODE_CACHE_DIR` when set (a folder of its own,
 * for example one shared by runs that each get a fresh repodata cache, or a writable one beside a
 * read-only cache directory), else `code-cache/` in the cache directory (`CONDA_RESOLVE_CACHE_DIR`
 * or the user's).
 */
export function codeCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.CONDA_RESOLVE_CODE_CACHE_DIR || join(defaultCacheDir(env), 'code-cache');
}

/**
 * The cache file of this bundle under this Node: `<name>-<bundle>-<flags>.bin` (`conda-resolve-…`
 * for the CLI's bundle), the first hash from Node's version and the bundle's size, mtime and inode,
 * the second from Node's flags (V8 rejects a cache made under other flags, so each set keeps its own).
 */
export function codeCachePath(bundlePath: string, dir: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const stat = statSync(bundlePath);
  const short = (parts: readonly unknown[]): string => createHash('sha1').update(parts.join('\n')).digest('hex').slice(0, 16);
  const bundle = short([process.version, process.arch, stat.size, stat.mtimeMs, stat.ino]);
  const flags = short([process.execArgv.join(' '), env.NODE_OPTIONS ?? '']);
  return join(dir, `${prefixOf(bundlePath)}${bundle}-${flags}.bin`);
}

/** An integrity check, not a secret: crypto is loaded by every resolve anyway (zlib, for a CRC-32, is not). */
function digest(data: Buffer): Buffer {
  return createHash('sha1').update(data).digest();
}

/** The cached data in `path`, or undefined when it is missing, short or damaged. */
export function readCodeCache(path: string): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return undefined;
  }
  if (file.length < HEADER || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const data = file.subarray(HEADER);
  if (data.length !== file.readUInt32LE(MAGIC.length) || !digest(data).equals(file.subarray(MAGIC.length + 4, HEADER))) return undefined;
  return data;
}

/** Write `data` as the cache in `path` and delete the caches of other builds of the same bundle or other Nodes; errors are ignored. */
export function writeCodeCache(path: string, data: Buffer): void {
  try {
    const dir = dirname(path);
    mkdirSync(dir, { recursive: true });
    const header = Buffer.alloc(HEADER);
    MAGIC.copy(header);
    header.writeUInt32LE(data.length, MAGIC.length);
    digest(data).copy(header, MAGIC.length + 4);
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, Buffer.concat([header, data]));
    renameSync(temp, path);
    const name = path.slice(dir.length + 1);
    // `<name>-` and the bundle's hash: the 16 hex digits before `-<flags>.bin`.
    const prefix = name.slice(0, -'-0000000000000000.bin'.length - 16);
    const bundle = name.slice(0, prefix.length + 16);
    for (const other of readdirSync(dir)) {
      if (other.startsWith(prefix) && /^[0-9a-f]{16}-[0-9a-f]{16}\.bin$/.test(other.slice(prefix.length)) && !other.startsWith(bundle)) {
        try {
          unlinkSync(join(dir, other));
        } catch {
          // another run removed it, or it is not ours to remove
        }
      }
    }
  } catch {
    // no cache this time: the next run compiles again
  }
}

export interface LoadOptions {
  /** The folder of the code cache files (`codeCacheDir`); no code cache when undefined. */
  readonly codeCacheDir: string | undefined;
  /**
   * Whether this run may write the cache when there is no usable one. False for commands that
   * compile little (`--version`, `--help`): a cache holds only what its run compiled, and a thin
   * one would serve every later resolve.
   */
  readonly write: boolean;
  /**
   * Packages the bundle's `require()` takes from elsewhere (another bundle, start.ts): each is
   * called on the bundle's first `require()` of that name.
   */
  readonly modules?: Readonly<Record<string, () => unknown>>;
}

/** Compile and evaluate the CLI's bundle with the code cache (`runCachedScript`), and return its exports. */
export function loadBundle(bundlePath: string, options: LoadOptions): BundleExports {
  const exports = runCachedScript(bundlePath, options) as Partial<BundleExports>;
  if (typeof exports.run !== 'function') throw new Error(`${bundlePath} is not the conda-resolve bundle`);
  return exports as BundleExports;
}

/**
 * Compile and evaluate a CommonJS bundle with the code cache, and return its `module.exports`.
 * When there was no usable cache, the main thread writes one at exit, after the run compiled what
 * it needed.
 */
export function runCachedScript(bundlePath: string, options: LoadOptions): unknown {
  const { codeCacheDir: dir } = options;
  const source = `${BUNDLE_HEAD}${readFileSync(bundlePath, 'utf8')}${BUNDLE_TAIL}`;
  let cachePath: string | undefined;
  let cachedData: Buffer | undefined;
  if (dir !== undefined) {
    try {
      cachePath = codeCachePath(bundlePath, dir);
      cachedData = readCodeCache(cachePath);
    } catch {
      cachePath = undefined;
    }
  }
  const script = new Script(source, { filename: bundlePath, cachedData });
  if (cachePath !== undefined && options.write && onMainThread() && (cachedData === undefined || script.cachedDataRejected === true)) {
    const path = cachePath;
    process.once('exit', (code) => {
      // A usage error (exit status 2) stopped before running anything worth caching.
      if (code === 2) return;
      let data: Buffer;
      try {
        data = script.createCachedData();
      } catch {
        return;
      }
      writeCodeCache(path, data);
    });
  }
  const require = withModules(createRequire(bundlePath), options.modules ?? {});
  const url = pathToFileURL(bundlePath).href;
  const resolve = (specifier: string): string => pathToFileURL(require.resolve(specifier)).href;
  // The modules left outside the bundle (scripts/build-cli.mjs), by a path relative to it.
  const load = (specifier: string): Promise<unknown> => import(new URL(specifier, url).href);
  const module: { exports: unknown } = { exports: {} };
  const evaluate = script.runInThisContext() as (...args: unknown[]) => void;
  evaluate(module.exports, require, module, bundlePath, dirname(bundlePath), url, resolve, load);
  return module.exports;
}

/** `require` answering the names in `modules` from them (each once), the rest as usual. */
function withModules(require: NodeJS.Require, modules: Readonly<Record<string, () => unknown>>): NodeJS.Require {
  if (Object.keys(modules).length === 0) return require;
  const loaded = new Map<string, unknown>();
  const answer = (id: string): unknown => {
    const from = Object.hasOwn(modules, id) ? modules[id] : undefined;
    if (from === undefined) return require(id) as unknown;
    if (!loaded.has(id)) loaded.set(id, from());
    return loaded.get(id);
  };
  return Object.assign(answer, require);
}
