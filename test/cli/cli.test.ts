/**
 * The command line end to end through `main(argv, io)`, against the demo fixture channel (always)
 * and the shared conda-forge snapshot (when ../shared is there), checking the exit status and
 * exactly what a user sees on stdout and stderr. The last block runs the built executable as a
 * child process, for what only a real process shows: its exit status, its streams and its shebang.
 */
import { readFileSync, writeFileSync, symlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { CLI, DEMO, requireBuild, runCli, spawnCli, tempDir } from './run-cli.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import type { NativeExplanation } from '../../src/explanation-data.js';

const DEMO_URL = pathToFileURL(DEMO).href;
const demo = ['-c', DEMO];
/** What the error adds after "nothing provides linux-only-tool" on a platform without it. */
const onlyOnLinux = (platform: string): string =>
  `. linux-only-tool exists for linux-64. Channels searched: ${pathToFileURL(DEMO).href} (${platform} and noarch).`;
const FIXED_TIME = { SOURCE_DATE_EPOCH: '1767225600' }; // 2026-01-01T00:00:00Z

const PYTHON39_LINUX = [
  'bzip2-1.0.8-h4bc722e_7',
  'ca-certificates-2024.7.4-hbcca054_0',
  'libgcc-13.2.0-h77fa898_7',
  'libzlib-1.3.1-h4bc722e_1',
  'openssl-3.3.1-h4bc722e_1',
  'python-3.9.19-h4bc722e_0_cpython',
  'python_abi-3.9-4_cp39',
  'tzdata-2024a-h0c530f3_0',
];

interface NativeResult {
  platform: string;
  packages: Record<string, unknown>[];
  error: string | null;
}

describe('native JSON', () => {
  it('prints one result per platform with the seed fields in order, packages sorted by name', async () => {
    const { code, stdout, stderr } = await runCli([...demo, '-p', 'linux-64', 'python=3.9']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const results = JSON.parse(stdout) as NativeResult[];
    expect(results).toHaveLength(1);
    expect(Object.keys(results[0]!)).toEqual(['platform', 'packages', 'error']);
    expect(results[0]!.platform).toBe('linux-64');
    expect(results[0]!.error).toBeNull();
    const packages = results[0]!.packages;
    expect(packages.map((p) => `${p.name}-${p.version}-${p.build}`)).toEqual(PYTHON39_LINUX);
    expect(Object.keys(packages[0]!)).toEqual([
      'name',
      'version',
      'build',
      'build_number',
      'channel',
      'subdir',
      'url',
      'sha256',
      'md5',
      'size',
      'depends',
      'constrains',
      'manager',
    ]);
    const python = packages.find((p) => p.name === 'python')!;
    expect(python).toMatchObject({
      channel: DEMO_URL,
      subdir: 'linux-64',
      url: `${DEMO_URL}/linux-64/python-3.9.19-h4bc722e_0_cpython.conda`,
      manager: 'conda',
      constrains: [],
    });
    expect(python.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(python.md5).toMatch(/^[0-9a-f]{32}$/);
    expect(stdout.endsWith(']\n')).toBe(true);
  });

  it('solves three platforms in one run', async () => {
    const { code, stdout } = await runCli([...demo, '-p', 'linux-64', '-p', 'osx-arm64', '-p', 'win-64', 'python=3.9', 'requests']);
    expect(code).toBe(0);
    const results = JSON.parse(stdout) as NativeResult[];
    expect(results.map((r) => [r.platform, r.error])).toEqual([
      ['linux-64', null],
      ['osx-arm64', null],
      ['win-64', null],
    ]);
    const win = results[2]!.packages.map((p) => p.name);
    expect(win).toContain('ucrt');
    expect(win).not.toContain('libgcc');
    expect(results[2]!.packages.find((p) => p.name === 'ca-certificates')!.subdir).toBe('win-64');
  });

  it('reports a failed platform in its entry, keeps the others, and exits 1', async () => {
    const { code, stdout, stderr } = await runCli([...demo, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9', 'linux-only-tool']);
    expect(code).toBe(1);
    const results = JSON.parse(stdout) as NativeResult[];
    expect(results[0]!.error).toBeNull();
    expect(results[0]!.packages.map((p) => p.name)).toContain('linux-only-tool');
    expect(results[1]).toMatchObject({
      platform: 'osx-arm64',
      packages: [],
      error: `linux-only-tool cannot be installed because nothing provides linux-only-tool${onlyOnLinux('osx-arm64')}`,
      explanation: {
        spec: 'linux-only-tool',
        requested: ['linux-only-tool'],
        conflicts: [{ kind: 'missing', subject: 'the request', specs: ['linux-only-tool'] }],
      },
    });
    expect(Object.keys(results[1]!)).toEqual(['platform', 'packages', 'error', 'explanation']);
    expect(Object.keys(results[0]!)).toEqual(['platform', 'packages', 'error']);
    expect(stderr).toBe(
      `conda-resolve: error: osx-arm64: linux-only-tool cannot be installed because nothing provides linux-only-tool${onlyOnLinux('osx-arm64')}\n`,
    );
  });

  it('explains an unsatisfiable request', async () => {
    const { code, stdout } = await runCli([...demo, '-p', 'linux-64', 'numpy>=2', 'python=3.9']);
    expect(code).toBe(1);
    const [result] = JSON.parse(stdout) as NativeResult[];
    expect(result!.error).toBe(
      'python 3.9.* cannot be installed because numpy 2.0.0 requires python 3.10.14 .. 3.12.3, which conflicts with the requested python 3.9.*',
    );
    const explanation = (result as unknown as { explanation: NativeExplanation }).explanation;
    expect(explanation.requested).toEqual(['python 3.9.*', 'numpy >=2']);
    expect(explanation.conflicts).toContainEqual({
      kind: 'conflicts',
      subject: 'python 3.9.19',
      specs: ['python >=3.12,<3.13.0a0'],
      against: 'numpy 2.0.0',
      detail: null,
    });
    expect(explanation.candidates).toContainEqual({ specs: ['numpy >=2'], name: 'numpy', versions: ['2.0.0'] });
    expect(explanation.tree).toMatchObject({ spec: 'python 3.9.*', together: { spec: 'numpy >=2' } });
  });

  it('combines an environment file with positional specs, and solves its pip entries', async () => {
    const dir = tempDir();
    const file = join(dir, 'environment.yml');
    writeFileSync(
      file,
      ['name: demo', 'channels:', `  - ${DEMO_URL}`, 'dependencies:', '  - python=3.10', '  - pip:', '      - flask', ''].join('\n'),
    );
    const index = pathToFileURL(join(PROJECT_ROOT, 'fixtures/pypi/simple')).href;
    const { code, stdout, stderr } = await runCli(['-f', file, '-p', 'linux-64', '--index-url', index, 'requests']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const names = (JSON.parse(stdout) as NativeResult[])[0]!.packages.map((p) => `${p.name} ${p.version}`);
    expect(names).toContain('python 3.10.14');
    expect(names).toContain('requests 2.32.3');
    expect(names).toContain('Flask 3.1.3');
  });

  it('re-resolves an explicit file to the same packages', async () => {
    const first = await runCli([...demo, '-p', 'linux-64', 'python=3.11', '--format', 'explicit']);
    const dir = tempDir();
    writeFileSync(join(dir, 'explicit.txt'), first.stdout);
    const again = await runCli(['-f', join(dir, 'explicit.txt'), '--format', 'explicit'], { env: FIXED_TIME });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
  });

  it('honours --exclude-newer, --channel-priority and --virtual-package', async () => {
    const older = await runCli([...demo, '-p', 'linux-64', 'openssl', '--exclude-newer', '2024-02-01']);
    expect((JSON.parse(older.stdout) as NativeResult[])[0]!.packages.find((p) => p.name === 'openssl')!.version).toBe('3.2.1');
    const glibc = await runCli([...demo, '-p', 'linux-64', 'bzip2', '--virtual-package', '__glibc=2.12']);
    expect(glibc.code).toBe(1);
    expect((JSON.parse(glibc.stdout) as NativeResult[])[0]!.error).toContain('__glibc');
    const priority = await runCli([...demo, '-p', 'linux-64', 'bzip2', '--channel-priority', 'flexible']);
    expect(priority.code).toBe(0);
  });
});

describe('exporters', () => {
  const explicitLinux = [
    '# This file may be used to create an environment using:',
    '# $ conda create --name <env> --file <this file>',
    '# platform: linux-64',
    '# created-by: conda-resolve 0.1.0',
    '@EXPLICIT',
    ...PYTHON39_LINUX.map(
      (p) => `${DEMO_URL}/${p.startsWith('ca-certificates') || p.startsWith('tzdata') ? 'noarch' : 'linux-64'}/${p}.conda`,
    ),
    '',
  ].join('\n');

  it('writes an explicit file', async () => {
    const { code, stdout, stderr } = await runCli([...demo, '-p', 'linux-64', 'python=3.9', '--format', 'explicit']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(explicitLinux.replace('0.1.0', JSON.parse(readFileSync('package.json', 'utf8')).version));
  });

  it('joins single-platform exporters per platform with a newline', async () => {
    const { code, stdout } = await runCli([...demo, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9', '--format', 'env.yml']);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'name:',
        'dependencies:',
        ...PYTHON39_LINUX.map((p) => `  - ${p.replace(/-([^-]+)-([^-]+)$/, '=$1=$2')}`),
        '',
        'name:',
        'dependencies:',
        '  - bzip2=1.0.8=h99b78c6_7',
        '  - ca-certificates=2024.7.4=hbcca054_0',
        '  - libzlib=1.3.1=h99b78c6_1',
        '  - openssl=3.3.1=h99b78c6_1',
        '  - python=3.9.19=h99b78c6_0_cpython',
        '  - python_abi=3.9=4_cp39',
        '  - tzdata=2024a=h0c530f3_0',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['environment-yaml', ['yaml', 'yml', 'env.yml']],
    ['environment-json', ['json']],
    ['conda-lock-v1', ['conda-lock']],
    ['rattler-lock-v6', ['pixi', 'pixi-lock-v6']],
    ['rattler-lock-v7', ['pixi-lock-v7', 'pixi-v7']],
    ['explicit', []],
  ])('%s gives the same bytes under each alias', async (name, aliases) => {
    const args = [...demo, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9', '--format'];
    const primary = await runCli([...args, name], { env: FIXED_TIME });
    expect(primary.code).toBe(0);
    expect(primary.stdout.endsWith('\n') && !primary.stdout.endsWith('\n\n')).toBe(true);
    for (const alias of aliases) {
      const other = await runCli([...args, alias], { env: FIXED_TIME });
      expect(other.stdout).toBe(primary.stdout);
    }
  });

  it('writes one lock document for all platforms', async () => {
    const { code, stdout } = await runCli([...demo, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9', '--format', 'pixi'], {
      env: FIXED_TIME,
    });
    expect(code).toBe(0);
    expect(
      stdout.startsWith(`version: 6\nenvironments:\n  default:\n    channels:\n      - url: ${DEMO_URL}\n    packages:\n      linux-64:\n`),
    ).toBe(true);
    expect(stdout.match(/^version: /gm)).toHaveLength(1);
    const lock = await runCli([...demo, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9', '--format', 'conda-lock'], { env: FIXED_TIME });
    expect(lock.stdout).toContain('  platforms:\n    - linux-64\n    - osx-arm64\n');
    expect(lock.stdout).toContain("    created_at: '2026-01-01T00:00:00Z'\n");
  });

  it("rejects requirements for a solved environment with conda's message, exit 1", async () => {
    for (const name of ['requirements', 'reqs', 'txt']) {
      const { code, stdout, stderr } = await runCli([...demo, '-p', 'linux-64', 'python=3.9', '--format', name]);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toBe(
        "conda-resolve: error: Cannot export requirements format: no requested packages found. Use 'explicit' format for environments with installed packages, or ensure the environment has package specifications.\n",
      );
    }
  });

  it('prints nothing on stdout and exits 1 when a platform fails with a format', async () => {
    const { code, stdout, stderr } = await runCli([...demo, '-p', 'linux-64', '-p', 'win-64', 'linux-only-tool', '--format', 'explicit']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `conda-resolve: error: win-64: linux-only-tool cannot be installed because nothing provides linux-only-tool${onlyOnLinux('win-64')}\n` +
        'conda-resolve: error: no explicit output: a platform failed to solve\n',
    );
  });

  it('-o writes the file and chooses the exporter from its name', async () => {
    const dir = tempDir();
    const { code, stdout } = await runCli([...demo, '-p', 'linux-64', 'python=3.9', '-o', 'pixi.lock'], { cwd: dir });
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(readFileSync(join(dir, 'pixi.lock'), 'utf8').startsWith('version: 6\n')).toBe(true);
    await runCli([...demo, '-p', 'linux-64', 'python=3.9', '-o', 'result.json'], { cwd: dir });
    expect(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'))[0].platform).toBe('linux-64');
  });

  it('formats lists the registry', async () => {
    const { code, stdout } = await runCli(['formats']);
    expect(code).toBe(0);
    expect(stdout).toContain('Lockfiles:\n  - conda-lock-v1 (aliases: conda-lock): conda-lock.yml, conda-lock.yaml\n');
    expect(stdout).toContain('  - rattler-lock-v6 (aliases: pixi, pixi-lock-v6): pixi.lock\n');
    const json = JSON.parse((await runCli(['formats', '--json'])).stdout) as { formats: string[] };
    expect(json.formats).toEqual([
      'conda-lock-v1',
      'cyclonedx-json',
      'environment-json',
      'environment-yaml',
      'explicit',
      'pylock',
      'rattler-lock-v6',
      'rattler-lock-v7',
      'requirements',
      'spdx-json',
    ]);
  });
});

describe('usage errors exit 2 with a message that says what and where', () => {
  const cases: [string, string[], string][] = [
    [
      'unknown format',
      [...['-c', 'x'], 'python', '--format', 'toml'],
      "conda-resolve: error: Unknown export format 'toml'. Available formats:\n" +
        [
          'cdx',
          'conda-lock',
          'conda-lock-v1',
          'cyclonedx',
          'cyclonedx-json',
          'env.yml',
          'environment-json',
          'environment-yaml',
          'explicit',
          'json',
          'pep751',
          'pixi',
          'pixi-lock-v6',
          'pixi-lock-v7',
          'pixi-v7',
          'pylock',
          'pylock.toml',
          'rattler-lock-v6',
          'rattler-lock-v7',
          'reqs',
          'requirements',
          'spdx',
          'spdx-json',
          'txt',
          'yaml',
          'yml',
        ]
          .map((n) => `  - ${n}`)
          .join('\n') +
        '\n',
    ],
    [
      'bad spec',
      ['python>=3.9,<'],
      'conda-resolve: error: Cannot parse match spec "python>=3.9,<": invalid version ">=3.9,<": expected a version after "<" at position 12\n',
    ],
    ['missing file', ['-f', 'nope.yml'], 'conda-resolve: error: Cannot read file "nope.yml": no such file\n'],
    ['unknown flag', ['--bogus', 'python'], "conda-resolve: error: Unknown option '--bogus'; see conda-resolve --help\n"],
    ['no specs', [], 'conda-resolve: error: give package specs or an environment file (-f FILE); see conda-resolve --help\n'],
    [
      'bad priority',
      ['python', '--channel-priority', 'loose'],
      'conda-resolve: error: Cannot use channel priority "loose": expected one of strict, flexible, disabled\n',
    ],
    [
      'bad date',
      ['python', '--exclude-newer', 'yesterday'],
      'conda-resolve: error: Cannot parse exclude-newer date "yesterday": expected an ISO 8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z\n',
    ],
  ];
  it.each(cases)('%s', async (_name, args, message) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(stderr).toBe(message);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });

  it('unknown platform lists the valid ones', async () => {
    const { code, stderr } = await runCli([...demo, '-p', 'linux-65', 'python']);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^conda-resolve: error: Cannot resolve for platform "linux-65": unknown platform\. Valid platforms include: emscripten-wasm32, .*, linux-64, .*, zos-z\n$/,
    );
  });

  it('unreadable YAML names the file, line and column', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'environment.yml'), 'dependencies:\n  - python\n - numpy: [\n');
    const { code, stderr } = await runCli(['-f', 'environment.yml'], { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toBe(
      'conda-resolve: error: Cannot read environment file "environment.yml": bad indentation of a mapping entry at line 3, column 2\n',
    );
  });

  it('a bad spec inside a file names the file and line', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'specs.txt'), '# pins\npython=3.9\nnumpy >=1.2,<\n');
    const { code, stderr } = await runCli(['-f', 'specs.txt'], { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^conda-resolve: error: specs\.txt, line 3: Cannot parse match spec "numpy >=1\.2,<": .+\n$/);
  });
});

describe('the executable', () => {
  beforeAll(() => requireBuild());

  it('runs from PATH as conda-resolve (so conda runs it as `conda resolve`)', async () => {
    const bin = tempDir('cr-bin-');
    mkdirSync(bin, { recursive: true });
    symlinkSync(CLI, join(bin, 'conda-resolve'));
    const { code, stdout } = await spawnCli(['--version'], { command: 'conda-resolve', env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^conda-resolve \d+\.\d+\.\d+\n$/);
  });

  it('exits 0 with the result on stdout and nothing on stderr', async () => {
    const { code, stdout, stderr } = await spawnCli([...demo, '-p', 'linux-64', 'python=3.9']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const [result] = JSON.parse(stdout) as NativeResult[];
    expect(result!.packages.map((p) => `${p.name}-${p.version}-${p.build}`)).toEqual(PYTHON39_LINUX);
  });

  it('exits 1 for a failed platform, the result on stdout and the error on stderr', async () => {
    const { code, stdout, stderr } = await spawnCli([...demo, '-p', 'osx-arm64', 'linux-only-tool']);
    expect(code).toBe(1);
    expect((JSON.parse(stdout) as NativeResult[])[0]!.error).toBe(
      `linux-only-tool cannot be installed because nothing provides linux-only-tool${onlyOnLinux('osx-arm64')}`,
    );
    expect(stderr).toBe(
      `conda-resolve: error: osx-arm64: linux-only-tool cannot be installed because nothing provides linux-only-tool${onlyOnLinux('osx-arm64')}\n`,
    );
  });

  it('exits 2 for a usage error, the message on stderr and nothing on stdout', async () => {
    const { code, stdout, stderr } = await spawnCli(['--bogus', 'python']);
    expect(stderr).toBe("conda-resolve: error: Unknown option '--bogus'; see conda-resolve --help\n");
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });
});

describeShared('against the shared conda-forge snapshot', () => {
  const forge = pathToFileURL(join(CHANNELS_DIR, 'conda-forge-py39')).href;
  it('solves python=3.9 for linux-64, osx-arm64 and win-64', async () => {
    const { code, stdout } = await runCli(['-c', forge, '-p', 'linux-64', '-p', 'osx-arm64', '-p', 'win-64', 'python=3.9']);
    expect(code).toBe(0);
    const results = JSON.parse(stdout) as NativeResult[];
    for (const result of results) {
      expect(result.error).toBeNull();
      expect(result.packages.find((p) => p.name === 'python')!.version).toMatch(/^3\.9\./);
      for (const p of result.packages)
        expect(
          String(p.url).endsWith(
            `/${p.subdir}/${p.name}-${p.version}-${p.build}.${String(p.url).endsWith('.conda') ? 'conda' : 'tar.bz2'}`,
          ),
        ).toBe(true);
    }
  });
});
