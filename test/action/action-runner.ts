/**
 * Runs a composite action's steps the way GitHub does, for tests: reads `action.yml`, applies input
 * defaults, evaluates each step's `if:` (a default `success()` when no status function is named),
 * interpolates `${{ }}` in `env:` and `with:` values, and runs each `run:` script as GitHub runs
 * `shell: bash` (`bash --noprofile --norc -eo pipefail <script file>`) in the workspace, with fresh
 * `GITHUB_OUTPUT`, `GITHUB_ENV` and `GITHUB_PATH` files per step and the `GITHUB_*` / `RUNNER_*`
 * variables set. Step outputs are read with the runner's own parsing rules; the action's `outputs:`
 * are mapped from them at the end. Steps stop at the first failure unless their `if:` says
 * otherwise. `uses:` steps are not run: they are recorded with their evaluated `with:`.
 *
 * Anything outside what the project's action needs (other shells, `${{ }}` inside a script,
 * unknown step keys, unsupported expressions) throws, so a test never passes on a mis-emulation.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { evaluateCondition, interpolate, type ExpressionContext } from './expression.js';
import { parseFileCommands } from './file-commands.js';

export class ActionDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActionDefinitionError';
  }
}

interface InputDefinition {
  description?: string;
  required?: boolean;
  default?: string;
}

interface StepDefinition {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string>;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
}

export interface ActionDefinition {
  name: string;
  inputs: Record<string, InputDefinition>;
  outputs: Record<string, { description?: string; value: string }>;
  steps: StepDefinition[];
}

const STEP_KEYS = new Set(['name', 'id', 'if', 'uses', 'with', 'shell', 'run', 'env']);

function asStringMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ActionDefinitionError(`${where} must be a mapping`);
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'object' && v !== null) throw new ActionDefinitionError(`${where}.${key} must be a scalar`);
    out[key] = v === null ? '' : String(v);
  }
  return out;
}

/** Reads and checks the composite action definition at `<actionPath>/action.yml`. */
export async function loadAction(actionPath: string = PROJECT_ROOT): Promise<ActionDefinition> {
  const doc = yaml.load(await readFile(join(actionPath, 'action.yml'), 'utf8')) as Record<string, unknown>;
  const runs = doc.runs as { using?: string; steps?: unknown[] } | undefined;
  if (runs?.using !== 'composite' || !Array.isArray(runs.steps)) throw new ActionDefinitionError('runs.using must be composite with steps');
  const inputs: Record<string, InputDefinition> = {};
  for (const [name, def] of Object.entries((doc.inputs ?? {}) as Record<string, Record<string, unknown>>)) {
    inputs[name] = {
      description: def.description as string | undefined,
      required: def.required === true,
      default: def.default === undefined || def.default === null ? undefined : String(def.default),
    };
  }
  const outputs: ActionDefinition['outputs'] = {};
  for (const [name, def] of Object.entries((doc.outputs ?? {}) as Record<string, Record<string, unknown>>)) {
    if (typeof def.value !== 'string') throw new ActionDefinitionError(`outputs.${name}.value is required in a composite action`);
    outputs[name] = { description: def.description as string | undefined, value: def.value };
  }
  const steps = runs.steps.map((raw, index): StepDefinition => {
    const step = raw as Record<string, unknown>;
    for (const key of Object.keys(step)) {
      if (!STEP_KEYS.has(key)) throw new ActionDefinitionError(`step ${index + 1}: the runner does not support "${key}"`);
    }
    if ((step.run === undefined) === (step.uses === undefined))
      throw new ActionDefinitionError(`step ${index + 1}: needs exactly one of run or uses`);
    if (step.run !== undefined && step.shell !== 'bash')
      throw new ActionDefinitionError(`step ${index + 1}: the runner supports only shell: bash`);
    if (typeof step.run === 'string' && step.run.includes('${{')) {
      throw new ActionDefinitionError(`step ${index + 1}: \${{ }} inside a run script (pass values through env: instead)`);
    }
    return {
      name: step.name as string | undefined,
      id: step.id as string | undefined,
      if: step.if === undefined ? undefined : String(step.if),
      uses: step.uses as string | undefined,
      with: asStringMap(step.with, `step ${index + 1} with`),
      shell: step.shell as string | undefined,
      run: step.run as string | undefined,
      env: asStringMap(step.env, `step ${index + 1} env`),
    };
  });
  return { name: String(doc.name), inputs, outputs, steps };
}

