/**
 * What action.yml, pixi.toml and the workflow must declare (docs/action.md), checked on the files
 * themselves, plus a portability lint of the step scripts: they run under
 * bash 3.2 on macOS runners and with BSD tools there.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { loadAction } from './action-runner.js';
import { parseTomlSubset, type TomlValue } from './toml-subset.mjs';

const action = await loadAction(PROJECT_ROOT);
const actionText = readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8');
const scripts = action.steps.flatMap((step) => (step.run === undefined ? [] : [{ name: step.name ?? '', run: step.run }]));

describe('action.yml declares seed 4.3 exactly', () => {
  it('has the inputs and defaults of the seed, and no command input', () => {
    expect(Object.keys(action.inputs).sort()).toEqual([
      'audit',
      'audit-db',
      'audit-fail-on',
      'channels',
      'endpoint',
      'file',
      'format',
      'mode',
      'output',
      'platforms',
      'relock',
      'specs',
    ]);
    expect(Object.fromEntries(Object.entries(action.inputs).map(([name, def]) => [name, def.default]))).toEqual({
      mode: 'local',
      file: undefined,
      specs: undefined,
      channels: 'conda-forge',
      platforms: undefined,
      format: undefined,
      output: undefined,
      endpoint: undefined,
      audit: undefined,
      'audit-db': undefined,
      'audit-fail-on': undefined,
      relock: undefined,
    });
    for (const def of Object.values(action.inputs)) expect(def.required).toBe(false);
  });

  it('has the outputs solved and result, from the shared output step', () => {
    expect(action.outputs).toEqual({
      solved: expect.objectContaining({ value: '${{ steps.output.outputs.solved }}' }),
      result: expect.objectContaining({ value: '${{ steps.output.outputs.result }}' }),
      diff: expect.objectContaining({ value: '${{ steps.relock.outputs.diff }}' }),
      changed: expect.objectContaining({ value: '${{ steps.relock.outputs.changed }}' }),
    });
    const output = action.steps.find((s) => s.id === 'output');
    expect(output?.if).toBe('always()');
  });

  it('pins prefix-dev/setup-pixi to a full commit SHA with the version in a comment, and pixi v0.70.1', () => {
    const setup = action.steps.filter((s) => s.uses?.startsWith('prefix-dev/setup-pixi@'));
    expect(setup).toHaveLength(1);
    expect(setup[0].uses).toMatch(/^prefix-dev\/setup-pixi@[0-9a-f]{40}$/);
    expect(actionText).toMatch(new RegExp(`uses: ${setup[0].uses!.replace('/', '\\/')} # v\\d+\\.\\d+\\.\\d+\\n`));
    expect(setup[0].with).toMatchObject({ 'pixi-version': 'v0.70.1', 'run-install': 'false' });
    expect(setup[0].if).toContain("inputs.mode == 'local'");
    // Every other uses: is pinned the same way (there are none today).
    for (const step of action.steps) if (step.uses) expect(step.uses).toMatch(/@[0-9a-f]{40}$/);
  });

  it('runs the CLI in the manifest environment cli of the action checkout', () => {
    const local = action.steps.filter((s) => s.if?.includes("inputs.mode == 'local'") && s.run);
    expect(local.length).toBeGreaterThan(0);
    for (const step of local) expect(step.run).toContain('--manifest-path "${GITHUB_ACTION_PATH}/pixi.toml" --environment cli');
  });

  it('passes inputs to scripts only through env:', () => {
    for (const step of action.steps) {
      expect(step.run ?? '').not.toContain('${{');
      for (const value of Object.values(step.env ?? {}))
        expect(value).toMatch(/^\$\{\{ (inputs\.[a-z-]+|steps\.[a-z]+\.outputs\.[a-z_-]+) \}\}$/);
    }
  });

  it('starts every script with set -euo pipefail', () => {
    for (const script of scripts) expect(script.run.startsWith('set -euo pipefail\n'), script.name).toBe(true);
  });

  it('has scripts bash accepts', () => {
    for (const script of scripts)
      expect(() => execFileSync('bash', ['-n'], { input: script.run, stdio: ['pipe', 'pipe', 'pipe'] }), script.name).not.toThrow();
  });

  // Constructs that bash 3.2 (macOS) or BSD tools lack, or that misbehave there.
  it.each([
    [/\$\{[A-Za-z_][A-Za-z0-9_]*(,,|\^\^|,|\^)\}/, 'case conversion ${x,,} (bash 4)'],
    [/\bmapfile\b|\breadarray\b/, 'mapfile/readarray (bash 4)'],
    [/\bdeclare -[aA]*A/, 'associative arrays (bash 4)'],
    [/\blocal -n\b|\bdeclare -n\b/, 'namerefs (bash 4.3)'],
    [/&>>|\|&/, '&>> or |& (bash 4)'],
    [/;;&|;&/, 'case fall-through (bash 4)'],
    [/\[\[ -v /, '[[ -v ]] (bash 4.2)'],
    [/\$\{[A-Za-z_]+\[-1\]\}/, 'negative array index (bash 4.3)'],
    [/\bsed -i\b/, 'sed -i (differs on BSD sed)'],
    [/\bgrep -[A-Za-z]*P/, 'grep -P (not in BSD grep)'],
    [/\breadlink -f\b|\bdate -d\b|\bstat -c\b|\bbase64 -w\b|\bsort -V\b/, 'GNU-only tool options'],
  ])('uses no %s', (pattern, what) => {
    for (const script of scripts) expect(script.run, `${script.name}: ${what}`).not.toMatch(pattern);
  });

  it('expands arrays that may be empty with the set -u safe form', () => {
    // "${args[@]}" on an empty array is an unbound-variable error under set -u in bash < 4.4.
    for (const script of scripts) {
      for (const match of script.run.matchAll(/\$\{(args|jq_args|curl_args)\[@\]\}/g)) {
        const at = match.index ?? 0;
        const guarded = script.run.slice(Math.max(0, at - 20), at).includes('[@]+"');
        const neverEmpty = match[1] !== 'args';
        expect(guarded || neverEmpty, `${script.name}: unguarded ${match[0]}`).toBe(true);
      }
    }
  });
});

function table(value: TomlValue | undefined, where: string): Record<string, TomlValue> {
  if (value === undefined || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${where} is not a table`);
  return value;
}

describe('pixi.toml', () => {
  const manifest = parseTomlSubset(readFileSync(join(PROJECT_ROOT, 'pixi.toml'), 'utf8'));

  it('targets the four supported platforms from conda-forge', () => {
    const workspace = table(manifest.workspace, 'workspace');
    expect(workspace.channels).toEqual(['conda-forge']);
    expect(workspace.platforms).toEqual(['linux-64', 'linux-aarch64', 'osx-64', 'osx-arm64']);
  });

  it('has an environment cli whose feature provides Node.js >= 20.19', () => {
    const cli = table(table(manifest.environments, 'environments').cli, 'environments.cli');
    expect(cli.features).toEqual(['cli']);
    const deps = table(table(table(manifest.feature, 'feature').cli, 'feature.cli').dependencies, 'dependencies');
    expect(deps.nodejs).toMatch(/^>=20\.19/);
  });

  it('has one task, conda-resolve, that runs the committed one-file CLI from where pixi started: no npm ci, no build', () => {
    const tasks = table(table(table(manifest.feature, 'feature').cli, 'feature.cli').tasks, 'tasks');
    expect(Object.keys(tasks)).toEqual(['conda-resolve']);
    const run = table(tasks['conda-resolve'], 'conda-resolve');
    expect(run.cmd).toBe('cd "$INIT_CWD" && node "$PIXI_PROJECT_ROOT/action/conda-resolve.mjs"');
    expect(run['depends-on']).toBeUndefined();
  });
});

describe('the workflow', () => {
  it('uses the action from the repository in both modes', () => {
    const dir = join(PROJECT_ROOT, '.github', 'workflows');
    const modes = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f))) {
      const doc = yaml.load(readFileSync(join(dir, file), 'utf8')) as {
        on?: unknown;
        jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }>;
      };
      for (const job of Object.values(doc.jobs)) {
        for (const step of job.steps) if (step.uses === './') modes.add(step.with?.mode ?? 'local');
      }
    }
    expect([...modes].sort()).toEqual(['local', 'remote']);
  });
});
