/**
 * `conda-resolve diff OLD NEW` over every input with exact records, and `--diff` on a resolve with
 * `--lock`: per platform, added, removed, upgraded, downgraded, rebuilt and moved packages.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { diffRecords, renderDiff } from '../../src/lock/diff.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { rec } from '../solver/helpers/records.js';
import { runCli, tempDir } from '../cli/run-cli.js';

describe('diffRecords and the table', () => {
  const at = (r: PackageRecord, channel: string): PackageRecord => ({ ...r, channel, url: r.url.replace('conda-forge', channel) });
  it('names each kind of change, sorted by name', () => {
    const before = [
      rec('a', '1.0'),
      rec('b', '2.0'),
      rec('c', '1.0', { build: 'h1_0' }),
      rec('d', '1.0'),
      rec('e', '1.10'),
      rec('f', '1.0'),
    ];
    const after = [
      rec('a', '1.0'),
      rec('b', '1.9'),
      rec('c', '1.0', { build: 'h2_1' }),
      at(rec('d', '1.0'), 'bioconda'),
      rec('e', '1.11'),
      rec('g', '3'),
    ];
    const changes = diffRecords(before, after);
    expect(changes.map((c) => [c.name, c.kind])).toEqual([
      ['b', 'downgraded'],
      ['c', 'rebuilt'],
      ['d', 'moved'],
      ['e', 'upgraded'],
      ['f', 'removed'],
      ['g', 'added'],
    ]);
    const table = renderDiff([{ platform: 'linux-64', changes }]);
    expect(table.split('\n')[0]).toBe('linux-64: 1 added, 1 removed, 1 upgraded, 1 downgraded, 1 rebuilt, 1 moved');
    expect(table).toContain('\n  upgraded    e  1.10 h0_0               ->  1.11 h0_0\n');
    expect(table).toContain('\n  moved       d  1.0 h0_0 (conda-forge)  ->  1.0 h0_0 (bioconda)\n');
    expect(table).toContain('\n  added       g                              3 h0_0\n');
    expect(renderDiff([{ platform: 'linux-64', changes: [] }])).toBe('No changes\n');
  });
});

describeShared('conda-resolve diff and --diff on the shared conda-forge snapshot', () => {
  const forge = pathToFileURL(join(CHANNELS_DIR, 'conda-forge-py39')).href;
  const request = ['-q', '-c', forge, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9'];
  const dir = tempDir('cr-diff-');

  beforeAll(async () => {
    expect((await runCli([...request, '--exclude-newer', '2022-06-01', '-o', 'pixi.lock'], { cwd: dir })).code).toBe(0);
    expect((await runCli([...request, '--exclude-newer', '2022-06-01', '-o', 'conda-lock.yml'], { cwd: dir })).code).toBe(0);
    expect((await runCli([...request, '--lock', 'pixi.lock', '--update', 'openssl', '-o', 'new.json'], { cwd: dir })).code).toBe(0);
    const explicit = await runCli([...request, '--lock', 'pixi.lock', '--update', 'openssl', '--format', 'explicit'], { cwd: dir });
    writeFileSync(join(dir, 'new.txt'), explicit.stdout);
  });

  it('diff between a lock and the same environment in every other form: no changes', async () => {
    for (const other of ['conda-lock.yml', 'pixi.lock']) {
      const { code, stdout } = await runCli(['diff', 'pixi.lock', other], { cwd: dir });
      expect(code).toBe(0);
      expect(stdout).toBe('No changes\n');
    }
  });

  it.each(['new.json', 'new.txt'])('diff pixi.lock %s: openssl upgraded on each platform, nothing else', async (other) => {
    const { code, stdout } = await runCli(['diff', 'conda-lock.yml', other, '--json'], { cwd: dir });
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as {
      platforms: { platform: string; changes: { name: string; kind: string; old: { version: string }; new: { version: string } }[] }[];
    };
    expect(parsed.platforms.map((p) => p.platform)).toEqual(['linux-64', 'osx-arm64']);
    for (const p of parsed.platforms) {
      expect(p.changes.map((c) => [c.name, c.kind])).toEqual([['openssl', 'upgraded']]);
      expect(p.changes[0]!.new.version).toBe('3.3.0');
    }
    const table = await runCli(['diff', 'pixi.lock', other, '-p', 'linux-64'], { cwd: dir });
    expect(table.stdout).toMatch(/^linux-64: 1 upgraded\n {2}upgraded {2}openssl {2}3\.0\.3 \S+ {2}-> {2}3\.3\.0 \S+\n$/);
  });

  it('--diff with --lock prints the changes and writes the result only into -o', async () => {
    const before = readFileSync(join(dir, 'pixi.lock'), 'utf8');
    const dry = await runCli([...request, '--lock', 'pixi.lock', '--update', 'openssl', '--diff'], { cwd: dir });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('linux-64: 1 upgraded\n  upgraded  openssl  3.0.3');
    expect(readFileSync(join(dir, 'pixi.lock'), 'utf8')).toBe(before);
    const json = await runCli([...request, '--lock', 'pixi.lock', '--diff', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual({
      platforms: [
        { platform: 'linux-64', changes: [] },
        { platform: 'osx-arm64', changes: [] },
      ],
    });
    const written = await runCli([...request, '--lock', 'pixi.lock', '--update', 'openssl', '--diff', '-o', 'updated.lock.json'], {
      cwd: dir,
    });
    expect(written.stdout).toContain('upgraded  openssl');
    expect(JSON.parse(readFileSync(join(dir, 'updated.lock.json'), 'utf8'))).toHaveLength(2);
  });

  it('usage errors: one file, an unreadable kind, --diff without --lock', async () => {
    expect((await runCli(['diff', 'pixi.lock'], { cwd: dir })).code).toBe(2);
    writeFileSync(join(dir, 'notes.md'), '# notes\n');
    const kind = await runCli(['diff', 'pixi.lock', 'notes.md'], { cwd: dir });
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('Cannot read "notes.md" as exact packages');
    const noLock = await runCli([...request, '--diff'], { cwd: dir });
    expect(noLock.code).toBe(2);
    expect(noLock.stderr).toContain('Cannot use --diff without --lock');
  });
});