export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  message: string;
}

export interface StepRecord {
  index: number;
  name: string;
  id: string | undefined;
  kind: 'run' | 'uses';
  /** `skipped` when its `if:` was false; a `uses:` step that would run is `success` with `ran: false`. */
  status: 'success' | 'failure' | 'skipped';
  ran: boolean;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  exitCode?: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  /** What the step wrote to its job summary file ($GITHUB_STEP_SUMMARY). */
  summary?: string;
}

export interface ActionRun {
  /** True when any step failed: GitHub marks the action's step failed. */
  failed: boolean;
  outputs: Record<string, string>;
  steps: StepRecord[];
  /** Everything the steps printed, in order, as the workflow log would show it. */
  log: string;
  annotations: Annotation[];
  workspace: string;
  runnerTemp: string;
}

export interface RunActionOptions {
  /** The `with:` of the calling workflow step. */
  inputs: Record<string, string>;
  /** Workspace folder (the steps' working directory); a new temporary one when omitted. */
  workspace?: string;
  /** Where action.yml lives; the repository root by default. */
  actionPath?: string;
  runnerOs?: 'Linux' | 'macOS' | 'Windows';
  runnerArch?: 'X64' | 'ARM64' | 'X86' | 'ARM';
  /** Variables added to (or, when undefined, removed from) the base environment of every step. */
  env?: Record<string, string | undefined>;
  /** Per-step time limit; the step is killed and fails when it is exceeded. */
  stepTimeoutMs?: number;
}

function baseEnvironment(extra: RunActionOptions['env']): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // Nothing of a surrounding GitHub job (when the tests themselves run in Actions) leaks in.
    if (value === undefined || key.startsWith('INPUT_') || key.startsWith('GITHUB_') || key.startsWith('RUNNER_')) continue;
    env[key] = value;
  }
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

function parseAnnotations(stdout: string): Annotation[] {
  const found: Annotation[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^::(error|warning|notice)(?: [^:]*)?::(.*)$/.exec(line);
    if (match) found.push({ level: match[1] as Annotation['level'], message: match[2] });
  }
  return found;
}

function runBash(
  scriptFile: string,
  options: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<{ exitCode: number; stdout: string; stderr: string; log: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', scriptFile], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let log = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      log += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      log += chunk;
    });
    const timer = setTimeout(() => {
      stderr += `\n[runner] step killed after ${options.timeoutMs} ms\n`;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ exitCode: code ?? (signal ? 128 : 1), stdout, stderr, log });
    });
  });
}

/** Runs the action once with the given inputs; never throws for a failing step, only for a bad definition. */
/**
 * loadAction's result per action.yml, kept while the file's modification time and size stay the
 * same: the test files run the action some 150 times, and parsing it again was ~4 ms of CPU each.
 */
const loaded = new Map<string, { key: string; action: Promise<ActionDefinition> }>();

async function loadActionCached(actionPath: string): Promise<ActionDefinition> {
  const info = await stat(join(actionPath, 'action.yml'));
  const key = `${info.mtimeMs}:${info.size}`;
  const cached = loaded.get(actionPath);
  if (cached?.key === key) return cached.action;
  const action = loadAction(actionPath);
  loaded.set(actionPath, { key, action });
  action.catch(() => loaded.delete(actionPath));
  return action;
}

