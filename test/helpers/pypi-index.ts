/**
 * A local Python package index for tests and benchmarks: real wheels and sdists built here (zip and
 * tar.gz writers over node:zlib), real METADATA copied from this machine's site-packages, and a
 * small HTTP server on 127.0.0.1 that speaks the simple repository API as PyPI does: PEP 691 JSON or
 * PEP 503 HTML by the Accept header, redirects of unnormalised names, ETag / Cache-Control,
 * `.metadata` files (PEP 658/714) where a file has them, and byte ranges (suffix and start-end)
 * on files unless turned off.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

export interface ZipInput {
  readonly name: string;
  readonly data: Buffer;
  /** Default deflate. */
  readonly store?: boolean;
  /** Lie about the inflated size in the headers (a zip bomb's header may say anything). */
  readonly declaredSize?: number;
  /** Use these bytes as the compressed data instead of deflating `data`. */
  readonly raw?: Buffer;
}

/** A zip archive (APPNOTE 4.3, no zip64), members in order, central directory at the end. */
export function zipArchive(entries: readonly ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const compressed = entry.raw ?? (entry.store ? entry.data : deflateRawSync(entry.data));
    const crc = crc32(entry.data);
    const size = entry.declaredSize ?? entry.data.length;
    const method = entry.store ? 0 : 8;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, compressed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + compressed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A gzip-compressed ustar archive of regular files. */
export function tarGz(entries: readonly { name: string; data: Buffer }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100, 'utf8');
    header.write('0000644\0', 100, 'latin1');
    header.write('0000000\0', 108, 'latin1');
    header.write('0000000\0', 116, 'latin1');
    header.write(`${entry.data.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
    header.write('00000000000\0', 136, 'latin1');
    header.write('        ', 148, 'latin1');
    header.write('0', 156, 'latin1');
    header.write('ustar\0', 257, 'latin1');
    header.write('00', 263, 'latin1');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    blocks.push(header, entry.data, Buffer.alloc((512 - (entry.data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** PEP 427's escaping of a name in a wheel file name. */
export function wheelName(name: string): string {
  return name.replace(/[-_.]+/g, '_');
}

/** A wheel: a module, its `.dist-info` (METADATA, WHEEL, RECORD) written last, as build backends do. */
export function buildWheel(
  name: string,
  version: string,
  metadata: string,
  options: { tag?: string; padding?: number } = {},
): { filename: string; bytes: Buffer } {
  const dist = `${wheelName(name)}-${version}`;
  const tag = options.tag ?? 'py3-none-any';
  const files: ZipInput[] = [
    { name: `${wheelName(name).toLowerCase()}/__init__.py`, data: Buffer.from(`# ${name}\n`) },
    // Optional bulk before the dist-info, so the tail read does not reach METADATA (a second range request).
    ...(options.padding
      ? [
          {
            name: `${wheelName(name).toLowerCase()}/data.bin`,
            data: Buffer.from(
              createHash('sha512')
                .update(name)
                .digest('hex')
                .repeat(Math.ceil(options.padding / 128))
                .slice(0, options.padding),
            ),
            store: true,
          },
        ]
      : []),
    { name: `${dist}.dist-info/METADATA`, data: Buffer.from(metadata) },
    {
      name: `${dist}.dist-info/WHEEL`,
      data: Buffer.from(`Wheel-Version: 1.0\nGenerator: conda-resolve-tests\nRoot-Is-Purelib: true\nTag: ${tag}\n`),
    },
    { name: `${dist}.dist-info/RECORD`, data: Buffer.from('') },
  ];
  return { filename: `${dist}-${tag}.whl`, bytes: zipArchive(files) };
}

/** The site-packages of this machine's python3, or null when there is none. */
export function sitePackages(): string | null {
  try {
    const out = execFileSync('python3', ['-c', 'import site,sys; print("\\n".join(site.getsitepackages()))'], { encoding: 'utf8' });
    return (
      out
        .split('\n')
        .map((line) => line.trim())
        .find((dir) => dir !== '' && existsSync(dir)) ?? null
    );
  } catch {
    return null;
  }
}

/** Real METADATA files from site-packages: `{ name, version, text }` of up to `count` distributions that have Requires-Dist. */
export function realMetadata(count: number): { name: string; version: string; text: string }[] {
  const dir = sitePackages();
  if (dir === null) return [];
  const out: { name: string; version: string; text: string }[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (!entry.endsWith('.dist-info') || out.length >= count) continue;
    const file = join(dir, entry, 'METADATA');
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const name = /^Name: (.+)$/m.exec(text)?.[1]?.trim();
    const version = /^Version: (.+)$/m.exec(text)?.[1]?.trim();
    if (name && version && /^Requires-Dist:/m.test(text)) out.push({ name, version, text });
  }
  return out;
}

