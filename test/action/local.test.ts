/**
 * Local mode end to end: the action's steps run as GitHub would, with a `pixi` stand-in first on
 * PATH that records the exact command line and then runs the manifest's `conda-resolve` task (the
 * committed one-file CLI, action/conda-resolve.mjs) the way pixi does. The prepare step's
 * `conda-resolve --version` runs for real in the first case and is replayed in the others (helpers.ts).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { runAction, type ActionRun } from './action-runner.js';
import { ACTION_ROOT, DEMO_CHANNEL_DIR, DEMO_CHANNEL_URL, useToolBox, readCalls, type Call } from './helpers.js';

const MANIFEST = join(ACTION_ROOT, 'pixi.toml');
const PREPARE = ['run', '--manifest-path', MANIFEST, '--environment', 'cli', 'conda-resolve', '--version'];
const RESOLVE = ['--quiet', 'run', '--manifest-path', MANIFEST, '--environment', 'cli', '--skip-deps', 'conda-resolve'];
const ENV_FILE = await readFile(join(PROJECT_ROOT, 'fixtures', 'action', 'environment.yml'), 'utf8');

const runs: ActionRun[] = [];
const tools = useToolBox(runs);

/** The environment of one run: the tool box's, with a pixi log and a repodata cache of its own. */
async function runEnv(): Promise<{ env: Record<string, string>; pixiCalls: () => Promise<Call[]> }> {
  const dir = await mkdtemp(join(tools().dir, 'run-'));
  const log = join(dir, 'pixi-calls.nul');
  const cache = join(dir, 'cache');
  return {
    env: { ...tools().env, PIXI_STAND_IN_LOG: log, CONDA_RESOLVE_CACHE_DIR: cache, XDG_CACHE_HOME: cache },
    pixiCalls: () => readCalls(log),
  };
}

interface LocalRun {
  run: ActionRun;
  /** The stand-in's calls made by this run. */
  pixi: Array<{ argv: string[]; cwd?: string }>;
}

async function local(
  inputs: Record<string, string>,
  options: {
    files?: Record<string, string>;
    runnerOs?: 'Linux' | 'macOS' | 'Windows';
    runnerArch?: 'X64' | 'ARM64' | 'X86';
    /** Run the real `conda-resolve --version` in the prepare step instead of the tool box's replay of it. */
    realPrepare?: boolean;
  } = {},
): Promise<LocalRun> {
  const workspace = await mkdtemp(join(tmpdir(), 'cr-action-ws-'));
  for (const [path, content] of Object.entries(options.files ?? {})) {
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await writeFile(join(workspace, path), content);
  }
  const { env, pixiCalls } = await runEnv();
  const run = await runAction({
    inputs: { mode: 'local', ...inputs },
    actionPath: ACTION_ROOT,
    workspace,
    env: options.realPrepare ? { ...env, PIXI_STAND_IN_VERSION: undefined } : env,
    runnerOs: options.runnerOs ?? 'Linux',
    runnerArch: options.runnerArch ?? 'X64',
    stepTimeoutMs: 120_000,
  });
  runs.push(run);
  return { run, pixi: await pixiCalls() };
}

type NativeResult = Array<{ platform: string; packages: Array<{ name: string; version: string }>; error: string | null }>;
const names = (result: NativeResult, platform: string) =>
  result
    .find((r) => r.platform === platform)
    ?.packages.map((p) => p.name)
    .sort();
const errors = (run: ActionRun) => run.annotations.filter((a) => a.level === 'error').map((a) => a.message);

