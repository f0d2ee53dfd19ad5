/**
 * Reads any input that carries exact records, per platform, for `diff`: pixi.lock and
 * conda-lock.yml (one environment, `-e NAME`), `@EXPLICIT` files (a `# platform:` header starts
 * each platform's list; without one the packages' subdir names it), and the native JSON result.
 */
import { parseChannel } from '../../vocabulary/channel.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { InputFileError } from '../errors.js';
import { parseExplicitUrl } from '../inputs/explicit-file.js';
import { isExplicitFile } from '../inputs/spec-list.js';
import { lockEnvironment, lockFormatOf, readLockFile } from '../locks/lock-file.js';
import { lockedRecord } from '../locks/lock-record.js';
import { byName } from '../native-result.js';
import { pypiAsRecord } from '../pypi/as-record.js';
import type { ExactEnvironments } from './diff.js';

export function readExactRecords(filename: string, content: string, options: { readonly environment?: string } = {}): ExactEnvironments {
  const format = lockFormatOf(filename, content);
  if (format) return lockEnvironment(readLockFile(filename, content, format), options.environment).platforms;
  if (isExplicitFile(content)) return explicitRecords(filename, content);
  const trimmed = content.trimStart();
  if (trimmed.startsWith('[')) return nativeRecords(filename, content);
  throw new InputFileError(
    'CR_ERR_INPUT_FILE_TYPE',
    filename,
    `Cannot read "${filename}" as exact packages: expected pixi.lock, conda-lock.yml, an @EXPLICIT file or conda-resolve's JSON result`,
  );
}

function explicitRecords(filename: string, content: string): ExactEnvironments {
  const result = new Map<string, PackageRecord[]>();
  let platform: string | undefined;
  content.split(/\r?\n/).forEach((raw, index) => {
    const text = raw.trim();
    const header = /^#\s*platform:\s*(\S+)\s*$/.exec(text);
    if (header) platform = header[1]!;
    if (text === '' || text.startsWith('#') || text === '@EXPLICIT') return;
    const pkg = parseExplicitUrl(text);
    if (!pkg) throw new InputFileError('CR_ERR_INPUT_EXPLICIT', filename, `Cannot read explicit file "${filename}": line ${index + 1} is not a package URL`);
    const url = text.split('#')[0]!;
    const target = platform ?? (pkg.subdir === 'noarch' ? 'noarch' : pkg.subdir);
    let list = result.get(target);
    if (!list) result.set(target, (list = []));
    list.push(lockedRecord(filename, `line ${index + 1}`, url, { md5: pkg.md5 ?? null, sha256: pkg.sha256 ?? null }));
  });
  for (const list of result.values()) list.sort(byName);
  return result;
}

/** A PyPI distribution of the native result, in the record shape `diff` compares (build `pypi`). */
function pypiRecord(p: Record<string, unknown>, url: string, bad: () => Error): PackageRecord {
  if (typeof p.name !== 'string' || typeof p.version !== 'string') throw bad();
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return pypiAsRecord({ name: p.name, version: p.version, url, filename: text(p.filename), index: text(p.index), sha256: text(p.sha256) ?? null, size: typeof p.size === 'number' ? p.size : null });
}

interface NativeShape {
  platform?: unknown;
  packages?: unknown;
}

function nativeRecords(filename: string, content: string): ExactEnvironments {
  let doc: unknown;
  try {
    doc = JSON.parse(content);
  } catch (error) {
    throw new InputFileError('CR_ERR_INPUT_SHAPE', filename, `Cannot read "${filename}": not JSON (${(error as Error).message})`);
  }
  const bad = () => new InputFileError('CR_ERR_INPUT_SHAPE', filename, `Cannot read "${filename}": expected conda-resolve's JSON result, a list of {platform, packages}`);
  if (!Array.isArray(doc)) throw bad();
  const result = new Map<string, PackageRecord[]>();
  for (const item of doc as NativeShape[]) {
    if (typeof item?.platform !== 'string' || !Array.isArray(item.packages)) throw bad();
    result.set(
      item.platform,
      (item.packages as Record<string, unknown>[]).map((p, i) => {
        if (typeof p?.url !== 'string') throw bad();
        if (p.manager === 'pip') return pypiRecord(p, p.url, bad);
        const record = lockedRecord(filename, `${item.platform} package ${i}`, p.url, {
          name: typeof p.name === 'string' ? p.name : undefined,
          version: typeof p.version === 'string' ? p.version : undefined,
          build: typeof p.build === 'string' ? p.build : undefined,
          md5: typeof p.md5 === 'string' ? p.md5 : null,
          sha256: typeof p.sha256 === 'string' ? p.sha256 : null,
        });
        // The result names the channel as users do; keep that over one derived from the URL.
        return typeof p.channel === 'string' ? { ...record, channel: channelName(p.channel) } : record;
      }).sort(byName),
    );
  }
  return result;
}

function channelName(text: string): string {
  try {
    return parseChannel(text).name;
  } catch {
    return text;
  }
}
