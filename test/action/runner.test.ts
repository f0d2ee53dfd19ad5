import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { ActionDefinitionError, cleanupRun, runAction, type ActionRun } from './action-runner.js';

const FIXTURES = join(PROJECT_ROOT, 'fixtures', 'action');
const runs: ActionRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((run) => cleanupRun(run)));
});

async function run(inputs: Record<string, string>, runnerOs: 'Linux' | 'macOS' = 'Linux'): Promise<ActionRun> {
  const result = await runAction({ actionPath: join(FIXTURES, 'runner-check'), inputs, runnerOs });
  runs.push(result);
  return result;
}

describe('the composite action runner used by the action tests', () => {
  it('runs the steps in the workspace and maps step outputs to the action outputs', async () => {
    const result = await run({ word: 'hi' }, 'macOS');
    expect(result.failed).toBe(false);
    expect(result.outputs.greeting).toBe('hi, macOS');
    expect(result.outputs.multi).toBe('line 1\nline 2');
    const first = result.steps.find((s) => s.id === 'first');
    expect(first?.outputs.cwd).toBe(await realpath(result.workspace));
    expect(first?.outputs['action-path']).toBe(join(FIXTURES, 'runner-check'));
  });

  it('carries GITHUB_ENV and GITHUB_PATH to later steps', async () => {
    const result = await run({});
    expect(result.outputs['seen-env']).toBe('set by first / extra tool');
  });

  it('records a uses: step with its evaluated with: instead of running it', async () => {
    const result = await run({ word: '2' });
    const uses = result.steps.find((s) => s.kind === 'uses');
    expect(uses).toMatchObject({
      status: 'success',
      ran: false,
      uses: 'example/setup-thing@0123456789abcdef0123456789abcdef01234567',
      with: { version: 'v2', flag: 'false' },
    });
    const skipped = (await run({ word: 'skip-uses' })).steps.find((s) => s.kind === 'uses');
    expect(skipped?.status).toBe('skipped');
  });

  it('stops at the first failing step except for failure() and always() steps', async () => {
    const result = await run({ 'fail-at': 'second' });
    expect(result.failed).toBe(true);
    expect(result.steps.map((s) => [s.id ?? s.kind, s.status])).toEqual([
      ['first', 'success'],
      ['second', 'failure'],
      ['uses', 'skipped'],
      ['after', 'skipped'],
      ['on-failure', 'success'],
      ['cleanup', 'success'],
    ]);
    // -e -o pipefail, as GitHub runs bash: the line after the failed pipeline never ran.
    expect(result.steps[1].stderr).not.toContain('not reached');
    // Outputs written before the failure still count.
    expect(result.outputs['seen-env']).toBe('set by first / extra tool');
    expect(result.outputs).toMatchObject({ after: '', 'on-failure': 'yes', cleanup: 'yes' });
  });

  it('runs neither failure() steps nor skipped ones on success', async () => {
    const result = await run({});
    expect(result.outputs).toMatchObject({ after: 'yes', 'on-failure': '', cleanup: 'yes' });
  });

  it('refuses inputs the action does not declare', async () => {
    await expect(runAction({ actionPath: join(FIXTURES, 'runner-check'), inputs: { wrod: 'x' } })).rejects.toThrow(
      /declares no input "wrod"/,
    );
  });

  it('refuses ${{ }} inside a run script', async () => {
    await expect(runAction({ actionPath: join(FIXTURES, 'interpolated-run'), inputs: {} })).rejects.toThrow(ActionDefinitionError);
  });
});
