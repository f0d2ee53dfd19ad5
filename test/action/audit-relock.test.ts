/**
 * The action's `audit` and `relock` steps end to end (issue 36), in local mode as GitHub runs
 * them: the audit writes a SARIF 2.1.0 file from our own OSV records (fixtures/osv/own) for a lock
 * from fixtures/locks; the re-lock rewrites a lock in place and puts the Markdown of its changes in
 * the job summary ($GITHUB_STEP_SUMMARY) and the `diff` and `changed` outputs ($GITHUB_OUTPUT).
 */
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { runCli } from '../cli/run-cli.js';
import { runAction, type ActionRun } from './action-runner.js';
import { ACTION_ROOT, DEMO_CHANNEL_URL, useToolBox } from './helpers.js';

const OSV_DB = join(PROJECT_ROOT, 'fixtures', 'osv', 'own');
// Our own v7 lock: conda python and two PyPI packages our OSV records name (requests, urllib3).
const PYPI_LOCK = join(PROJECT_ROOT, 'fixtures', 'action', 'audit.pixi.lock');

const runs: ActionRun[] = [];
const tools = useToolBox(runs);

async function local(inputs: Record<string, string>, prepare: (workspace: string) => Promise<void>): Promise<ActionRun> {
  const workspace = await mkdtemp(join(tmpdir(), 'cr-action-ws-'));
  await prepare(workspace);
  const dir = await mkdtemp(join(tools().dir, 'run-'));
  const run = await runAction({
    inputs: { mode: 'local', ...inputs },
    actionPath: ACTION_ROOT,
    workspace,
    env: {
      ...tools().env,
      PIXI_STAND_IN_LOG: join(dir, 'pixi-calls.nul'),
      CONDA_RESOLVE_CACHE_DIR: join(dir, 'cache'),
      // conda-forge's PyPI mapping is never fetched from the internet here: a closed port.
      CONDA_RESOLVE_PYPI_MAPPING_URL: 'http://127.0.0.1:9/compressed_mapping.json',
    },
    runnerOs: 'Linux',
    runnerArch: 'X64',
    stepTimeoutMs: 120_000,
  });
  runs.push(run);
  return run;
}

interface Sarif {
  version: string;
  runs: {
    tool: { driver: { name: string; rules: { id: string; properties?: { severity?: string } }[] } };
    results: {
      ruleId: string;
      level: string;
      message: { text: string };
      locations?: { physicalLocation?: { artifactLocation?: { uri?: string } } }[];
    }[];
  }[];
}

describe.concurrent("the action's audit step", () => {
  it("writes a SARIF 2.1.0 file of the lock's known vulnerabilities", async () => {
    const run = await local({ file: 'pixi.lock', audit: 'reports/audit.sarif', 'audit-db': OSV_DB }, async (ws) =>
      copyFile(PYPI_LOCK, join(ws, 'pixi.lock')),
    );
    expect(run.failed, run.log).toBe(false);
    expect(run.steps.find((s) => s.id === 'audit')?.status).toBe('success');
    const sarif = JSON.parse(await readFile(join(run.workspace, 'reports', 'audit.sarif'), 'utf8')) as Sarif;
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]!.tool.driver.name).toBe('conda-resolve');
    const results = sarif.runs[0]!.results;
    // requests 2.31.0 (fixed in 2.32.2) and urllib3 2.2.1 are PyPI packages of the lock.
    expect(results.map((r) => r.ruleId)).toEqual(expect.arrayContaining(['CR-TEST-0001']));
    expect(results.find((r) => r.ruleId === 'CR-TEST-0001')!.message.text).toContain('requests');
    expect(sarif.runs[0]!.tool.driver.rules.find((r) => r.id === 'CR-TEST-0001')?.properties?.severity).toBe('MODERATE');
    expect(results[0]!.locations?.[0]?.physicalLocation?.artifactLocation?.uri).toBe('pixi.lock');
  }, 180_000);

  it('fails the action with audit-fail-on at or below a finding, keeping the SARIF file', async () => {
    const run = await local({ file: 'pixi.lock', audit: 'audit.sarif', 'audit-db': OSV_DB, 'audit-fail-on': 'MODERATE' }, async (ws) =>
      copyFile(PYPI_LOCK, join(ws, 'pixi.lock')),
    );
    expect(run.failed).toBe(true);
    expect(run.annotations.filter((a) => a.level === 'error').map((a) => a.message)).toContain(
      "The audit found a vulnerability at MODERATE or above; see the SARIF file named by the 'audit' input",
    );
    expect((JSON.parse(await readFile(join(run.workspace, 'audit.sarif'), 'utf8')) as Sarif).version).toBe('2.1.0');
  }, 180_000);
});

describe.concurrent("the action's relock step", () => {
  /** A conda-lock.yml of the demo channel, locked with `specs`. */
  async function lockOf(workspace: string, specs: readonly string[]): Promise<void> {
    await mkdir(workspace, { recursive: true });
    const made = await runCli([...specs, '-c', DEMO_CHANNEL_URL, '-p', 'linux-64', '-o', join(workspace, 'conda-lock.yml'), '-q']);
    if (made.code !== 0) throw new Error(made.stderr);
  }

  it('rewrites the lock, puts the Markdown of its changes in the job summary and the diff output, and sets changed', async () => {
    const run = await local({ specs: 'python=3.12', channels: DEMO_CHANNEL_URL, platforms: 'linux-64', relock: 'conda-lock.yml' }, (ws) =>
      lockOf(ws, ['python=3.11']),
    );
    expect(run.failed, run.log).toBe(false);
    const step = run.steps.find((s) => s.id === 'relock')!;
    expect(step.status).toBe('success');
    expect(run.outputs.changed).toBe('true');
    expect(run.outputs.diff).toMatch(/python/);
    expect(run.outputs.diff).toMatch(/3\.11\.\d+/);
    expect(run.outputs.diff).toContain('3.12.3');
    // The job summary has the same Markdown.
    expect(step.summary!.trim()).toBe(run.outputs.diff.trim());
    expect(await readFile(join(run.workspace, 'conda-lock.yml'), 'utf8')).toContain('python-3.12.3');
  }, 180_000);

  it('without changes: changed is false, the diff output empty, and the summary says so', async () => {
    const run = await local({ specs: 'python=3.12', channels: DEMO_CHANNEL_URL, platforms: 'linux-64', relock: 'conda-lock.yml' }, (ws) =>
      lockOf(ws, ['python=3.12']),
    );
    expect(run.failed, run.log).toBe(false);
    expect(run.outputs.changed).toBe('false');
    expect(run.outputs.diff).toBe('');
    expect(run.steps.find((s) => s.id === 'relock')!.summary).toContain('No changes.');
  }, 180_000);

  it('a relock file that is not there fails the step, naming the input', async () => {
    const run = await local(
      { specs: 'python=3.12', channels: DEMO_CHANNEL_URL, platforms: 'linux-64', relock: 'missing.lock' },
      async (ws) => writeFile(join(ws, 'x'), ''),
    );
    expect(run.failed).toBe(true);
    expect(run.annotations.map((a) => a.message)).toContain(
      "The file named by the 'relock' input does not exist or is not a readable file",
    );
  }, 180_000);
});