export function metadataText(name: string, version: string, requires: readonly string[] = [], extra: string = ''): string {
  return `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n${requires.map((r) => `Requires-Dist: ${r}\n`).join('')}${extra}\n`;
}

export interface IndexFile {
  readonly filename: string;
  readonly bytes: Buffer;
  /** Serve `<file>.metadata` and say so on the page (PEP 658/714). */
  readonly metadata?: string;
  /** Give the wrong hash for the `.metadata` file on the page. */
  readonly badMetadataHash?: boolean;
  readonly yanked?: string | true;
  readonly requiresPython?: string;
}

/** A pure-Python wheel whose METADATA (also served as its `.metadata` file) lists `requires`. */
export function indexWheel(name: string, version: string, requires: readonly string[] = []): IndexFile {
  const text = metadataText(name, version, requires);
  return { ...buildWheel(name, version, text), metadata: text };
}

export interface IndexProject {
  readonly name: string;
  readonly files: readonly IndexFile[];
  /** Answer this instead of a page (an index that answers garbage). */
  readonly garbage?: { contentType: string; body: string };
}

export interface IndexServerOptions {
  /** Byte ranges on files; default true. */
  readonly ranges?: boolean;
  /** Added before every answer, in milliseconds (a far index). */
  readonly delayMs?: number;
  /** Only HTML pages (an index from before PEP 691). */
  readonly htmlOnly?: boolean;
  /** `Cache-Control` of pages; default `max-age=600` as PyPI sends. */
  readonly cacheControl?: string;
  /** Links on HTML pages relative (`../../files/x`) rather than absolute; default true. */
  readonly relativeLinks?: boolean;
}

export interface IndexServer {
  readonly url: string;
  /** `<url>/simple/`. */
  readonly indexUrl: string;
  /** Every request: method, path and the headers that matter. */
  readonly requests: {
    path: string;
    accept: string | undefined;
    range: string | undefined;
    ifNoneMatch: string | undefined;
    status: number;
  }[];
  /** The most requests the server held at once. */
  readonly maxInFlight: () => number;
  /** Replace or add a project (takes effect at once; the page's ETag changes). */
  setProject(project: IndexProject): void;
  close(): Promise<void>;
}

/** Hashes of the served bytes, computed once (the server answers many pages per file). */
const hashes = new WeakMap<Buffer, string>();
function sha256(bytes: Buffer | string): string {
  if (typeof bytes === 'string') return createHash('sha256').update(bytes).digest('hex');
  let hash = hashes.get(bytes);
  if (hash === undefined) {
    hash = createHash('sha256').update(bytes).digest('hex');
    hashes.set(bytes, hash);
  }
  return hash;
}

