/**
 * The simple-index client against a local index (test/helpers/pypi-index.ts) that negotiates JSON
 * and HTML and serves real wheels built here with real METADATA from this machine's site-packages.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PypiIndexClient, type PypiIndexClientOptions } from '../../../repodata/pypi/client.js';
import {
  PypiCorruptError,
  PypiFetchError,
  PypiIndexPageError,
  PypiNeedsBuildError,
  PypiOfflineError,
  PypiProjectNotFoundError,
  PypiTooLargeError,
} from '../../../repodata/pypi/errors.js';
import { isPypiCacheFile, PYPI_CACHE_SUBFOLDERS } from '../../../repodata/pypi/page-cache.js';
import { CondaResolveError } from '../../../vocabulary/errors.js';
import {
  buildWheel,
  metadataText,
  realMetadata,
  startIndexServer,
  tarGz,
  wheelName,
  zipArchive,
  type IndexProject,
  type IndexServer,
} from '../../helpers/pypi-index.js';
import { deflateRawSync } from 'node:zlib';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

const real = realMetadata(3);
const dirs: string[] = [];
const clients: PypiIndexClient[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pypi-client-'));
  dirs.push(dir);
  return dir;
}
function client(options: Partial<PypiIndexClientOptions> & { indexUrl: string }): PypiIndexClient {
  const made = new PypiIndexClient({ cacheDir: options.cacheDir ?? tempDir(), ...options });
  clients.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project with one wheel per version, all with `.metadata` files or none. */
function project(
  name: string,
  versions: readonly string[],
  options: { metadataFile?: boolean; requires?: string[]; yanked?: string; padding?: number } = {},
): IndexProject {
  return {
    name,
    files: versions.map((version, i) => {
      const text = metadataText(name, version, options.requires ?? []);
      const wheel = buildWheel(name, version, text, { padding: options.padding });
      return {
        filename: wheel.filename,
        bytes: wheel.bytes,
        ...(options.metadataFile ? { metadata: text } : {}),
        ...(options.yanked && i === 0 ? { yanked: options.yanked } : {}),
        requiresPython: '>=3.8',
      };
    }),
  };
}

