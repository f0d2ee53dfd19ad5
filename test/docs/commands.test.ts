/**
 * The commands the README and docs/ show in blocks marked `runnable` run against the built CLI and
 * print what the docs say (scripts/check-docs.mjs: one temporary folder per page, no network).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { requireBuild } from '../cli/run-cli.js';

describe('the documentation', () => {
  it('runs every runnable command it shows', () => {
    requireBuild();
    const run = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'check-docs.mjs')], { encoding: 'utf8', timeout: 600_000 });
    const failures = run.stdout.split('\n').filter((line) => !line.startsWith('ok ') && !line.startsWith('skip '));
    expect(failures.join('\n')).toMatch(/^\d+ commands run, 0 failed/m);
    expect(run.status).toBe(0);
  }, 600_000);
});
