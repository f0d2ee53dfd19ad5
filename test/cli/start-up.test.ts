/**
 * What the built executable loads and keeps to start quickly (issue 13, scope 4): a resolve
 * answered from a fresh cache loads no HTTP client and none of the server's packages, and the V8
 * code cache it keeps under <cache>/code-cache never breaks a run, whatever state the file is in.
 * Child processes of dist/src/cli/bin.cjs (the bundle beside it, dist/cli/conda-resolve.cjs, and
 * undici's, dist/cli/undici.cjs, run on the first request).
 */
import { cpSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeCacheDir, readCodeCache, writeCodeCache } from '../../src/cli/launch/code-cache.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { startServe } from '../http/helpers/serve-process.js';
import { DEMO, requireBuild, spawnCli as spawnCliShared, tempDir } from './run-cli.js';

const BUNDLE = join(PROJECT_ROOT, 'dist', 'cli', 'conda-resolve.cjs');
const UNDICI_BUNDLE = join(PROJECT_ROOT, 'dist', 'cli', 'undici.cjs');

/**
 * `spawnCli` with the code cache in `<cache dir>/code-cache`, where these tests look for it: the
 * test run's one code cache folder (CONDA_RESOLVE_CODE_CACHE_DIR, test/helpers/global-setup.ts)
 * is left out unless a test sets it.
 */
function spawnCli(...[args, options = {}]: Parameters<typeof spawnCliShared>): ReturnType<typeof spawnCliShared> {
  return spawnCliShared(args, { ...options, env: { CONDA_RESOLVE_CODE_CACHE_DIR: undefined, ...options.env } });
}

