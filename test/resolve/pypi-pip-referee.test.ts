/**
 * pip as the referee: for PyPI-only requests with the Python fixed, our picks equal those of
 * `pip install --dry-run --report --only-binary=:all: --platform ... --python-version ...` on the
 * same local index. pip 23 evaluates markers for the machine it runs on even with --platform, so the
 * cases here have no Python- or platform-dependent markers (those are tested against computed marker
 * environments elsewhere); PIP_CONFIG_FILE=/dev/null keeps /etc/pip.conf out.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEnvironments, toNative } from '../../src/index.js';
import { buildWheel, metadataText, startIndexServer, type IndexFile, type IndexProject, type IndexServer } from '../helpers/pypi-index.js';
import { writePythonChannel } from '../helpers/python-channel.js';

function hasPip(): boolean {
  try {
    execFileSync('python3', ['-m', 'pip', '--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function wheel(name: string, version: string, requires: string[] = [], options: { tag?: string; requiresPython?: string } = {}): IndexFile {
  // Provides-Extra for every extra a requirement's marker names (pip ignores an extra a distribution does not provide).
  const extras = [...new Set(requires.flatMap((r) => [...r.matchAll(/extra == "([^"]+)"/g)].map((m) => m[1]!)))];
  const text = metadataText(
    name,
    version,
    requires,
    `${extras.map((e) => `Provides-Extra: ${e}\n`).join('')}${options.requiresPython ? `Requires-Python: ${options.requiresPython}\n` : ''}`,
  );
  return {
    ...buildWheel(name, version, text, { tag: options.tag }),
    metadata: text,
    ...(options.requiresPython ? { requiresPython: options.requiresPython } : {}),
  };
}

const PROJECTS: IndexProject[] = [
  {
    name: 'alpha',
    files: [wheel('alpha', '1.0', ['beta>=1']), wheel('alpha', '2.0', ['beta>=2', 'gamma[fast]<3']), wheel('alpha', '2.1rc1', ['beta>=2'])],
  },
  { name: 'beta', files: [wheel('beta', '1.0'), wheel('beta', '2.0'), wheel('beta', '2.5', ['delta==1.*']), wheel('beta', '3.0b1')] },
  { name: 'gamma', files: [wheel('gamma', '2.0', ['epsilon; extra == "fast"']), wheel('gamma', '3.0')] },
  { name: 'delta', files: [wheel('delta', '1.0'), wheel('delta', '1.4'), wheel('delta', '2.0')] },
  {
    name: 'epsilon',
    files: [wheel('epsilon', '0.9', [], { requiresPython: '>=3.8' }), wheel('epsilon', '1.0', [], { requiresPython: '>=3.13' })],
  },
  {
    name: 'native',
    files: [
      wheel('native', '1.0', [], { tag: 'cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64' }),
      wheel('native', '1.1', [], { tag: 'cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64' }),
      wheel('native', '1.1', [], { tag: 'cp312-cp312-manylinux_2_34_x86_64' }),
    ],
  },
  { name: 'zeta', files: [wheel('zeta', '0.1', ['beta<2']), wheel('zeta', '0.2', ['beta<2', 'delta>=2'])] },
];

const CASES: string[][] = [
  ['alpha'],
  ['alpha<2'],
  ['alpha', 'delta<1.4'],
  ['native'],
  ['zeta', 'alpha<2'],
  ['gamma[fast]<3'],
  ['alpha>=2.1rc1'],
];

let server: IndexServer;
let dir: string;
let channel: string;

beforeAll(async () => {
  server = await startIndexServer(PROJECTS);
  dir = mkdtempSync(join(tmpdir(), 'cr-pip-referee-'));
  channel = writePythonChannel(join(dir, 'channel'), ['linux-64']);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** pip's arguments for one case, its report written to `report`. */
function pipArgs(requirements: string[], report: string): string[] {
  return [
    'install',
    '--dry-run',
    '--quiet',
    '--report',
    report,
    '--ignore-installed',
    '--only-binary=:all:',
    '--platform',
    'manylinux_2_28_x86_64',
    '--platform',
    'manylinux_2_17_x86_64',
    '--platform',
    'manylinux2014_x86_64',
    '--python-version',
    '3.12',
    '--implementation',
    'cp',
    '--abi',
    'cp312',
    '--target',
    join(dir, 'target'),
    '--index-url',
    server.indexUrl,
    ...requirements,
  ];
}

