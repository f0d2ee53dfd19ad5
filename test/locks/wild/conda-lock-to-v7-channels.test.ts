/**
 * A conda-lock.yml written as pixi.lock v7 gets pixi's channel entries: `- url:` with the channel's
 * URL and trailing slash, and no `used_env_vars: []` (rattler_lock skips an empty list when it
 * writes; conda-lock's own metadata has one on every channel). conda-lock's zlib example
 * (fixtures/locks/wild/conda-lock-zlib.conda-lock.yml) names its channels `conda-forge` and `defaults`.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../cli/run-cli.js';
import { PROJECT_ROOT } from '../../helpers/shared.js';

describe('conda-lock.yml -> pixi.lock v7', () => {
  it("writes the environment's channels as pixi does, without conda-lock's used_env_vars", async () => {
    const dir = tempDir('cr-wild-channels-');
    copyFileSync(join(PROJECT_ROOT, 'fixtures', 'locks', 'wild', 'conda-lock-zlib.conda-lock.yml'), join(dir, 'conda-lock.yml'));
    const out = await runCli(['-q', '--offline', '-f', 'conda-lock.yml', '--format', 'rattler-lock-v7'], { cwd: dir });
    expect(out.code).toBe(0);
    expect(out.stdout).not.toContain('used_env_vars');
    expect(out.stdout).toContain(
      '  default:\n    channels:\n    - url: https://conda.anaconda.org/conda-forge/\n    - url: defaults\n    packages:\n',
    );
  });
});