let server: ChannelServer;
beforeAll(async () => {
  requireBuild();
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run "npm run build" first (npm test does)`);
  server = await startChannelServer({ root: join(DEMO, '..'), maxAge: 3600 });
});
afterAll(() => server.close());

/**
 * A preload that writes, when the process exits, every CommonJS module file it loaded (`files`),
 * every built-in module Node loaded for it (`builtins`, from `process.moduleLoadList`) and every
 * file read whole with `fs.readFileSync` (`reads`: the bundles the launcher runs as scripts) to `out`.
 */
function moduleProbe(out: string): string {
  const probe = join(tempDir('cr-probe-'), 'probe.cjs');
  const builtins = "process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13))";
  writeFileSync(
    probe,
    [
      "const fs = require('node:fs');",
      'const reads = [];',
      'const readFileSync = fs.readFileSync;',
      "fs.readFileSync = function (path, ...rest) { if (typeof path === 'string') reads.push(path); return readFileSync.call(this, path, ...rest); };",
      `process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ files: Object.keys(require.cache), builtins: ${builtins}, reads })));`,
      '',
    ].join('\n'),
  );
  return probe;
}

interface Loaded {
  readonly files: string[];
  readonly builtins: string[];
  readonly reads: string[];
}

/** Whether the run read undici's bundle (run as a script, which `require.cache` does not list). */
function ranUndiciBundle(loaded: Loaded): boolean {
  return loaded.reads.some((path) => path.endsWith(join('dist', 'cli', 'undici.cjs')));
}

/** The npm packages among the loaded files. */
function packagesIn(files: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const match = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
    if (match) names.add(match[1]!.replace('\\', '/'));
  }
  return names;
}

const request = () => ['-c', `${server.url}/demo`, '-p', 'linux-64', 'python=3.9', '--format', 'explicit'];

describe('a resolve from a fresh cache', () => {
  it('loads no HTTP client and no server package, where the run that filled the cache ran undici from its bundle', async () => {
    const cacheDir = tempDir('cr-cache-');
    const out = join(tempDir('cr-modules-'), 'modules.json');
    const env = { NODE_OPTIONS: `--require ${moduleProbe(out)}` };

    const first = await spawnCli(request(), { cacheDir, env });
    expect(first.code, first.stderr).toBe(0);
    // The download needed undici: its bundle ran, and none of the package's files were compiled.
    const cold = JSON.parse(readFileSync(out, 'utf8')) as Loaded;
    expect(ranUndiciBundle(cold)).toBe(true);
    expect(packagesIn(cold.files).has('undici')).toBe(false);

    const asked = server.log.length;
    const warm = await spawnCli(request(), { cacheDir, env });
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stdout).toBe(first.stdout);
    expect(server.log.length).toBe(asked); // answered from the cache: no request
    const warmLoaded = JSON.parse(readFileSync(out, 'utf8')) as Loaded;
    const { files, builtins } = warmLoaded;
    expect(ranUndiciBundle(warmLoaded)).toBe(false);
    const loaded = packagesIn(files);
    // CommonJS packages, which the probe sees (the bundle holds the rest, or they are ES modules).
    for (const name of ['undici', 'zstd-codec', 'zstd-napi', 'fastify', 'ioredis', 'pino']) {
      expect(loaded.has(name), `${name} was loaded`).toBe(false);
    }
    // Built-ins a warm one-platform resolve has no use for, each a few milliseconds to load
    // (src/cli/launch/README.md): the solve pool's threads, fs/promises (it loads readline).
    for (const name of ['worker_threads', 'fs/promises', 'internal/readline/interface']) {
      expect(builtins, `node:${name} was loaded`).not.toContain(name);
    }
  });
});

describe('a resolve that revalidates its cache', () => {
  it('gets 304 answers and loads no zstd codec (a first fetch preloads it beside the request)', async () => {
    const revalidating = await startChannelServer({ root: join(DEMO, '..'), maxAge: 0 });
    try {
      const cacheDir = tempDir('cr-cache-');
      const out = join(tempDir('cr-modules-'), 'modules.json');
      const env = { NODE_OPTIONS: `--require ${moduleProbe(out)}` };
      const args = ['-c', `${revalidating.url}/demo`, '-p', 'linux-64', 'python=3.9', '--format', 'explicit'];
      const first = await spawnCli(args, { cacheDir, env });
      expect(first.code, first.stderr).toBe(0);
      // The native libzstd when the optional zstd-napi is installed, else the WebAssembly one.
      const firstLoaded = packagesIn((JSON.parse(readFileSync(out, 'utf8')) as Loaded).files);
      expect(firstLoaded.has('zstd-napi') || firstLoaded.has('zstd-codec'), [...firstLoaded].join(', ')).toBe(true);

      const asked = revalidating.log.length;
      const again = await spawnCli(args, { cacheDir, env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(first.stdout);
      const answers = revalidating.log.slice(asked).map((entry) => entry.status);
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.every((status) => status === 304)).toBe(true);
      const againLoaded = packagesIn((JSON.parse(readFileSync(out, 'utf8')) as Loaded).files);
      expect(againLoaded.has('zstd-codec') || againLoaded.has('zstd-napi'), [...againLoaded].join(', ')).toBe(false);
    } finally {
      await revalidating.close();
    }
  });
});

/** The code cache files of one bundle (`conda-resolve`, the CLI's, unless told). */
function cacheFiles(cacheDir: string, bundle = 'conda-resolve'): string[] {
  const dir = join(cacheDir, 'code-cache');
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.startsWith(`${bundle}-`))
        .map((name) => join(dir, name))
    : [];
}

describe('the code cache', () => {
  it('is written by the first run and read by the next, with the same answer', async () => {
    const cacheDir = tempDir('cr-cache-');
    const first = await spawnCli(request(), { cacheDir });
    expect(first.code, first.stderr).toBe(0);
    const [file, ...others] = cacheFiles(cacheDir);
    expect(others).toEqual([]);
    expect(readCodeCache(file!)).toBeDefined();
    const written = readFileSync(file!);
    const second = await spawnCli(request(), { cacheDir });
    expect(second).toEqual(first);
    // Accepted as it was: not written again.
    expect(readFileSync(file!).equals(written)).toBe(true);
  });

  it('is kept in CONDA_RESOLVE_CODE_CACHE_DIR when it is set, instead of <cache dir>/code-cache', async () => {
    const codeDir = join(tempDir('cr-code-'), 'code');
    const cacheDir = tempDir('cr-cache-');
    const env = { CONDA_RESOLVE_CODE_CACHE_DIR: codeDir };
    const first = await spawnCli(request(), { cacheDir, env });
    expect(first.code, first.stderr).toBe(0);
    expect(cacheFiles(cacheDir)).toEqual([]);
    const [file, ...others] = readdirSync(codeDir).filter((name) => name.startsWith('conda-resolve-'));
    expect(others).toEqual([]);
    expect(readCodeCache(join(codeDir, file!))).toBeDefined();
    const written = readFileSync(join(codeDir, file!));
    // Another repodata cache, the same code cache: read, not written again.
    const second = await spawnCli(request(), { cacheDir: tempDir('cr-cache-'), env });
    expect(second).toEqual(first);
    expect(readFileSync(join(codeDir, file!)).equals(written)).toBe(true);
  });

  it('has its folder from CONDA_RESOLVE_CODE_CACHE_DIR, else code-cache in the cache directory', () => {
    expect(codeCacheDir({ CONDA_RESOLVE_CODE_CACHE_DIR: '/srv/code', CONDA_RESOLVE_CACHE_DIR: '/srv/cache' })).toBe('/srv/code');
    expect(codeCacheDir({ CONDA_RESOLVE_CODE_CACHE_DIR: '', CONDA_RESOLVE_CACHE_DIR: '/srv/cache' })).toBe(
      join('/srv/cache', 'code-cache'),
    );
    expect(codeCacheDir({ CONDA_RESOLVE_CACHE_DIR: '/srv/cache' })).toBe(join('/srv/cache', 'code-cache'));
  });

  it('is not written by a run that compiles little (--version, a usage error), then written by a resolve', async () => {
    const cacheDir = tempDir('cr-cache-');
    expect((await spawnCli(['--version'], { cacheDir })).code).toBe(0);
    expect((await spawnCli(['--no-such-flag', 'python'], { cacheDir })).code).toBe(2);
    expect(cacheFiles(cacheDir)).toEqual([]);
    expect((await spawnCli(request(), { cacheDir })).code).toBe(0);
    expect(cacheFiles(cacheDir)).toHaveLength(1);
  });

  const damages: [string, (bytes: Buffer) => Buffer][] = [
    ['a flipped byte', (bytes) => Buffer.from(bytes.map((b, i) => (i === bytes.length >> 1 ? b ^ 0xff : b)))],
    ['cut short', (bytes) => bytes.subarray(0, bytes.length >> 1)],
    ['not a cache at all', () => Buffer.from('hello\n')],
    ['empty', () => Buffer.alloc(0)],
  ];
  // One run fills a cache folder; each case damages a copy of it (a process start saved per case).
  let filled: { cacheDir: string; first: Awaited<ReturnType<typeof spawnCli>> } | undefined;
  async function damagedCopy(): Promise<{ cacheDir: string; file: string; first: Awaited<ReturnType<typeof spawnCli>> }> {
    if (!filled) {
      const cacheDir = tempDir('cr-cache-');
      filled = { cacheDir, first: await spawnCli(request(), { cacheDir }) };
    }
    const cacheDir = tempDir('cr-cache-');
    cpSync(filled.cacheDir, cacheDir, { recursive: true });
    const [file] = cacheFiles(cacheDir);
    return { cacheDir, file: file!, first: filled.first };
  }

  for (const [what, damage] of damages) {
    it(`a cache file ${what} is ignored and replaced, and the run answers as before`, async () => {
      const { cacheDir, file, first } = await damagedCopy();
      writeFileSync(file, damage(readFileSync(file)));
      expect(readCodeCache(file)).toBeUndefined();
      const again = await spawnCli(request(), { cacheDir });
      expect(again).toEqual(first);
      expect(readCodeCache(file)).toBeDefined();
    });
  }

  it('a cache V8 rejects (its own checksum right, its content not V8 code) is replaced', async () => {
    const { cacheDir, file, first } = await damagedCopy();
    writeCodeCache(file, Buffer.alloc(4096, 7));
    expect(readCodeCache(file)?.length).toBe(4096);
    const again = await spawnCli(request(), { cacheDir });
    expect(again).toEqual(first);
    expect(readCodeCache(file)?.length).not.toBe(4096);
  });

  it("another bundle's cache is deleted when this one is written; an unwritable cache directory only means no cache", async () => {
    const cacheDir = tempDir('cr-cache-');
    const stale = join(cacheDir, 'code-cache', 'conda-resolve-0000000000000000-0000000000000000.bin');
    writeCodeCache(stale, Buffer.from('old'));
    const first = await spawnCli(request(), { cacheDir });
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(cacheFiles(cacheDir)).toHaveLength(1);

    // A file where the code-cache folder should be: nothing can be written, the run still answers.
    const blocked = tempDir('cr-cache-');
    writeFileSync(join(blocked, 'code-cache'), 'not a folder');
    const run = await spawnCli(request(), { cacheDir: blocked });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(first.stdout);
  });
});

/** A copy of the built package (dist/ and package.json, node_modules linked) whose files a test may change. */
function copyOfBuild(): { root: string; bin: string; bundle: string; undici: string; services: string } {
  const root = tempDir('cr-build-');
  cpSync(join(PROJECT_ROOT, 'dist'), join(root, 'dist'), { recursive: true, preserveTimestamps: true });
  cpSync(join(PROJECT_ROOT, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  const cli = join(root, 'dist', 'cli');
  return {
    root,
    bin: join(root, 'dist', 'src', 'cli', 'bin.cjs'),
    bundle: join(cli, 'conda-resolve.cjs'),
    undici: join(cli, 'undici.cjs'),
    services: join(cli, 'services.cjs'),
  };
}

describe('the bundle beside the modules', () => {
  const local = ['-c', DEMO, '-p', 'linux-64', 'python=3.9', '--format', 'explicit'];

  it('is not used when older than main.js (tsc ran again after it was built), nor when it does not load', async () => {
    const cacheDir = tempDir('cr-cache-');
    const expected = await spawnCli(local, { cacheDir });
    expect(expected.code, expected.stderr).toBe(0);

    const stale = copyOfBuild();
    // A minute older than main.js, however long ago the build ran.
    const past = new Date(statSync(join(stale.root, 'dist', 'src', 'cli', 'main.js')).mtimeMs - 60_000);
    utimesSync(stale.bundle, past, past);
    const staleCache = tempDir('cr-cache-');
    const fromModules = await spawnCli([stale.bin, ...local], { cacheDir: staleCache, command: process.execPath });
    expect(fromModules).toEqual(expected);
    // Only the bundle keeps a code cache: none means the modules ran.
    expect(existsSync(join(staleCache, 'code-cache'))).toBe(false);

    const broken = copyOfBuild();
    writeFileSync(broken.bundle, 'this is not JavaScript {');
    const brokenCache = tempDir('cr-cache-');
    expect(await spawnCli([broken.bin, ...local], { cacheDir: brokenCache, command: process.execPath })).toEqual(expected);
  });
});

describe("undici's bundle", () => {
  it('keeps its own code cache, written by the first run that downloads and read by the next', async () => {
    expect(existsSync(UNDICI_BUNDLE), `${UNDICI_BUNDLE} is missing: run "npm run build"`).toBe(true);
    const revalidating = await startChannelServer({ root: join(DEMO, '..'), maxAge: 0 });
    try {
      const cacheDir = tempDir('cr-cache-');
      const args = ['-c', `${revalidating.url}/demo`, '-p', 'linux-64', 'python=3.9', '--format', 'explicit'];
      const first = await spawnCli(args, { cacheDir });
      expect(first.code, first.stderr).toBe(0);
      const [file, ...others] = cacheFiles(cacheDir, 'undici');
      expect(others).toEqual([]);
      expect(readCodeCache(file!)).toBeDefined();
      // The CLI's own cache is kept beside it.
      expect(cacheFiles(cacheDir)).toHaveLength(1);
      const written = readFileSync(file!);
      const again = await spawnCli(args, { cacheDir });
      expect(again).toEqual(first);
      expect(readFileSync(file!).equals(written)).toBe(true);
    } finally {
      await revalidating.close();
    }
  });

  it('a damaged cache of it is ignored and replaced, and the run answers as before', async () => {
    const cacheDir = tempDir('cr-cache-');
    const first = await spawnCli(request(), { cacheDir });
    expect(first.code, first.stderr).toBe(0);
    const [file] = cacheFiles(cacheDir, 'undici');
    for (const damaged of [Buffer.from('hello\n'), Buffer.alloc(0)]) {
      writeFileSync(file!, damaged);
      // A fresh HTTP cache: the run downloads again, so it loads undici.
      const again = tempDir('cr-cache-');
      cpSync(join(cacheDir, 'code-cache'), join(again, 'code-cache'), { recursive: true });
      expect(await spawnCli(request(), { cacheDir: again })).toEqual(first);
      expect(readCodeCache(join(again, 'code-cache', file!.slice(file!.lastIndexOf('undici-'))))).toBeDefined();
    }
    // One V8 rejects: its own checksum right, its content not V8 code.
    writeCodeCache(file!, Buffer.alloc(4096, 7));
    const rejected = tempDir('cr-cache-');
    cpSync(join(cacheDir, 'code-cache'), join(rejected, 'code-cache'), { recursive: true });
    expect(await spawnCli(request(), { cacheDir: rejected })).toEqual(first);
    expect(readCodeCache(cacheFiles(rejected, 'undici')[0]!)?.length).not.toBe(4096);
  });

  it('when it is missing or does not load, the package from node_modules serves the request', async () => {
    const expected = await spawnCli(request(), { cacheDir: tempDir('cr-cache-') });
    expect(expected.code, expected.stderr).toBe(0);
    const out = join(tempDir('cr-modules-'), 'modules.json');
    const env = { NODE_OPTIONS: `--require ${moduleProbe(out)}` };

    const missing = copyOfBuild();
    unlinkSync(missing.undici);
    const missingCache = tempDir('cr-cache-');
    expect(await spawnCli([missing.bin, ...request()], { cacheDir: missingCache, env, command: process.execPath })).toEqual(expected);
    expect(packagesIn((JSON.parse(readFileSync(out, 'utf8')) as Loaded).files)).toContain('undici');
    expect(cacheFiles(missingCache, 'undici')).toEqual([]);

    const broken = copyOfBuild();
    writeFileSync(broken.undici, 'this is not JavaScript {');
    expect(await spawnCli([broken.bin, ...request()], { cacheDir: tempDir('cr-cache-'), env, command: process.execPath })).toEqual(
      expected,
    );
    expect(packagesIn((JSON.parse(readFileSync(out, 'utf8')) as Loaded).files)).toContain('undici');
  });
});

describe("the services' bundle", () => {
  /** `serve` from `bin`: the page and its stylesheet as it answers them, and what the process loaded. */
  async function serveOnce(bin: string, cacheDir: string): Promise<{ page: string; style: string; loaded: Loaded }> {
    const out = join(tempDir('cr-modules-'), 'modules.json');
    // The code cache goes to <cache dir>/code-cache, as a user's does.
    const env = {
      NODE_OPTIONS: `--require ${moduleProbe(out)}`,
      CONDA_RESOLVE_CACHE_DIR: cacheDir,
      CONDA_RESOLVE_CODE_CACHE_DIR: undefined,
    };
    const serve = startServe(['--port', '0', '--workers', '1'], { bin, env });
    let page: string;
    let style: string;
    try {
      const url = await serve.url;
      page = await (await fetch(`${url}/ui`)).text();
      style = await (await fetch(`${url}/ui/app.css`)).text();
    } finally {
      serve.child.kill('SIGTERM');
    }
    expect(await serve.exit).toBe(0);
    return { page, style, loaded: JSON.parse(readFileSync(out, 'utf8')) as Loaded };
  }
  const ranServices = (loaded: Loaded): boolean => loaded.reads.some((path) => path.endsWith(join('dist', 'cli', 'services.cjs')));

  /** What `serve` from the built package answers, for the fallback's comparison. */
  let built: { page: string; style: string } | undefined;

  it('runs serve with fastify inside it, its page embedded, with its own code cache written at exit and read by the next start', async () => {
    const cacheDir = tempDir('cr-cache-');
    const first = await serveOnce(join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bin.cjs'), cacheDir);
    expect(ranServices(first.loaded)).toBe(true);
    expect(packagesIn(first.loaded.files)).not.toContain('fastify');
    // The Redis client and queue stay unloaded without --redis.
    expect(packagesIn(first.loaded.files)).not.toContain('ioredis');
    expect(packagesIn(first.loaded.files)).not.toContain('bullmq');
    expect(first.page).toContain('<html');
    expect(first.style).toContain('{');
    const [file, ...others] = cacheFiles(cacheDir, 'services');
    expect(others).toEqual([]);
    expect(readCodeCache(file!)).toBeDefined();
    const written = readFileSync(file!);
    const second = await serveOnce(join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bin.cjs'), cacheDir);
    built = { page: first.page, style: first.style };
    expect({ page: second.page, style: second.style }).toEqual(built);
    // Accepted as it was: not written again.
    expect(readFileSync(file!).equals(written)).toBe(true);
  });

  it('when it does not load, serve runs from the modules, with the same page', async () => {
    const expected = built ?? (await serveOnce(join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bin.cjs'), tempDir('cr-cache-')));
    // A file that is not JavaScript; a missing one fails the same read-and-compile step first.
    const build = copyOfBuild();
    writeFileSync(build.services, 'this is not JavaScript {');
    const cacheDir = tempDir('cr-cache-');
    const run = await serveOnce(build.bin, cacheDir);
    expect(packagesIn(run.loaded.files)).toContain('fastify');
    expect({ page: run.page, style: run.style }).toEqual({ page: expected.page, style: expected.style });
    expect(cacheFiles(cacheDir, 'services')).toEqual([]);
  });
});