describe('pages: negotiation, names, yanked files, several indexes', () => {
  let server: IndexServer;
  let htmlServer: IndexServer;
  let otherServer: IndexServer;
  beforeAll(async () => {
    const projects = [project('Foo.Bar', ['1.0', '1.1'], { yanked: 'broken build' }), project('private-lib', ['0.1'])];
    server = await startIndexServer(projects);
    htmlServer = await startIndexServer(projects, { htmlOnly: true });
    // A public index that also has "private-lib" (a higher version: the dependency-confusion attack), and a project of its own.
    otherServer = await startIndexServer([project('private-lib', ['99.0']), project('only-public', ['2.0'])]);
  });
  afterAll(async () => {
    await Promise.all([server.close(), htmlServer.close(), otherServer.close()]);
  });

  it('asks for PEP 691 JSON and reads it, with PEP 700 versions, sizes and upload times', async () => {
    const c = client({ indexUrl: server.indexUrl });
    const got = await c.getProject('Foo.Bar');
    expect(got.name).toBe('foo-bar');
    expect(got.versions).toEqual(['1.0', '1.1']);
    expect(got.files.map((f) => f.filename)).toEqual(['Foo_Bar-1.0-py3-none-any.whl', 'Foo_Bar-1.1-py3-none-any.whl']);
    expect(got.files[0]!.size).toBeGreaterThan(0);
    expect(got.files[0]!.uploadTime).toBe('2024-01-02T03:04:05.000000Z');
    expect(got.files[0]!.requiresPython).toBe('>=3.8');
    expect(got.files[0]!.url).toBe(`${server.url}/files/Foo_Bar-1.0-py3-none-any.whl`);
    const request = server.requests.find((r) => r.path === '/simple/foo-bar/')!;
    expect(request.accept).toMatch(/^application\/vnd\.pypi\.simple\.v1\+json, .*text\/html;q=/);
  });

  it('keeps a yanked file with its reason, for == pins only (the flag is exposed)', async () => {
    const got = await client({ indexUrl: server.indexUrl }).getProject('foo-bar');
    expect(got.files.map((f) => f.yanked)).toEqual(['broken build', false]);
  });

  it('reads a PEP 503 HTML index the same way', async () => {
    const got = await client({ indexUrl: htmlServer.indexUrl }).getProject('FOO_bar');
    expect(got.versions).toBeNull();
    expect(got.files.map((f) => [f.filename, f.yanked, f.requiresPython, f.hashes.sha256?.length])).toEqual([
      ['Foo_Bar-1.0-py3-none-any.whl', 'broken build', '>=3.8', 64],
      ['Foo_Bar-1.1-py3-none-any.whl', false, '>=3.8', 64],
    ]);
    expect(got.files[0]!.url).toBe(`${htmlServer.url}/files/Foo_Bar-1.0-py3-none-any.whl`);
  });

  it('requests the PEP 503 normalised name, and follows an index that redirects', async () => {
    const c = client({ indexUrl: `${server.url}/old/moved` });
    const got = await c.getProject('Foo__Bar');
    expect(server.requests.some((r) => r.path === '/old/moved/foo-bar/')).toBe(true);
    expect(server.requests.some((r) => /Foo/.test(r.path))).toBe(false);
    // Relative links resolve against the page that answered, after the redirect.
    expect(got.files[0]!.url).toBe(`${server.url}/files/Foo_Bar-1.0-py3-none-any.whl`);
  });

  it('first-index (the default): a project on the first index is never taken from a later one', async () => {
    const c = client({ indexUrl: server.indexUrl, extraIndexUrls: [otherServer.indexUrl] });
    const got = await c.getProject('private-lib');
    expect(got.files.map((f) => f.filename)).toEqual(['private_lib-0.1-py3-none-any.whl']);
    expect(got.indexes).toEqual([server.indexUrl]);
    // A project the first index lacks (404) comes from the next.
    expect((await c.getProject('only-public')).indexes).toEqual([otherServer.indexUrl]);
  });

  it('unsafe-best-match and unsafe-first-match see every index, in index order', async () => {
    const best = await client({
      indexUrl: server.indexUrl,
      extraIndexUrls: [otherServer.indexUrl],
      strategy: 'unsafe-best-match',
    }).getProject('private-lib');
    expect(best.files.map((f) => [f.filename, f.indexRank])).toEqual([
      ['private_lib-0.1-py3-none-any.whl', 0],
      ['private_lib-99.0-py3-none-any.whl', 1],
    ]);
    const first = await client({
      indexUrl: server.indexUrl,
      extraIndexUrls: [otherServer.indexUrl],
      strategy: 'unsafe-first-match',
    }).getProject('private-lib');
    expect(first.indexes).toEqual([server.indexUrl, otherServer.indexUrl]);
  });

  it('unsafe-best-match keeps only the first index files of a version both indexes have', async () => {
    const a = await startIndexServer([project('dup', ['1.0', '2.0'])]);
    const b = await startIndexServer([project('dup', ['1.0.0', '3.0'])]);
    try {
      const got = await client({ indexUrl: a.indexUrl, extraIndexUrls: [b.indexUrl], strategy: 'unsafe-best-match' }).getProject('dup');
      expect(got.files.map((f) => f.filename)).toEqual([
        'dup-1.0-py3-none-any.whl',
        'dup-2.0-py3-none-any.whl',
        'dup-3.0-py3-none-any.whl',
      ]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('an unknown project is a typed error naming it and the indexes', async () => {
    const error = await rejection(
      client({ indexUrl: server.indexUrl, extraIndexUrls: [otherServer.indexUrl] }).getProject('no-such-project'),
    );
    expect(error).toBeInstanceOf(PypiProjectNotFoundError);
    expect((error as CondaResolveError).code).toBe('CR_ERR_PYPI_PROJECT_NOT_FOUND');
    expect(error.message).toContain('"no-such-project"');
    expect(error.message).toContain(otherServer.indexUrl);
  });

  it('fetches many projects at once under the concurrency bound', async () => {
    const many = await startIndexServer(
      Array.from({ length: 24 }, (_, i) => project(`p${i}`, ['1.0'])),
      { delayMs: 20 },
    );
    try {
      const c = client({ indexUrl: many.indexUrl, concurrency: 4 });
      const got = await c.getProjects(Array.from({ length: 24 }, (_, i) => `p${i}`));
      expect(got.size).toBe(24);
      expect(many.maxInFlight()).toBeLessThanOrEqual(4);
      expect(many.maxInFlight()).toBeGreaterThan(1);
    } finally {
      await many.close();
    }
  });
});

describe('bad answers', () => {
  it('an index that answers an HTML login page for a project is refused, not read as "no files"', async () => {
    const server = await startIndexServer([
      {
        name: 'garbage',
        files: [],
        garbage: {
          contentType: 'text/html',
          body: '<html><head><script src="/app.js"></script></head><body><form method="post"><input type="password"></form></body></html>',
        },
      },
    ]);
    try {
      const error = await rejection(client({ indexUrl: server.indexUrl }).getProject('garbage'));
      expect(error).toBeInstanceOf(PypiIndexPageError);
      expect(error.message).toMatch(/login page/);
    } finally {
      await server.close();
    }
  });

  it('a server error is a typed error, and a later index is not consulted instead', async () => {
    const { createServer } = await import('node:http');
    const failing = createServer((_req, res) => res.writeHead(500).end('boom'));
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const port = (failing.address() as { port: number }).port;
    const other = await startIndexServer([project('x', ['1.0'])]);
    try {
      const error = await rejection(
        client({ indexUrl: `http://user:secret@127.0.0.1:${port}/simple/`, extraIndexUrls: [other.indexUrl] }).getProject('x'),
      );
      expect(error).toBeInstanceOf(PypiFetchError);
      expect(error.message).toMatch(/HTTP 500/);
      expect(error.message).not.toContain('secret');
      expect(other.requests).toHaveLength(0);
    } finally {
      failing.close();
      await other.close();
    }
  });
});

describe('metadata without downloading wheels', () => {
  const source = real[0] ?? { name: 'demo-real', version: '1.0', text: metadataText('demo-real', '1.0', ['idna>=2']) };
  let server: IndexServer;
  let noRanges: IndexServer;
  let htmlOnly: IndexServer;
  beforeAll(async () => {
    const wheel = buildWheel(source.name, source.version, source.text);
    const padded = buildWheel('padded', '1.0', metadataText('padded', '1.0', ['six']), { padding: 300_000 });
    const bombMetadata = deflateRawSync(Buffer.alloc(32 * 1024 * 1024));
    const bomb = zipArchive([{ name: 'bomb-1.0.dist-info/METADATA', data: Buffer.from('x'), raw: bombMetadata, declaredSize: 100 }]);
    const staticSdist = tarGz([
      { name: 'static_pkg-1.0/setup.py', data: Buffer.from('') },
      {
        name: 'static_pkg-1.0/PKG-INFO',
        data: Buffer.from('Metadata-Version: 2.2\nName: static-pkg\nVersion: 1.0\nRequires-Dist: attrs>=20\nDynamic: Description\n\n'),
      },
    ]);
    const dynamicSdist = tarGz([
      {
        name: 'dynamic_pkg-2.0/PKG-INFO',
        data: Buffer.from('Metadata-Version: 2.2\nName: dynamic-pkg\nVersion: 2.0\nDynamic: Requires-Dist\n\n'),
      },
    ]);
    const oldSdist = tarGz([{ name: 'old_pkg-0.5/PKG-INFO', data: Buffer.from('Metadata-Version: 2.1\nName: old-pkg\nVersion: 0.5\n\n') }]);
    const projects: IndexProject[] = [
      { name: source.name, files: [{ filename: wheel.filename, bytes: wheel.bytes, metadata: source.text }] },
      { name: 'no-metadata-file', files: [{ ...buildWheelFile('no-metadata-file', '3.1', ['requests>=2']) }] },
      { name: 'padded', files: [{ filename: padded.filename, bytes: padded.bytes }] },
      {
        name: 'bad-hash',
        files: [{ ...buildWheelFile('bad-hash', '1.0', []), metadata: metadataText('bad-hash', '1.0'), badMetadataHash: true }],
      },
      { name: 'bomb', files: [{ filename: 'bomb-1.0-py3-none-any.whl', bytes: bomb }] },
      {
        name: 'invalid-metadata',
        files: [{ ...buildWheelFile('invalid-metadata', '1.0', []), metadata: 'this is not\nmetadata at all\n' }],
      },
      { name: 'liar', files: [{ ...buildWheelFile('liar', '1.0', []), metadata: metadataText('someone-else', '9.9') }] },
      { name: 'static-pkg', files: [{ filename: 'static_pkg-1.0.tar.gz', bytes: staticSdist }] },
      { name: 'dynamic-pkg', files: [{ filename: 'dynamic_pkg-2.0.tar.gz', bytes: dynamicSdist }] },
      { name: 'old-pkg', files: [{ filename: 'old_pkg-0.5.tar.gz', bytes: oldSdist }] },
    ];
    const zipSdist = zipArchive([
      { name: 'zip_sdist-1.5/setup.py', data: Buffer.from('') },
      {
        name: 'zip_sdist-1.5/PKG-INFO',
        data: Buffer.from('Metadata-Version: 2.3\nName: zip-sdist\nVersion: 1.5\nRequires-Dist: packaging\n\n'),
      },
    ]);
    projects.push({ name: 'zip-sdist', files: [{ filename: 'zip_sdist-1.5.zip', bytes: zipSdist }] });
    server = await startIndexServer(projects);
    noRanges = await startIndexServer(projects, { ranges: false });
    htmlOnly = await startIndexServer(projects, { htmlOnly: true });
  });
  afterAll(async () => {
    await Promise.all([server.close(), noRanges.close(), htmlOnly.close()]);
  });

  function buildWheelFile(name: string, version: string, requires: string[]): { filename: string; bytes: Buffer } {
    return buildWheel(name, version, metadataText(name, version, requires));
  }

  async function metadataOf(c: PypiIndexClient, name: string) {
    const got = await c.getProject(name);
    return c.getMetadata(got.files[0]!);
  }

  it('uses the PEP 658 .metadata file (real METADATA from site-packages), hash checked, and never touches the wheel', async () => {
    const got = await metadataOf(client({ indexUrl: server.indexUrl }), source.name);
    expect(got.source).toBe('metadata-file');
    expect(got.text).toBe(source.text);
    expect(got.metadata.versionText).toBe(source.version);
    expect(got.metadata.requiresDist.length).toBeGreaterThan(0);
    expect(server.requests.some((r) => r.path.endsWith('.whl'))).toBe(false);
  });

  it('finds the .metadata file from an HTML page (data-core-metadata) too', async () => {
    const got = await metadataOf(client({ indexUrl: htmlOnly.indexUrl }), source.name);
    expect(got.source).toBe('metadata-file');
    expect(await rejection(metadataOf(client({ indexUrl: htmlOnly.indexUrl }), 'bad-hash'))).toBeInstanceOf(PypiCorruptError);
  });

  it('reads the PKG-INFO of a zip sdist through ranges', async () => {
    const got = await metadataOf(client({ indexUrl: server.indexUrl }), 'zip-sdist');
    expect(got.source).toBe('range-requests');
    expect(got.metadata.requiresDist).toEqual(['packaging']);
  });

  it('refuses a .metadata file whose hash does not match the page', async () => {
    const error = await rejection(metadataOf(client({ indexUrl: server.indexUrl }), 'bad-hash'));
    expect(error).toBeInstanceOf(PypiCorruptError);
    expect(error.message).toMatch(/does not match the sha256/);
  });

  it('without a .metadata file, reads METADATA out of the wheel with range requests', async () => {
    const before = server.requests.length;
    const got = await metadataOf(client({ indexUrl: server.indexUrl }), 'no-metadata-file');
    expect(got.source).toBe('range-requests');
    expect(got.metadata.requiresDist).toEqual(['requests>=2']);
    const wheelRequests = server.requests.slice(before).filter((r) => r.path.endsWith('.whl'));
    expect(wheelRequests.map((r) => r.range)).toEqual(['bytes=-65536']);
  });

  it('fetches the member in a second range when the tail does not reach it', async () => {
    const before = server.requests.length;
    const got = await metadataOf(client({ indexUrl: server.indexUrl }), 'padded');
    expect(got.metadata.requiresDist).toEqual(['six']);
    const ranges = server.requests
      .slice(before)
      .filter((r) => r.path.endsWith('.whl'))
      .map((r) => r.range);
    expect(ranges).toHaveLength(2);
    expect(ranges[1]).toMatch(/^bytes=\d+-\d+$/);
  });

  it('downloads the whole wheel when the server ignores ranges, and stops at the size cap', async () => {
    const got = await metadataOf(client({ indexUrl: noRanges.indexUrl }), 'padded');
    expect(got.source).toBe('whole-file');
    const error = await rejection(metadataOf(client({ indexUrl: noRanges.indexUrl, maxDownloadBytes: 100_000 }), 'padded'));
    expect(error).toBeInstanceOf(PypiTooLargeError);
    expect((error as CondaResolveError).code).toBe('CR_ERR_PYPI_TOO_LARGE');
  });

  it('a zip bomb stops at the METADATA cap, quickly', async () => {
    const error = await rejection(metadataOf(client({ indexUrl: server.indexUrl, maxMetadataBytes: 1 << 20 }), 'bomb'));
    expect(error).toBeInstanceOf(PypiTooLargeError);
    expect(error.message).toMatch(/zip bomb/);
  });

  it('invalid metadata, and metadata of another project, are typed errors', async () => {
    const invalid = await rejection(metadataOf(client({ indexUrl: server.indexUrl }), 'invalid-metadata'));
    expect(invalid).toBeInstanceOf(CondaResolveError);
    expect((invalid as CondaResolveError).code).toBe('CR_ERR_PYPI_METADATA_INVALID');
    const liar = await rejection(metadataOf(client({ indexUrl: server.indexUrl }), 'liar'));
    expect(liar).toBeInstanceOf(PypiCorruptError);
    expect(liar.message).toMatch(/names someone-else 9\.9, not the file's liar 1\.0/);
  });

  it('reads a static sdist PKG-INFO, and refuses dynamic or pre-2.2 ones naming project and version', async () => {
    const c = client({ indexUrl: server.indexUrl });
    const ok = await metadataOf(c, 'static-pkg');
    expect(ok.metadata.requiresDist).toEqual(['attrs>=20']);
    const dynamic = await rejection(metadataOf(c, 'dynamic-pkg'));
    expect(dynamic).toBeInstanceOf(PypiNeedsBuildError);
    expect(dynamic.message).toMatch(
      /dynamic-pkg 2\.0.*Requires-Dist as Dynamic.*needs? a build|dynamic-pkg 2\.0.*build, which conda-resolve never runs/,
    );
    const old = await rejection(metadataOf(c, 'old-pkg'));
    expect(old).toBeInstanceOf(PypiNeedsBuildError);
    expect(old.message).toMatch(/old-pkg 0\.5.*Metadata-Version 2\.1/);
  });
});

describe('caching and offline', () => {
  let server: IndexServer;
  beforeAll(async () => {
    server = await startIndexServer([project('cached', ['1.0'], { metadataFile: true }), project('revalidated', ['1.0'])], {
      cacheControl: 'max-age=600',
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('reuses a fresh page, then answers offline from the cache, with no request', async () => {
    const cacheDir = tempDir();
    const first = client({ indexUrl: server.indexUrl, cacheDir });
    const got = await first.getProject('cached');
    await first.getMetadata(got.files[0]!);
    // Cache writes run behind the answers; close (or flush) waits for them.
    await first.close();
    const count = server.requests.length;
    const second = client({ indexUrl: server.indexUrl, cacheDir });
    expect((await second.getProject('cached')).files).toHaveLength(1);
    const offline = client({ indexUrl: server.indexUrl, cacheDir, offline: true });
    const page = await offline.getProject('cached');
    expect((await offline.getMetadata(page.files[0]!)).source).toBe('cache');
    expect(server.requests.length).toBe(count);
    // Only our files under <cache>/pypi, named as `cache clean` will recognise them, no temp file left behind.
    expect(readdirSync(cacheDir)).toEqual(['pypi']);
    expect(readdirSync(join(cacheDir, 'pypi')).sort()).toEqual([...PYPI_CACHE_SUBFOLDERS].sort());
    for (const folder of PYPI_CACHE_SUBFOLDERS) {
      const names = readdirSync(join(cacheDir, 'pypi', folder));
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect([name, isPypiCacheFile(folder, name), name.endsWith('.tmp')]).toEqual([name, true, false]);
    }
    expect(isPypiCacheFile('pages', `${'a'.repeat(32)}.page.1234.0123456789ab.tmp`)).toBe(true);
    expect(isPypiCacheFile('pages', 'notes.txt')).toBe(false);
    expect(isPypiCacheFile('metadata', `${'a'.repeat(32)}.page`)).toBe(false);
  });

  it('revalidates a stale page with its ETag (a 304 costs no body)', async () => {
    const cacheDir = tempDir();
    let now = 1_000_000;
    const first = client({ indexUrl: server.indexUrl, cacheDir, now: () => now });
    await first.getProject('revalidated');
    await first.flush();
    now += 601_000;
    await client({ indexUrl: server.indexUrl, cacheDir, now: () => now }).getProject('revalidated');
    const pages = server.requests.filter((r) => r.path === '/simple/revalidated/');
    expect(pages.map((r) => r.status)).toEqual([200, 304]);
    expect(pages[1]!.ifNoneMatch).toMatch(/^"/);
  });

  it('refresh revalidates a fresh page once', async () => {
    const cacheDir = tempDir();
    const first = client({ indexUrl: server.indexUrl, cacheDir });
    await first.getProject('revalidated');
    await first.close();
    const before = server.requests.length;
    const refreshing = client({ indexUrl: server.indexUrl, cacheDir, refresh: true });
    await refreshing.getProject('revalidated');
    expect(server.requests.slice(before).map((r) => r.status)).toEqual([304]);
  });

  it('one index cannot plant metadata for another index file in a shared cache by claiming its hash', async () => {
    const good = buildWheel('shared-name', '1.0', metadataText('shared-name', '1.0', ['good-dep']));
    const evilText = metadataText('shared-name', '1.0', ['evil-dep']);
    const goodIndex = await startIndexServer([{ name: 'shared-name', files: [{ filename: good.filename, bytes: good.bytes }] }]);
    // The same file name and bytes (so the same sha256 on its page), with a .metadata file of its own.
    const evilIndex = await startIndexServer([
      { name: 'shared-name', files: [{ filename: good.filename, bytes: good.bytes, metadata: evilText }] },
    ]);
    try {
      const cacheDir = tempDir();
      const evil = client({ indexUrl: evilIndex.indexUrl, cacheDir });
      const evilFile = (await evil.getProject('shared-name')).files[0]!;
      expect((await evil.getMetadata(evilFile)).metadata.requiresDist).toEqual(['evil-dep']);
      await evil.close();
      const honest = client({ indexUrl: goodIndex.indexUrl, cacheDir });
      const file = (await honest.getProject('shared-name')).files[0]!;
      expect(file.hashes.sha256).toBe(evilFile.hashes.sha256);
      expect((await honest.getMetadata(file)).metadata.requiresDist).toEqual(['good-dep']);
    } finally {
      await Promise.all([goodIndex.close(), evilIndex.close()]);
    }
  });

  it('a cache that cannot be written still answers; flush reports the failure', async () => {
    const { writeFileSync } = await import('node:fs');
    const blocked = join(tempDir(), 'not-a-folder');
    writeFileSync(blocked, 'x');
    const c = client({ indexUrl: server.indexUrl, cacheDir: blocked });
    expect((await c.getProject('cached')).files).toHaveLength(1);
    const error = await rejection(c.flush());
    expect((error as CondaResolveError).code).toBe('CR_ERR_REPODATA_CACHE');
  });

  it('offline without a cached copy is a typed error', async () => {
    const error = await rejection(client({ indexUrl: server.indexUrl, offline: true }).getProject('cached'));
    expect(error).toBeInstanceOf(PypiOfflineError);
    expect((error as CondaResolveError).code).toBe('CR_ERR_PYPI_OFFLINE');
    expect(error.message).toContain('cached');
  });
});

describe('local indexes: find-links folders and file:// indexes', () => {
  it('reads a folder of wheels and sdists (find-links) beside an index', async () => {
    const { writeFileSync } = await import('node:fs');
    const folder = tempDir();
    const wheel = buildWheel('air-gapped', '1.2', metadataText('air-gapped', '1.2', ['numpy']));
    writeFileSync(join(folder, wheel.filename), wheel.bytes);
    writeFileSync(join(folder, 'other-1.0.tar.gz'), 'x');
    writeFileSync(join(folder, 'README.txt'), 'x');
    const empty = await startIndexServer([]);
    try {
      const c = client({ indexUrl: empty.indexUrl, findLinks: [folder] });
      const got = await c.getProject('Air_Gapped');
      expect(got.files.map((f) => f.filename)).toEqual([wheel.filename]);
      const metadata = await c.getMetadata(got.files[0]!);
      expect(metadata.source).toBe('local-file');
      expect(metadata.metadata.requiresDist).toEqual(['numpy']);
      // With no index at all (pip's --no-index), offline: only the folder, and no request anywhere.
      const before = empty.requests.length;
      const alone = client({ indexUrl: empty.indexUrl, noIndex: true, offline: true, findLinks: [folder] });
      expect((await alone.getProject('air-gapped')).files).toHaveLength(1);
      expect(await rejection(alone.getProject('numpy'))).toBeInstanceOf(PypiProjectNotFoundError);
      expect(empty.requests.length).toBe(before);
    } finally {
      await empty.close();
    }
  });

  it('reads a file:// PEP 503 tree, with or without index.html files', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { pathToFileURL } = await import('node:url');
    const root = tempDir();
    const wheel = buildWheel('tree-pkg', '0.3', metadataText('tree-pkg', '0.3', ['click']));
    mkdirSync(join(root, 'packages'));
    writeFileSync(join(root, 'packages', wheel.filename), wheel.bytes);
    mkdirSync(join(root, 'simple', 'tree-pkg'), { recursive: true });
    writeFileSync(
      join(root, 'simple', 'tree-pkg', 'index.html'),
      `<html><body><a href="../../packages/${wheel.filename}">${wheel.filename}</a></body></html>`,
    );
    mkdirSync(join(root, 'simple', 'bare'));
    const bare = buildWheel('bare', '1.0', metadataText('bare', '1.0'));
    writeFileSync(join(root, 'simple', 'bare', bare.filename), bare.bytes);
    const c = client({ indexUrl: pathToFileURL(join(root, 'simple')).href });
    const got = await c.getProject('tree_pkg');
    expect((await c.getMetadata(got.files[0]!)).metadata.requiresDist).toEqual(['click']);
    expect((await c.getProject('bare')).files.map((f) => f.filename)).toEqual([bare.filename]);
    expect(await rejection(c.getProject('missing'))).toBeInstanceOf(PypiProjectNotFoundError);
  });
});

describe('python3 -m http.server over a PEP 503 folder', () => {
  it('reads pages and metadata from a static server (HTML only, no ranges, no .metadata)', async () => {
    const { spawn } = await import('node:child_process');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const root = tempDir();
    const meta = real[1] ?? { name: 'static-served', version: '1.0', text: metadataText('static-served', '1.0', ['six']) };
    const wheel = buildWheel(meta.name, meta.version, meta.text);
    const dir = join(root, 'simple', meta.name.replace(/[-_.]+/g, '-').toLowerCase());
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, wheel.filename), wheel.bytes);
    writeFileSync(
      join(dir, 'index.html'),
      `<!DOCTYPE html><html><body><a href="${wheel.filename}" data-requires-python="&gt;=3.7">${wheel.filename}</a></body></html>`,
    );
    const proc = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', root], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    proc.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        proc.stdout!.on('data', (chunk: Buffer) => {
          const match = /port (\d+)/.exec(chunk.toString());
          if (match) resolve(Number(match[1]));
        });
        proc.on('exit', () => reject(new Error('python3 -m http.server exited')));
      });
      const cacheDir = tempDir();
      const c = client({ indexUrl: `http://127.0.0.1:${port}/simple/`, cacheDir });
      const got = await c.getProject(meta.name);
      expect(got.files.map((f) => [f.filename, f.requiresPython])).toEqual([[wheel.filename, '>=3.7']]);
      const metadata = await c.getMetadata(got.files[0]!);
      expect(metadata.source).toBe('whole-file');
      expect(metadata.text).toBe(meta.text);
      await c.close();
      // http.server sends Last-Modified and no Cache-Control: the next client revalidates with If-Modified-Since.
      const again = client({ indexUrl: `http://127.0.0.1:${port}/simple/`, cacheDir });
      expect((await again.getProject(meta.name)).files).toHaveLength(1);
      // The server logs each request after answering it, through a pipe: wait for the line.
      for (let i = 0; i < 100 && !/" 304 /.test(log); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(log).toMatch(/"GET \/simple\/[^ ]+\/ HTTP\/1\.1" 304/);
    } finally {
      proc.kill();
    }
  });
});

// `wheelName` is part of the helper's contract (PEP 427 escaping).
it('escapes wheel names as PEP 427 says', () => {
  expect(wheelName('Foo.Bar-baz')).toBe('Foo_Bar_baz');
});

describe('callers that give up', () => {
  it('one caller aborting does not fail another waiting for the same project', async () => {
    const slow = await startIndexServer([project('slow', ['1.0'])], { delayMs: 200 });
    try {
      const c = client({ indexUrl: slow.indexUrl });
      const impatient = new AbortController();
      const first = c.getProject('slow', { signal: impatient.signal });
      const second = c.getProject('slow');
      impatient.abort(new Error('gave up'));
      expect((await rejection(first)).message).toBe('gave up');
      expect((await second).files).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});
