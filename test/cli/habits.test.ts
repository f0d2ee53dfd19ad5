/**
 * conda's and pixi's habits on the command line (issue 17, scope 3): did-you-mean for unknown
 * flags, command words never read as specs, --json, --dry-run, -n, --no-progress, and what -v and
 * -vv print (subdirs loaded, cache hits and misses, timings, the summary), against the demo channel
 * on disk and the same channel served over HTTP on 127.0.0.1.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { DEMO, runCli, tempDir } from './run-cli.js';

const demo = ['-c', DEMO, '-p', 'linux-64'];
/** No user configuration from this machine. */
const home = () => ({ HOME: tempDir('cr-home-'), XDG_CONFIG_HOME: undefined, CONDARC: undefined, CONDA_CHANNELS: undefined });

describe('an unknown flag names the closest known one', () => {
  it.each([
    [['--jsn', 'python'], "Unknown option '--jsn' (did you mean --json?); see conda-resolve --help"],
    [['python', '--dryrun'], "Unknown option '--dryrun' (did you mean --dry-run?); see conda-resolve --help"],
    [['python', '--chanel', 'x'], "Unknown option '--chanel' (did you mean --channel?); see conda-resolve --help"],
    [['python', '--no-progres'], "Unknown option '--no-progres' (did you mean --no-progress?); see conda-resolve --help"],
    [['info', '--platfrom', 'linux-64'], "Unknown option '--platfrom' (did you mean --platform?); see conda-resolve info --help"],
    [['cache', 'clean', '--dry'], "Unknown option '--dry' (did you mean --dry-run?); see conda-resolve cache --help"],
    [['serve', '--prot', '1'], "Unknown option '--prot' (did you mean --port?); see conda-resolve serve --help"],
    [['formats', '--jason'], "Unknown option '--jason' (did you mean --json?); see conda-resolve formats --help"],
    [['python', '--completely-different'], "Unknown option '--completely-different'; see conda-resolve --help"],
  ])('%j', async (args, message) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(stderr).toBe(`conda-resolve: error: ${message}\n`);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });
});

describe('words that are commands are never read as specs', () => {
  it.each([[['-c', 'conda-forge', 'info']], [['resolve', 'cache', 'clean']], [['python', 'completion']]])(
    '%j is a usage error that says where the command goes',
    async (args) => {
      const { code, stderr } = await runCli(args);
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /^conda-resolve: error: "(info|cache|completion)" is a conda-resolve command, not a package spec: a command goes first/,
      );
    },
  );

  it('a package of that name is still reachable as a spec with a version', async () => {
    const { code, stderr } = await runCli([...demo, 'info *']);
    expect(stderr).toContain('nothing provides info');
    expect(code).toBe(1);
  });
});

describe('--json, --dry-run, -n, --no-progress', () => {
  it('--json is native JSON (the default), and with -o the file gets JSON whatever its name', async () => {
    const dir = tempDir();
    const { code, stderr } = await runCli([...demo, 'python=3.9', '--json', '-o', 'environment.yml'], { cwd: dir });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const written = JSON.parse(readFileSync(join(dir, 'environment.yml'), 'utf8')) as Array<{ platform: string }>;
    expect(written[0]!.platform).toBe('linux-64');
  });

  it('--json with --format is refused', async () => {
    const { code, stderr } = await runCli([...demo, 'python', '--json', '--format', 'explicit']);
    expect(code).toBe(2);
    expect(stderr).toBe('conda-resolve: error: --json asks for native JSON and --format for "explicit": give one of them\n');
  });

  it('--dry-run solves and exits 0 but does not write the -o file; -v says what was not written', async () => {
    const dir = tempDir();
    const quiet = await runCli([...demo, 'python=3.9', '--dry-run', '-o', 'pixi.lock'], { cwd: dir });
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const loud = await runCli([...demo, 'python=3.9', '--dry-run', '-o', 'pixi.lock', '-v', '-n', 'analysis'], { cwd: dir });
    expect(loud.code).toBe(0);
    expect(existsSync(join(dir, 'pixi.lock'))).toBe(false);
    expect(loud.stderr).toMatch(
      /\n✔ Solved environment 'analysis' for linux-64 \(8 packages\) in \d+(\.\d)? m?s; dry run: pixi\.lock not written \([\d.]+ KiB of rattler-lock-v6\)\n$/,
    );
  });

  it('-n NAME and --no-progress are accepted and change nothing in the output', async () => {
    const plain = await runCli([...demo, 'python=3.9']);
    const habits = await runCli([...demo, 'python=3.9', '-n', 'myenv', '--no-progress']);
    expect(habits).toEqual(plain);
  });
});

describe('-v and -vv on a non-terminal', () => {
  let server: ChannelServer;
  beforeAll(async () => {
    server = await startChannelServer({ root: join(PROJECT_ROOT, 'fixtures', 'channels'), maxAge: 3600 });
  });
  afterAll(() => server.close());

  it('without -v nothing reaches stderr', async () => {
    const { stderr } = await runCli(['-c', `${server.url}/demo`, '-p', 'linux-64', 'python=3.9']);
    expect(stderr).toBe('');
  });

  it('-v logs each subdir with what it cost, each platform solved, and the summary', async () => {
    const cacheDir = tempDir('cr-cache-');
    const { code, stderr } = await runCli(['-c', `${server.url}/demo`, '-p', 'linux-64', 'python=3.9', '-v'], { cacheDir, env: home() });
    expect(code).toBe(0);
    expect(stderr).toMatch(/^conda-resolve: GET http:\/\/127\.0\.0\.1:\d+\/demo\/linux-64\/repodata_shards\.msgpack\.zst$/m);
    expect(stderr).toMatch(
      /^conda-resolve: http:\/\/127\.0\.0\.1:\d+\/demo\/linux-64: [\d.]+ KiB in \d+(\.\d)? m?s \([\d.]+ [KM]iB\/s\), 27 records$/m,
    );
    expect(stderr).toMatch(/^conda-resolve: linux-64: solved in \d+(\.\d)? m?s$/m);
    expect(stderr).toMatch(/^✔ Solved linux-64 \(8 packages\) in .+; native JSON to standard output\n$/m);
    expect(stderr).not.toContain('cache hit');
  });

  it('-vv adds cache misses, hits and revalidations, and the time of each step', async () => {
    const cacheDir = tempDir('cr-cache-');
    const args = ['-c', `${server.url}/demo`, '-p', 'linux-64', 'python=3.9', '-vv'];
    const first = await runCli(args, { cacheDir, env: home() });
    expect(first.stderr).toMatch(/demo\/linux-64: cache miss \(downloaded\); loaded in/);
    expect(first.stderr).toMatch(/^conda-resolve: loaded the repodata and solved in .+ since start\)$/m);
    expect(first.stderr).toMatch(/^conda-resolve: linux-64: repodata ready in /m);

    const second = await runCli(args, { cacheDir, env: home() });
    expect(second.stderr).toMatch(/demo\/linux-64: cache hit \(fresh, no request\)/);
    expect(second.stderr).toMatch(/demo\/linux-64: cached, 27 records/);

    const refreshed = await runCli([...args, '--refresh'], { cacheDir, env: home() });
    expect(refreshed.stderr).toMatch(/demo\/linux-64: cache hit \(revalidated: 304 Not Modified\)/);
    expect(refreshed.stderr).toMatch(/demo\/linux-64: up to date, 27 records/);
  });
});
