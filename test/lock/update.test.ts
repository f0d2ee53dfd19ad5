/**
 * `--lock FILE` and `--update NAME` on the shared conda-forge snapshot, checked against the channel
 * files: NAME moves to its newest allowed version, and every other package that could keep its
 * locked record does; with nothing changed the output is the lock, byte for byte.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import { parseVersion } from '../../vocabulary/version.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { channelRecord, environmentProblems, isRequired, loadChannelFiles, type ChannelFiles } from '../helpers/channel-files.js';
import { runCli, tempDir } from '../cli/run-cli.js';

describeShared('--lock and --update on the shared conda-forge snapshot', () => {
  const channelDir = join(CHANNELS_DIR, 'conda-forge-py39');
  const forge = pathToFileURL(channelDir).href;
  const request = ['-q', '-c', forge, '-p', 'linux-64', 'python=3.9'];
  const dir = tempDir('cr-update-');
  let files: ChannelFiles;
  let old: PackageRecord[];

  const urlsOf = (nativeJson: string) => (JSON.parse(nativeJson) as { packages: { url: string }[] }[])[0]!.packages.map((p) => p.url);

  beforeAll(async () => {
    files = loadChannelFiles(channelDir, ['linux-64', 'noarch']);
    const made = await runCli([...request, '--exclude-newer', '2022-06-01', '-o', 'pixi.lock'], {
      cwd: dir,
      env: { SOURCE_DATE_EPOCH: '1700000000' },
    });
    expect(made.code).toBe(0);
    const back = await runCli(['-q', '-f', 'pixi.lock', '-o', 'old.json'], { cwd: dir });
    old = urlsOf(readFileSync(join(dir, 'old.json'), 'utf8')).map((url) => channelRecord(files, url));
    expect(environmentProblems(old)).toEqual([]);
    expect(back.code).toBe(0);
  });

  it.each(['openssl', 'python', 'setuptools'])(
    '--lock pixi.lock --update %s: it moves to its newest allowed version, everything else that can stays',
    async (name) => {
      const { code, stderr } = await runCli([...request, '--lock', 'pixi.lock', '--update', name, '-o', `new-${name}.json`], { cwd: dir });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const fresh = urlsOf(readFileSync(join(dir, `new-${name}.json`), 'utf8')).map((url) => channelRecord(files, url));
      expect(environmentProblems(fresh)).toEqual([]);

      // NAME: the newest version the channel has that the rest of the new environment allows.
      const root = parseMatchSpec('python=3.9');
      const updated = fresh.find((r) => r.name === name)!;
      const allowed = files.all.filter((candidate) => {
        if (candidate.name !== name || (name === 'python' && !root.matches(candidate))) return false;
        return environmentProblems(fresh.map((r) => (r.name === name ? candidate : r))).length === 0;
      });
      const newest = allowed.reduce((a, b) => (parseVersion(b.version).compare(parseVersion(a.version)) > 0 ? b : a));
      expect(updated.version).toBe(newest.version);
      const before = old.find((r) => r.name === name)!;
      expect(parseVersion(updated.version).compare(parseVersion(before.version))).toBeGreaterThan(0);

      // Everything else keeps its locked record unless the new environment cannot hold it.
      let kept = 0;
      for (const locked of old) {
        if (locked.name === name) continue;
        const now = fresh.find((r) => r.name === locked.name);
        if (now?.url === locked.url) {
          kept++;
          continue;
        }
        if (!now) {
          expect(isRequired(fresh, locked.name), `${locked.name} was dropped though still required`).toBe(false);
          continue;
        }
        const withLocked = fresh.map((r) => (r.name === locked.name ? locked : r));
        expect(environmentProblems(withLocked), `${locked.name} ${locked.version} could have kept its record`).not.toEqual([]);
      }
      if (name !== 'python') expect(kept).toBeGreaterThan(old.length - 3);
    },
  );

  it('--lock with nothing changed gives the lock back byte for byte (pixi.lock and conda-lock.yml)', async () => {
    const sub = join(dir, 'same');
    mkdirSync(sub, { recursive: true });
    await runCli([...request, '--exclude-newer', '2022-06-01', '-o', 'conda-lock.yml'], {
      cwd: sub,
      env: { SOURCE_DATE_EPOCH: '1700000000' },
    });
    writeFileSync(join(sub, 'pixi.lock'), readFileSync(join(dir, 'pixi.lock')));
    for (const name of ['pixi.lock', 'conda-lock.yml']) {
      const before = readFileSync(join(sub, name), 'utf8');
      // A later clock: conda-lock's created_at would change if the file were written anew.
      const { code, stdout } = await runCli([...request, '--lock', name], { cwd: sub, env: { SOURCE_DATE_EPOCH: '1800000000' } });
      expect(code).toBe(0);
      expect(stdout).toBe(before);
      expect((await runCli([...request, '--lock', name, '-o', name], { cwd: sub, env: { SOURCE_DATE_EPOCH: '1800000000' } })).code).toBe(0);
      expect(readFileSync(join(sub, name), 'utf8')).toBe(before);
    }
  });

  it('--update without --lock, or of a name the lock lacks, is a usage error', async () => {
    const alone = await runCli([...request, '--update', 'openssl'], { cwd: dir });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('Cannot use --update without --lock');
    const unknown = await runCli([...request, '--lock', 'pixi.lock', '--update', 'numpy'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Cannot update "numpy": environment "default" of "pixi.lock" locks no package of that name');
  });
});
