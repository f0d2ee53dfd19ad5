/**
 * Issue 32, items 10 and 14: what the CLI prints to a terminal. Escape sequences in a channel's
 * builds and depends reach `tree`, `why` and error messages escaped (`\x1b`), never raw; `why-not`
 * redacts the token and password of a spec's channel URL as every other output does.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, runCli, tempDir } from './run-cli.js';

const ESC = '\u001b';
let channel: string;

/** A channel whose builds and depends carry terminal escape sequences. */
function writeHostileChannel(dir: string): void {
  const record = (name: string, build: string, depends: string[]) => ({
    build,
    build_number: 0,
    depends,
    license: 'MIT',
    md5: '0123456789abcdef0123456789abcdef',
    name,
    sha256: '0'.repeat(64),
    size: 100,
    subdir: 'linux-64',
    timestamp: 1_700_000_000_000,
    version: '1.0',
  });
  const packages = {
    'evil-1.0-0.conda': record('evil', `0${ESC}]0;pwned${'\u0007'}`, ['dep']),
    'dep-1.0-0.conda': record('dep', `0${ESC}[2J`, []),
    'broken-1.0-0.conda': record('broken', '0', [`nothere${ESC}[31m`]),
  };
  for (const [subdir, body] of [
    ['linux-64', packages],
    ['noarch', {}],
  ] as const) {
    mkdirSync(join(dir, subdir), { recursive: true });
    writeFileSync(
      join(dir, subdir, 'repodata.json'),
      JSON.stringify({ info: { subdir }, packages: {}, 'packages.conda': body, repodata_version: 1 }),
    );
  }
}

beforeAll(() => {
  channel = tempDir('cr-hostile-channel-');
  writeHostileChannel(channel);
});

describe('escape sequences from repodata', () => {
  it('tree and why print them escaped', async () => {
    for (const args of [
      ['tree', 'evil'],
      ['why', 'dep', 'evil'],
    ]) {
      const { code, stdout, stderr } = await runCli([...args, '-c', channel, '-p', 'linux-64']);
      expect(stderr).not.toContain(ESC);
      expect(code).toBe(0);
      expect(stdout).not.toContain(ESC);
      expect(stdout).toContain('\\x1b[2J');
    }
  });

  it('an error message quoting a hostile depends prints it escaped', async () => {
    const { code, stderr } = await runCli(['broken', '-c', channel, '-p', 'linux-64']);
    expect(code).toBe(1);
    expect(stderr).toContain('nothere');
    expect(stderr).not.toContain(ESC);
  });
});

describe('why-not and credentials', () => {
  it("redacts the password and token of the tried spec's channel", async () => {
    const spec = 'https://user:s3cret@repo.example.invalid/t/tk-123456/private::numpy<1.25';
    const { stdout, stderr } = await runCli(['why-not', spec, 'python=3.12', '-c', DEMO, '-p', 'linux-64']);
    const { stdout: json } = await runCli(['why-not', spec, 'python=3.12', '-c', DEMO, '-p', 'linux-64', '--json']);
    for (const text of [stdout, stderr, json]) {
      expect(text).not.toContain('s3cret');
      expect(text).not.toContain('tk-123456');
    }
    expect(`${stdout}${stderr}`).toContain('repo.example.invalid');
  });
});
