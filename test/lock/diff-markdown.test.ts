/**
 * `conda-resolve diff OLD NEW --format markdown`: per platform, the top-level packages apart from
 * the ones that came with them, each kind of change in order, long tables folded in <details>.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffEnvironments } from '../../src/lock/diff.js';
import { renderDiffMarkdown } from '../../src/lock/diff-markdown.js';
import { rec } from '../solver/helpers/records.js';
import { DEMO, runCli, tempDir } from '../cli/run-cli.js';

describe('the markdown diff', () => {
  it('tells the requested packages from the ones that came with them', () => {
    const before = new Map([
      ['linux-64', [rec('app', '1.0', { depends: ['lib >=1'] }), rec('lib', '1.0'), rec('old', '1.0', { depends: ['lib'] })]],
    ]);
    const after = new Map([['linux-64', [rec('app', '2.0', { depends: ['lib >=2', 'extra'] }), rec('lib', '2.0'), rec('extra', '1.0')]]]);
    const md = renderDiffMarkdown(diffEnvironments(before, after), before, after);
    expect(md).toBe(
      [
        '## Lock changes',
        '',
        '### linux-64: 2 upgraded, 1 added, 1 removed',
        '',
        '**Requested (top-level)** (1 upgraded, 1 removed)',
        '',
        '| Package | Change | Before | After |',
        '|---|---|---|---|',
        '| app | upgraded | 1.0 `h0_0` | 2.0 `h0_0` |',
        '| old | removed | 1.0 `h0_0` |  |',
        '',
        '**Came with them** (1 upgraded, 1 added)',
        '',
        '| Package | Change | Before | After |',
        '|---|---|---|---|',
        '| lib | upgraded | 1.0 `h0_0` | 2.0 `h0_0` |',
        '| extra | added |  | 1.0 `h0_0` |',
        '',
      ].join('\n'),
    );
  });

  it('folds a long table and says when nothing changed', () => {
    const names = Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    const after = new Map([['win-64', names.map((n) => rec(n, '1.0'))]]);
    const md = renderDiffMarkdown(diffEnvironments(new Map([['win-64', []]]), after), new Map(), after);
    expect(md).toContain('<details>\n<summary><b>Packages</b> (12 added)</summary>\n');
    expect(md).toContain('| p11 | added |  | 1.0 `h0_0` |\n\n</details>\n');
    expect(renderDiffMarkdown(diffEnvironments(after, after), after, after)).toBe('## Lock changes\n\nNo changes.\n');
  });
});

describe('conda-resolve diff --format markdown', () => {
  it('renders two real locks of the demo channel', async () => {
    const dir = tempDir();
    const lock = async (python: string, file: string) => {
      const out = join(dir, file);
      const r = await runCli(
        ['-q', '-c', DEMO, '-p', 'linux-64', '-p', 'win-64', `python=${python}`, 'requests', '--format', 'pixi', '-o', out],
        { cwd: dir },
      );
      expect(r.stderr).toBe('');
      return out;
    };
    const old = await lock('3.11', 'old.lock');
    const now = await lock('3.12', 'new.lock');
    const { code, stdout } = await runCli(['diff', old, now, '--format', 'markdown'], { cwd: dir });
    expect(code).toBe(0);
    writeFileSync(join(dir, 'diff.md'), stdout);
    expect(stdout).toMatch(/^## Lock changes\n\n### linux-64: /);
    expect(stdout).toContain('### win-64: ');
    expect(stdout).toMatch(/\| python \| upgraded \| 3\.11\.\d+ `[^`]+` \| 3\.12\.\d+ `[^`]+` \|/);
    // Named as requested, python is apart from what came with it.
    const asked = await runCli(['diff', old, now, '--format', 'markdown', '--requested', 'python', '--requested', 'requests'], {
      cwd: dir,
    });
    expect(asked.stdout).toMatch(
      /\*\*Requested\*\* \(1 upgraded\)\n\n\| Package \| Change \| Before \| After \|\n\|---\|---\|---\|---\|\n\| python \| upgraded/,
    );
    const bad = await runCli(['diff', old, now, '--format', 'html'], { cwd: dir });
    expect([bad.code, bad.stderr]).toEqual([2, 'conda-resolve: error: --format must be table, json or markdown, not "html"\n']);
  });
});