/**
 * Runs pip's command line (`pip._internal.cli.main.main`, what `python3 -m pip` calls) once per
 * case in one Python process, with each case's standard error captured: one interpreter and one
 * import of pip instead of one per case (about 2 s of CPU each).
 */
const PIP_RUNNER = `
import io, json, sys
from pip._internal.cli.main import main
cases = json.load(open(sys.argv[1]))
results = []
for args in cases:
    err, saved = io.StringIO(), sys.stderr
    sys.stderr = err
    try:
        status = main(args)
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 1
    finally:
        sys.stderr = saved
    results.append({"status": status, "stderr": err.getvalue()})
json.dump(results, open(sys.argv[2], "w"))
`;

/** Every case pip is asked (the test's requirements, joined by spaces), run together on first use. */
const PIP_CASES = [...CASES, ['beta>2.5']];
let pipRuns: Promise<Map<string, { status: number; stderr: string; report: string }>> | undefined;

/** Run without blocking: the index answering pip lives in this process. */
function runPip(): Promise<Map<string, { status: number; stderr: string; report: string }>> {
  pipRuns ??= (async () => {
    const reports = PIP_CASES.map((_, i) => join(dir, `report-${i}.json`));
    const input = join(dir, 'pip-cases.json');
    const output = join(dir, 'pip-results.json');
    writeFileSync(input, JSON.stringify(PIP_CASES.map((requirements, i) => pipArgs(requirements, reports[i]!))));
    await promisify(execFile)('python3', ['-c', PIP_RUNNER, input, output], {
      env: { ...process.env, PIP_CONFIG_FILE: '/dev/null', PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_CACHE_DIR: '1' },
    });
    const results = JSON.parse(readFileSync(output, 'utf8')) as { status: number; stderr: string }[];
    return new Map(PIP_CASES.map((requirements, i) => [requirements.join(' '), { ...results[i]!, report: reports[i]! }]));
  })();
  return pipRuns;
}

/** pip's picks for `requirements`; rejects with what pip printed when it fails. */
async function pipPicks(requirements: string[]): Promise<string[]> {
  const run = (await runPip()).get(requirements.join(' '));
  if (!run) throw new Error(`not a pip case: ${requirements.join(' ')}`);
  if (run.status !== 0) throw new Error(`pip exited ${run.status}: ${run.stderr}`);
  const parsed = JSON.parse(readFileSync(run.report, 'utf8')) as { install: { metadata: { name: string; version: string } }[] };
  return parsed.install.map((i) => `${i.metadata.name.toLowerCase()}==${i.metadata.version}`).sort();
}

async function ourPicks(requirements: string[]): Promise<string[]> {
  const resolution = await resolveEnvironments(
    {
      specs: ['python 3.12.*'],
      pypi: requirements,
      platforms: ['linux-64'],
      channels: [channel],
      virtualPackages: ['__glibc=2.28'],
      pypiOptions: { indexUrl: server.indexUrl },
    },
    { cacheDir: join(dir, 'cache'), env: {} },
  );
  const [result] = toNative(resolution);
  if (result!.error) return [`error: ${result!.error}`];
  return result!.packages
    .filter((p) => p.manager === 'pip')
    .map((p) => `${p.name.toLowerCase()}==${p.version}`)
    .sort();
}

describe.skipIf(!hasPip())('the same picks as pip for PyPI-only requests (python 3.12, manylinux_2_28_x86_64)', () => {
  it.each(CASES.map((c) => [c.join(' ')]))('%s', async (text) => {
    const requirements = text.split(' ');
    expect(await ourPicks(requirements)).toEqual(await pipPicks(requirements));
  });

  it('differs where pip 23 skips PEP 440\'s "nothing else satisfies" pre-release: we take it, as packaging does', async () => {
    await expect(pipPicks(['beta>2.5'])).rejects.toThrow(/No matching distribution found for beta>2.5/);
    expect(await ourPicks(['beta>2.5'])).toEqual(['beta==3.0b1']);
  });
});
