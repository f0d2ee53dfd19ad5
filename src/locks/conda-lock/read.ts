/**
 * `conda-lock.yml` (version 1): one environment, `default`, with `metadata.channels` and
 * `metadata.platforms`, and one `package` entry per platform and package. conda packages become
 * exact records (`dependencies` back into `depends` as "name spec"); pip entries are named in a
 * warning, as `pip:` entries of environment.yml are.
 */
import type { PackageRecord } from '../../../vocabulary/record.js';
import { byName } from '../../native-result.js';
import type { LockDocument } from '../types.js';
import { lockedRecord, lockError } from '../lock-record.js';
import { isMapping, loadLockYaml } from '../pixi-lock/read.js';

export function parseCondaLock(filename: string, content: string): LockDocument {
  const doc = loadLockYaml(filename, content);
  if (doc.version !== 1) throw lockError(filename, `conda-lock version ${JSON.stringify(doc.version)} is not supported (version 1 is)`);
  const metadata = doc.metadata;
  if (!isMapping(metadata)) throw lockError(filename, '"metadata" is missing or not a mapping');
  if (!Array.isArray(doc.package)) throw lockError(filename, '"package" is missing or not a list');
  const channels = (Array.isArray(metadata.channels) ? metadata.channels : []).map((c: unknown, i: number) => {
    const url = typeof c === 'string' ? c : isMapping(c) && typeof c.url === 'string' ? c.url : undefined;
    if (url === undefined) throw lockError(filename, `metadata.channels[${i}] has no url`);
    return url;
  });
  const platforms = new Map<string, PackageRecord[]>();
  for (const platform of Array.isArray(metadata.platforms) ? metadata.platforms : []) {
    if (typeof platform !== 'string') throw lockError(filename, 'metadata.platforms holds something other than platform names');
    platforms.set(platform, []);
  }
  let pip = 0;
  doc.package.forEach((entry: unknown, index: number) => {
    const where = `package[${index}]`;
    if (!isMapping(entry)) throw lockError(filename, `${where} is not a mapping`);
    if (entry.manager === 'pip') {
      pip++;
      return;
    }
    if (entry.manager !== 'conda') throw lockError(filename, `${where}.manager is ${JSON.stringify(entry.manager)}, not conda or pip`);
    if (typeof entry.url !== 'string') throw lockError(filename, `${where} has no url`);
    if (typeof entry.platform !== 'string') throw lockError(filename, `${where} has no platform`);
    const hash = isMapping(entry.hash) ? entry.hash : {};
    const depends: string[] = [];
    if (isMapping(entry.dependencies)) {
      for (const [name, spec] of Object.entries(entry.dependencies)) {
        depends.push(typeof spec === 'string' && spec.trim() !== '' ? `${name} ${spec.trim()}` : name);
      }
    }
    const record = lockedRecord(filename, where, entry.url, {
      name: typeof entry.name === 'string' ? entry.name : undefined,
      version: typeof entry.version === 'string' || typeof entry.version === 'number' ? String(entry.version) : undefined,
      md5: typeof hash.md5 === 'string' ? hash.md5 : null,
      sha256: typeof hash.sha256 === 'string' ? hash.sha256 : null,
      depends,
    });
    let list = platforms.get(entry.platform);
    if (!list) platforms.set(entry.platform, (list = []));
    list.push(record);
  });
  for (const records of platforms.values()) records.sort(byName);
  const warnings = pip > 0 ? [`${filename}: ${pip} pip package${pip === 1 ? '' : 's'} in the lock left out (a resolve handles conda packages only)`] : [];
  return { format: 'conda-lock-v1', filename, environments: new Map([['default', { name: 'default', channels, platforms }]]), warnings };
}
