/**
 * Issue 32, item 15: files that are not what a command expects. `diff` given a FIFO refuses it
 * with a clear error instead of waiting forever for a writer; a `.condarc` listing 60,000 channels
 * is refused at once, naming the setting, instead of holding the command most of a minute.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './run-cli.js';

describe('diff and files that are not regular files', () => {
  it.skipIf(process.platform === 'win32')(
    'refuses a FIFO, naming it',
    async () => {
      const dir = tempDir('cr-fifo-');
      const fifo = join(dir, 'old.lock');
      execFileSync('mkfifo', [fifo]);
      const other = join(dir, 'new.txt');
      writeFileSync(other, '@EXPLICIT\n');
      const { code, stderr } = await runCli(['diff', fifo, other]);
      expect(code).toBe(2); // as for any input file that cannot be read
      expect(stderr).toBe(
        `conda-resolve: error: Cannot read file "${fifo}": it is a FIFO (named pipe), not a regular file; diff reads lock files and @EXPLICIT files\n`,
      );
    },
    10_000,
  );
});

describe('a .condarc with very many channels', () => {
  it('is refused at once with an error naming the file and the setting', async () => {
    const dir = tempDir('cr-condarc-');
    const condarc = join(dir, '.condarc');
    writeFileSync(condarc, `channels:\n${Array.from({ length: 60_000 }, (_, i) => `  - chan${i}\n`).join('')}`);
    const { code, stderr } = await runCli(['python', '-p', 'linux-64', '--offline', '--timeout', '5'], {
      env: { CONDARC: condarc, HOME: dir },
    });
    expect(code).toBe(2);
    expect(stderr).toContain(`Cannot use "channels" in "${condarc}": 60000 entries, more than the 1000 conda-resolve accepts`);
  });
});