describe.concurrent('action local mode', () => {
  it('sets up pixi v0.70.1, prepares the cli environment, then runs the CLI with the specs', async () => {
    const { run, pixi } = await local(
      { specs: 'python=3.12,numpy', channels: DEMO_CHANNEL_URL, platforms: 'linux-64,osx-arm64' },
      { realPrepare: true },
    );
    expect(run.failed, run.log).toBe(false);
    // The prepare step ran the one-file CLI for real here (the other cases replay its output).
    const version = await readFile(tools().env.PIXI_STAND_IN_VERSION, 'utf8');
    expect(version).toMatch(/^conda-resolve \d+\.\d+\.\d+/);
    expect(run.steps.find((s) => s.name === 'Prepare conda-resolve (local)')?.stdout).toBe(version);
    const setup = run.steps.find((s) => s.kind === 'uses');
    expect(setup).toMatchObject({ status: 'success', with: { 'pixi-version': 'v0.70.1', 'run-install': 'false' } });
    expect(pixi.map((c) => c.argv)).toEqual([
      PREPARE,
      [...RESOLVE, '-c', DEMO_CHANNEL_URL, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.12', 'numpy'],
    ]);
    expect(pixi[1].cwd).toBe(run.workspace);
    expect(run.outputs.solved).toBe('true');
    const result = JSON.parse(run.outputs.result) as NativeResult;
    expect(result.map((r) => [r.platform, r.error])).toEqual([
      ['linux-64', null],
      ['osx-arm64', null],
    ]);
    expect(names(result, 'linux-64')).toEqual(expect.arrayContaining(['numpy', 'python', 'python_abi', 'libgcc']));
    expect(result[0].packages.find((p) => p.name === 'python')?.version).toBe('3.12.3');
    // The body is not copied to the log; the log says which inputs were given.
    expect(run.log).not.toContain('python_abi');
    expect(run.log).not.toContain(DEMO_CHANNEL_URL);
    expect(run.log).toContain('platforms: provided');
  });

  it('passes a workspace-relative environment file, which the CLI reads from the workspace', async () => {
    const { run, pixi } = await local(
      { file: 'envs/environment.yml', channels: DEMO_CHANNEL_URL, platforms: 'linux-64' },
      { files: { 'envs/environment.yml': ENV_FILE } },
    );
    expect(run.failed, run.log).toBe(false);
    expect(pixi[1].argv).toEqual([...RESOLVE, '-f', 'envs/environment.yml', '-c', DEMO_CHANNEL_URL, '-p', 'linux-64']);
    const result = JSON.parse(run.outputs.result) as NativeResult;
    expect(names(result, 'linux-64')).toEqual(expect.arrayContaining(['python', 'requests', 'certifi', 'idna']));
    expect(result[0].packages.find((p) => p.name === 'python')?.version).toBe('3.11.9');
  });

  it('combines a file and specs', async () => {
    const { run, pixi } = await local(
      { file: 'environment.yml', specs: 'pip', channels: DEMO_CHANNEL_URL, platforms: 'linux-64' },
      { files: { 'environment.yml': ENV_FILE } },
    );
    expect(run.failed, run.log).toBe(false);
    expect(pixi[1].argv).toEqual([...RESOLVE, '-f', 'environment.yml', '-c', DEMO_CHANNEL_URL, '-p', 'linux-64', 'pip']);
    const result = JSON.parse(run.outputs.result) as NativeResult;
    expect(names(result, 'linux-64')).toEqual(expect.arrayContaining(['pip', 'python', 'requests', 'setuptools', 'wheel']));
  });

  it('resolves relative channel paths from the workspace (the task starts the CLI in INIT_CWD)', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'cr-action-ws-'));
    await mkdir(join(workspace, 'channels'));
    await symlink(DEMO_CHANNEL_DIR, join(workspace, 'channels', 'demo'));
    const run = await runAction({
      inputs: { mode: 'local', specs: 'python=3.10', channels: './channels/demo', platforms: 'linux-64' },
      actionPath: ACTION_ROOT,
      workspace,
      env: (await runEnv()).env,
    });
    runs.push(run);
    expect(run.failed, run.log).toBe(false);
    const result = JSON.parse(run.outputs.result) as NativeResult;
    expect(result[0].packages.find((p) => p.name === 'python')?.version).toBe('3.10.14');
  });

  it('fails on a native partial failure (the CLI exits 1), with solved=false and the body kept out of the log', async () => {
    const { run } = await local({
      specs: 'linux-only-tool',
      channels: DEMO_CHANNEL_URL,
      platforms: 'linux-64,osx-arm64',
      output: 'out.json',
    });
    expect(run.failed).toBe(true);
    expect(run.outputs).toEqual({ solved: 'false', result: '', changed: '', diff: '' });
    expect(errors(run)[0]).toMatch(/^conda-resolve exited with status 1 \(a platform failed to solve/);
    expect(run.log).not.toContain('linux-only-tool');
    expect(existsSync(join(run.workspace, 'out.json'))).toBe(false);
  });

  it('exports with a format: solved=true, the text in result and in the output file', async () => {
    const { run, pixi } = await local({
      specs: 'python=3.12',
      channels: DEMO_CHANNEL_URL,
      platforms: 'linux-64',
      format: 'explicit',
      output: 'locks/explicit.txt',
    });
    expect(run.failed, run.log).toBe(false);
    expect(pixi[1].argv).toEqual([...RESOLVE, '-c', DEMO_CHANNEL_URL, '-p', 'linux-64', '--format', 'explicit', 'python=3.12']);
    expect(run.outputs.solved).toBe('true');
    expect(run.outputs.result).toMatch(/^# .*\n(#.*\n)*@EXPLICIT\n/);
    expect(run.outputs.result).toContain('/linux-64/python-3.12.3-');
    expect(await readFile(join(run.workspace, 'locks/explicit.txt'), 'utf8')).toBe(run.outputs.result);
  });

  it.each([
    ['a platform that does not solve', { specs: 'linux-only-tool', platforms: 'osx-arm64', format: 'explicit' }, 1],
    ['an unknown format', { specs: 'python', platforms: 'linux-64', format: 'no-such-format' }, 2],
    ['the requirements exporter on a solved environment', { specs: 'python', platforms: 'linux-64', format: 'requirements' }, 1],
  ])('fails with a format on %s', async (_what, inputs, status) => {
    const { run } = await local({ ...inputs, channels: DEMO_CHANNEL_URL, output: 'out.txt' });
    expect(run.failed).toBe(true);
    expect(run.outputs).toEqual({ solved: 'false', result: '', changed: '', diff: '' });
    expect(errors(run)[0]).toContain(`exited with status ${status}`);
    expect(existsSync(join(run.workspace, 'out.txt'))).toBe(false);
  });

  it('passes unusual characters through pixi to the CLI unchanged', async () => {
    const specs = ['python 3.11.*', "requests[version='>=2.32']", 'numpy>=1.24,<2'];
    const file = 'name: \'ünïcode $(touch pwned) `id` "q"\'\r\ndependencies:\n  # ${{ github.token }} \\ ;|&\n  - tzdata\n';
    const { run, pixi } = await local(
      { file: "odd dir/it's env.yml", specs: specs.join(','), channels: DEMO_CHANNEL_URL, platforms: 'linux-64' },
      { files: { "odd dir/it's env.yml": file } },
    );
    // Commas split values, so 'numpy>=1.24,<2' arrives as two specs, exactly as written.
    expect(pixi[1].argv).toEqual([
      ...RESOLVE,
      '-f',
      "odd dir/it's env.yml",
      '-c',
      DEMO_CHANNEL_URL,
      '-p',
      'linux-64',
      'python 3.11.*',
      "requests[version='>=2.32']",
      'numpy>=1.24',
      '<2',
    ]);
    expect(existsSync(join(run.workspace, 'pwned'))).toBe(false);
    expect(existsSync(join(ACTION_ROOT, 'pwned'))).toBe(false);
    // '<2' alone is not a match spec: the CLI refuses it (usage error), so the action fails.
    expect(run.failed).toBe(true);
    expect(errors(run)[0]).toContain('exited with status 2');

    const valid = await local(
      { file: "odd dir/it's env.yml", specs: specs.slice(0, 2).join(','), channels: DEMO_CHANNEL_URL, platforms: 'linux-64' },
      { files: { "odd dir/it's env.yml": file } },
    );
    expect(valid.run.failed, valid.run.log).toBe(false);
    const result = JSON.parse(valid.run.outputs.result) as NativeResult;
    expect(names(result, 'linux-64')).toEqual(expect.arrayContaining(['python', 'requests', 'tzdata']));
  });

  it('never lets a spec become shell code', async () => {
    const specs = ['$(touch pwned)', '`touch pwned`', 'x;touch pwned', 'a\'b"c', 'a\nb'];
    const { run, pixi } = await local({ specs: specs.join(','), channels: DEMO_CHANNEL_URL, platforms: 'linux-64' });
    expect(pixi[1].argv.slice(RESOLVE.length + 4)).toEqual(specs);
    expect(run.failed).toBe(true);
    expect(existsSync(join(run.workspace, 'pwned'))).toBe(false);
    expect(existsSync(join(ACTION_ROOT, 'pwned'))).toBe(false);
  });

  it('refuses a spec that starts with "-" (it would be read as an option)', async () => {
    const { run, pixi } = await local({ specs: 'python,--output=/tmp/x', channels: DEMO_CHANNEL_URL });
    expect(run.failed).toBe(true);
    expect(errors(run)[0]).toMatch(/starts with '-'/);
    expect(pixi.map((c) => c.argv)).toEqual([PREPARE]);
  });

  it('takes stderr into the body: a CLI warning makes native output fail the JSON check', async () => {
    // Seed 4.3: "Standard output and standard error are captured together." An environment file
    // with `variables:` makes the CLI warn on stderr, so the body is not one JSON array.
    const withVariables = `${ENV_FILE}variables:\n  SOME_SECRET_NAME: x\n`;
    const { run } = await local(
      { file: 'environment.yml', channels: DEMO_CHANNEL_URL, platforms: 'linux-64' },
      { files: { 'environment.yml': withVariables } },
    );
    expect(run.failed).toBe(true);
    expect(errors(run)[0]).toMatch(/not a native result/);
    expect(run.log).not.toContain('SOME_SECRET_NAME');
  });

  it.each([
    ['Windows', 'X64', /does not support Windows runners/],
    ['Linux', 'X86', /supports Linux and macOS runners on X64 or ARM64/],
  ] as const)('refuses a %s/%s runner before installing anything', async (runnerOs, runnerArch, message) => {
    const { run, pixi } = await local({ specs: 'python' }, { runnerOs, runnerArch });
    expect(run.failed).toBe(true);
    expect(run.outputs).toEqual({ solved: 'false', result: '', changed: '', diff: '' });
    expect(errors(run)[0]).toMatch(message);
    expect(run.steps.find((s) => s.kind === 'uses')?.status).toBe('skipped');
    expect(pixi).toEqual([]);
  });

  it.each([
    ['macOS', 'ARM64'],
    ['Linux', 'ARM64'],
  ] as const)('runs on %s/%s runners', async (runnerOs, runnerArch) => {
    const { run } = await local({ specs: 'python=3.12', channels: DEMO_CHANNEL_URL, platforms: 'osx-arm64' }, { runnerOs, runnerArch });
    expect(run.failed, run.log).toBe(false);
    expect(run.outputs.solved).toBe('true');
  });

  it.each(['LOCAL', 'Local', 'locale'])('fails on mode %j without running pixi', async (mode) => {
    const { run, pixi } = await local({ mode, specs: 'python' });
    expect(run.failed).toBe(true);
    expect(run.outputs.solved).toBe('false');
    expect(pixi).toEqual([]);
  });
});
