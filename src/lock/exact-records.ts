/**
 * Reads any input that carries exact records, per platform, for `diff`: pixi.lock and
 * conda-lock.yml (one environment, `-e NAME`), `@EXPLICIT` files (a `# platform:` header starts
 * each platform's list; without one the packages' subdir names it), and the native JSON result.
 */
import { parseChannel } from '../../vocabulary/channel.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import { InputFileError } from '../errors.js';
import { parseExplicitUrl } from '../inputs/explicit-file.js';
import { isExplicitFile } from '../inputs/spec-list.js';
import { lockEnvironment, lockFormatOf, readLockFile } from '../locks/lock-file.js';
import { lockedRecord } from '../locks/lock-record.js';
import { byName } from '../native-result.js';
import type { ExactEnvironments } from './diff.js';

export function readExactRecords(filename: string, content: string, options: { readonly environment?: string } = {}): ExactEnvironments {
  const format = lockFormatOf(filename, content);
  if (format) {
    const environment = lockEnvironment(readLockFile(filename, content, format), options.environment);
    return Object.assign(new Map(environment.platforms), { pypi: environment.pypi });
  }
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
    if (!pkg)
      throw new InputFileError(
        'CR_ERR_INPUT_EXPLICIT',
        filename,
        `Cannot read explicit file "${filename}": line ${index + 1} is not a package URL`,
      );
    const url = text.split('#')[0]!;
    const target = platform ?? (pkg.subdir === 'noarch' ? 'noarch' : pkg.subdir);
    let list = result.get(target);
    if (!list) result.set(target, (list = []));
    list.push(lockedRecord(filename, `line ${index + 1}`, url, { md5: pkg.md5 ?? null, sha256: pkg.sha256 ?? null }));
  });
  for (const list of result.values()) list.sort(byName);
  return result;
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
  const bad = () =>
    new InputFileError(
      'CR_ERR_INPUT_SHAPE',
      filename,
      `Cannot read "${filename}": expected conda-resolve's JSON result, a list of {platform, packages}`,
    );
  if (!Array.isArray(doc)) throw bad();
  const result = new Map<string, PackageRecord[]>();
  const pypi = new Map<string, PypiRecord[]>();
  for (const item of doc as NativeShape[]) {
    if (typeof item?.platform !== 'string' || !Array.isArray(item.packages)) throw bad();
    const conda = (item.packages as Record<string, unknown>[]).filter((p) => p?.manager !== 'pip');
    pypi.set(
      item.platform,
      (item.packages as Record<string, unknown>[]).filter((p) => p?.manager === 'pip').map((p) => nativePypi(p, bad)),
    );
    result.set(
      item.platform,
      conda
        .map((p, i) => {
          if (typeof p?.url !== 'string') throw bad();
          const record = lockedRecord(filename, `${item.platform} package ${i}`, p.url, {
            name: typeof p.name === 'string' ? p.name : undefined,
            version: typeof p.version === 'string' ? p.version : undefined,
            build: typeof p.build === 'string' ? p.build : undefined,
            md5: typeof p.md5 === 'string' ? p.md5 : null,
            sha256: typeof p.sha256 === 'string' ? p.sha256 : null,
          });
          // The result names the channel as users do; keep that over one derived from the URL.
          return typeof p.channel === 'string' ? { ...record, channel: channelName(p.channel) } : record;
        })
        .sort(byName),
    );
  }
  return Object.assign(result, { pypi });
}

/** A `manager: pip` package of the native result. */
function nativePypi(p: Record<string, unknown>, bad: () => Error): PypiRecord {
  if (typeof p.url !== 'string' || typeof p.name !== 'string') throw bad();
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    manager: 'pip',
    name: p.name,
    version: text(p.version),
    url: p.url,
    sha256: text(p.sha256),
    md5: text(p.md5),
    requires_dist: Array.isArray(p.requires_dist) ? p.requires_dist.filter((r): r is string => typeof r === 'string') : [],
    requires_python: text(p.requires_python),
    index: text(p.index),
  };
}

function channelName(text: string): string {
  try {
    return parseChannel(text).name;
  } catch {
    return text;
  }
}