function normalise(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export async function startIndexServer(projects: readonly IndexProject[], options: IndexServerOptions = {}): Promise<IndexServer> {
  const byName = new Map<string, IndexProject>();
  const files = new Map<string, IndexFile>();
  const setProject = (project: IndexProject): void => {
    byName.set(normalise(project.name), project);
    for (const file of project.files) files.set(file.filename, file);
  };
  projects.forEach(setProject);
  const requests: IndexServer['requests'] = [];

  function page(project: IndexProject, json: boolean, base: string): { type: string; body: string } {
    if (json) {
      const doc = {
        meta: { 'api-version': '1.1' },
        name: normalise(project.name),
        versions: [...new Set(project.files.map((f) => f.filename.split('-')[1]!))],
        files: project.files.map((f) => ({
          filename: f.filename,
          url: `../../files/${f.filename}`,
          hashes: { sha256: sha256(f.bytes) },
          ...(f.requiresPython ? { 'requires-python': f.requiresPython } : {}),
          ...(f.metadata !== undefined ? { 'core-metadata': { sha256: f.badMetadataHash ? '0'.repeat(64) : sha256(f.metadata) } } : {}),
          ...(f.yanked !== undefined ? { yanked: f.yanked } : {}),
          size: f.bytes.length,
          'upload-time': '2024-01-02T03:04:05.000000Z',
        })),
      };
      return { type: 'application/vnd.pypi.simple.v1+json', body: JSON.stringify(doc) };
    }
    const links = project.files.map((f) => {
      const href = options.relativeLinks === false ? `${base}/files/${f.filename}` : `../../files/${f.filename}`;
      const attrs = [
        `href="${href}#sha256=${sha256(f.bytes)}"`,
        f.requiresPython ? `data-requires-python="${escapeHtml(f.requiresPython)}"` : '',
        f.metadata !== undefined
          ? `data-dist-info-metadata="sha256=${f.badMetadataHash ? '0'.repeat(64) : sha256(f.metadata)}" data-core-metadata="sha256=${f.badMetadataHash ? '0'.repeat(64) : sha256(f.metadata)}"`
          : '',
        f.yanked !== undefined ? `data-yanked="${f.yanked === true ? '' : escapeHtml(f.yanked)}"` : '',
      ].filter((a) => a !== '');
      return `    <a ${attrs.join(' ')}>${f.filename}</a><br/>`;
    });
    return {
      type: 'application/vnd.pypi.simple.v1+html',
      body: `<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" content="1.1">\n    <title>Links for ${project.name}</title>\n  </head>\n  <body>\n    <h1>Links for ${project.name}</h1>\n${links.join('\n')}\n  </body>\n</html>\n`,
    };
  }

  function answer(req: IncomingMessage, res: ServerResponse, base: string): number {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    // An index that moved: /old/moved/<rest> -> /simple/<rest> (links must then resolve against the new URL).
    if (path.startsWith('/old/moved/')) {
      res.writeHead(301, { location: `/simple/${path.slice('/old/moved/'.length)}` }).end();
      return 301;
    }
    const simple = /^\/simple\/([^/]+)\/?$/.exec(path);
    if (simple) {
      const wanted = simple[1]!;
      const project = byName.get(normalise(wanted));
      if (!project) {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
        return 404;
      }
      if (wanted !== normalise(wanted) || !path.endsWith('/')) {
        res.writeHead(301, { location: `/simple/${normalise(wanted)}/` }).end();
        return 301;
      }
      if (project.garbage) {
        res.writeHead(200, { 'content-type': project.garbage.contentType }).end(project.garbage.body);
        return 200;
      }
      const accept = req.headers.accept ?? '';
      const json = !options.htmlOnly && accept.includes('application/vnd.pypi.simple.v1+json');
      const { type, body } = page(project, json, base);
      const etag = `"${sha256(body).slice(0, 16)}"`;
      const headers = { etag, 'cache-control': options.cacheControl ?? 'max-age=600', vary: 'Accept', 'content-type': type };
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, headers).end();
        return 304;
      }
      res.writeHead(200, headers).end(body);
      return 200;
    }
    const fileMatch = /^\/files\/(.+)$/.exec(path);
    if (fileMatch) {
      const name = fileMatch[1]!;
      const metadataOf = name.endsWith('.metadata') ? files.get(name.slice(0, -'.metadata'.length)) : undefined;
      if (metadataOf?.metadata !== undefined) {
        res.writeHead(200, { 'content-type': 'binary/octet-stream' }).end(metadataOf.metadata);
        return 200;
      }
      const file = files.get(name);
      if (!file) {
        res.writeHead(404).end();
        return 404;
      }
      const size = file.bytes.length;
      const range = options.ranges === false ? undefined : req.headers.range;
      if (range) {
        const suffix = /^bytes=-(\d+)$/.exec(range);
        const span = /^bytes=(\d+)-(\d+)$/.exec(range);
        let start = 0;
        let end = size - 1;
        if (suffix) start = Math.max(0, size - Number(suffix[1]));
        else if (span) {
          start = Number(span[1]);
          end = Math.min(size - 1, Number(span[2]));
        }
        if (start > end) {
          res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
          return 416;
        }
        res
          .writeHead(206, { 'content-range': `bytes ${start}-${end}/${size}`, 'accept-ranges': 'bytes', 'content-length': end - start + 1 })
          .end(file.bytes.subarray(start, end + 1));
        return 206;
      }
      res.writeHead(200, { 'content-length': size, ...(options.ranges === false ? {} : { 'accept-ranges': 'bytes' }) }).end(file.bytes);
      return 200;
    }
    res.writeHead(404).end();
    return 404;
  }

  let base = '';
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const go = (): void => {
      inFlight--;
      const status = answer(req, res, base);
      requests.push({
        path: req.url ?? '',
        accept: req.headers.accept,
        range: req.headers.range,
        ifNoneMatch: req.headers['if-none-match'] as string | undefined,
        status,
      });
    };
    if (options.delayMs) setTimeout(go, options.delayMs);
    else go();
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    indexUrl: `${base}/simple/`,
    requests,
    maxInFlight: () => maxInFlight,
    setProject,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A project whose releases each have one py3-none-any wheel and a `.metadata` file requiring `requires`. */
export function simpleProject(name: string, versions: readonly string[], requires: readonly string[] = []): IndexProject {
  return {
    name,
    files: versions.map((version) => {
      const text = metadataText(name, version, requires);
      return { ...buildWheel(name, version, text), metadata: text };
    }),
  };
}