export async function runAction(options: RunActionOptions): Promise<ActionRun> {
  const actionPath = options.actionPath ?? PROJECT_ROOT;
  const action = await loadActionCached(actionPath);
  for (const name of Object.keys(options.inputs)) {
    if (!Object.hasOwn(action.inputs, name)) throw new ActionDefinitionError(`the action declares no input "${name}"`);
  }
  const inputs: Record<string, string> = {};
  for (const [name, def] of Object.entries(action.inputs)) inputs[name] = options.inputs[name] ?? def.default ?? '';

  const workspace = options.workspace ?? (await mkdtemp(join(tmpdir(), 'cr-action-ws-')));
  const runnerTemp = await mkdtemp(join(tmpdir(), 'cr-action-tmp-'));
  const fileCommands = join(runnerTemp, '_runner_file_commands');
  await mkdir(fileCommands);
  const runnerOs = options.runnerOs ?? 'Linux';
  const runnerArch = options.runnerArch ?? 'X64';

  const stepState: Record<string, { outputs: Record<string, string>; outcome: string; conclusion: string }> = {};
  const context: ExpressionContext = {
    inputs,
    runner: { os: runnerOs, arch: runnerArch, temp: runnerTemp },
    github: { action_path: actionPath, workspace },
    stepIds: new Set(action.steps.flatMap((s) => (s.id ? [s.id] : []))),
    steps: stepState,
    failed: false,
  };
  let env = baseEnvironment(options.env);
  const steps: StepRecord[] = [];
  let log = '';

  for (const [index, step] of action.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${index + 1}`;
    const record: StepRecord = {
      index,
      name,
      id: step.id,
      kind: step.run !== undefined ? 'run' : 'uses',
      status: 'skipped',
      ran: false,
      stdout: '',
      stderr: '',
      outputs: {},
    };
    steps.push(record);
    const run = evaluateCondition(step.if, context);
    if (!run) {
      if (step.id) stepState[step.id] = { outputs: {}, outcome: 'skipped', conclusion: 'skipped' };
      continue;
    }
    if (step.uses !== undefined) {
      record.status = 'success';
      record.uses = step.uses;
      record.with = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(v, context)]));
      log += `[runner] would run ${step.uses} with ${JSON.stringify(record.with)}\n`;
      if (step.id) stepState[step.id] = { outputs: {}, outcome: 'success', conclusion: 'success' };
      continue;
    }

    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(v, context)]));
    const suffix = randomUUID();
    const files = {
      GITHUB_OUTPUT: join(fileCommands, `set_output_${suffix}`),
      GITHUB_ENV: join(fileCommands, `set_env_${suffix}`),
      GITHUB_PATH: join(fileCommands, `add_path_${suffix}`),
      GITHUB_STEP_SUMMARY: join(fileCommands, `step_summary_${suffix}`),
    };
    await Promise.all(Object.values(files).map((file) => writeFile(file, '')));
    const scriptFile = join(runnerTemp, `${suffix}.sh`);
    await writeFile(scriptFile, step.run ?? '');
    const fullEnv: Record<string, string> = {
      ...env,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: actionPath,
      RUNNER_OS: runnerOs,
      RUNNER_ARCH: runnerArch,
      RUNNER_TEMP: runnerTemp,
      ...files,
      ...stepEnv,
    };
    record.env = stepEnv;
    log += `[runner] ${name}\n`;
    const result = await runBash(scriptFile, { cwd: workspace, env: fullEnv, timeoutMs: options.stepTimeoutMs ?? 120_000 });
    record.ran = true;
    record.exitCode = result.exitCode;
    record.stdout = result.stdout;
    record.stderr = result.stderr;
    record.summary = await readFile(files.GITHUB_STEP_SUMMARY, 'utf8');
    log += result.log;
    // Outputs and env written before a failure still count, as on GitHub.
    for (const [key, value] of parseFileCommands(await readFile(files.GITHUB_OUTPUT, 'utf8'))) record.outputs[key] = value;
    for (const [key, value] of parseFileCommands(await readFile(files.GITHUB_ENV, 'utf8'))) env = { ...env, [key]: value };
    const added = (await readFile(files.GITHUB_PATH, 'utf8')).split('\n').filter((line) => line !== '');
    if (added.length > 0) env = { ...env, PATH: [...added.reverse(), env.PATH ?? ''].join(':') };
    record.status = result.exitCode === 0 ? 'success' : 'failure';
    if (record.status === 'failure') context.failed = true;
    if (step.id) stepState[step.id] = { outputs: record.outputs, outcome: record.status, conclusion: record.status };
  }

  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([name, def]) => [name, interpolate(def.value, context)]));
  const annotations = steps.flatMap((s) => parseAnnotations(s.stdout));
  return { failed: context.failed, outputs, steps, log, annotations, workspace, runnerTemp };
}

/** Removes the temporary folders of a run (the workspace only when the runner made it). */
export async function cleanupRun(run: ActionRun, options: { keepWorkspace?: boolean } = {}): Promise<void> {
  await rm(run.runnerTemp, { recursive: true, force: true });
  if (!options.keepWorkspace) await rm(run.workspace, { recursive: true, force: true });
}
