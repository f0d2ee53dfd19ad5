/**
 * `conda-resolve tree|why|why-not` on the shared channel snapshots, in process. Every edge an
 * answer shows is checked against the channel's own files: the parent's record, looked up by file
 * name in repodata.json, has that exact `depends` entry, and the entry names the child.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { dependencyName, type GraphEdge, type TreeNode, type WhyAnswer, type WhyNotAnswer } from '../../src/inspect/index.js';
import type { NativePackage, SolveResult } from '../../src/native-result.js';
import { DEMO, runCli, tempDir } from '../cli/run-cli.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { channelFiles, expectRealEdge as realEdge, selectedRecords, type RawRecord } from './channel-files.js';

describeShared('tree, why and why-not on conda-forge-py39 (linux-64)', () => {
  const channel = join(CHANNELS_DIR, 'conda-forge-py39');
  const args = ['-c', channel, '-p', 'linux-64', 'python=3.9', 'pip'];
  const cacheDir = tempDir('cr-inspect-');
  let files: Map<string, RawRecord>;
  /** The selected record of each name, as the channel files have it. */
  let selected: Map<string, RawRecord>;

  beforeAll(async () => {
    files = channelFiles('conda-forge-py39', ['linux-64', 'noarch']);
    const { code, stdout } = await runCli(args, { cacheDir });
    expect(code).toBe(0);
    const [result] = JSON.parse(stdout) as SolveResult[];
    selected = selectedRecords(files, result!.packages as NativePackage[]);
  });

  const expectRealEdge = (parent: string, spec: string, child: string): void => realEdge(selected, parent, spec, child);

  it('tree --json: every package once in full, every edge a depends entry of the selected record', async () => {
    const { code, stdout } = await runCli(['tree', ...args, '--json'], { cacheDir });
    expect(code).toBe(0);
    const [platform] = JSON.parse(stdout) as { platform: string; error: null; roots: TreeNode[] }[];
    expect(platform!.roots.map((r) => [r.name, r.spec, r.requested])).toEqual([
      ['python', 'python=3.9', true],
      ['pip', 'pip', true],
    ]);
    const expanded = new Set<string>();
    const walk = (node: TreeNode): void => {
      const record = selected.get(node.name)!;
      expect([node.version, node.build]).toEqual([record.version, record.build]);
      if (!node.repeated) expanded.add(node.name);
      for (const child of node.children) {
        expectRealEdge(node.name, child.spec, child.name);
        walk(child);
      }
      // A fully shown node lists every depends entry that selects a record of the environment.
      if (!node.repeated && !node.truncated) {
        const inEnvironment = record.depends.filter((entry) => selected.has(dependencyName(entry)!) && dependencyName(entry) !== node.name);
        expect(node.children.map((c) => c.spec)).toEqual(inEnvironment);
      }
    };
    platform!.roots.forEach(walk);
    expect([...expanded].sort()).toEqual([...selected.keys()].sort());
  });

  it('tree --depth 1 stops one level below the requested packages; text marks repeats and cuts', async () => {
    const { stdout } = await runCli(['tree', ...args, '--depth', '1', '--json'], { cacheDir });
    const [platform] = JSON.parse(stdout) as { roots: TreeNode[] }[];
    for (const root of platform!.roots) for (const child of root.children) expect(child.children).toEqual([]);
    const text = (await runCli(['tree', ...args, '--depth', '1'], { cacheDir })).stdout;
    expect(text.split('\n')[0]).toBe(`python ${selected.get('python')!.version} ${selected.get('python')!.build} [python=3.9]`);
    expect(text).toMatch(/^├─ openssl .* \[openssl >=3\.2\.1,<4\.0a0\] \.\.\.$/m);
    // pip is cut under python (python depends on pip), so its own branch shows it in full, with python as a repeat.
    expect(text).toMatch(/^└─ pip .* \[pip\] \.\.\.$/m);
    expect(text).toMatch(/^├─ python .* \[python >=3\.7\] \(\*\)$/m);
  });

  it('tree --invert libzlib: every branch climbs real edges up to a requested spec', async () => {
    const { code, stdout } = await runCli(['tree', ...args, '--invert', 'libzlib', '--json'], { cacheDir });
    expect(code).toBe(0);
    const [platform] = JSON.parse(stdout) as { roots: TreeNode[] }[];
    const root = platform!.roots[0]!;
    expect(root.name).toBe('libzlib');
    let requested = 0;
    const climb = (node: TreeNode): void => {
      for (const parent of node.children) {
        if (parent.requested) {
          expect(['python=3.9', 'pip']).toContain(parent.spec);
          requested++;
          continue;
        }
        expectRealEdge(parent.name, parent.spec, node.name);
        climb(parent);
      }
    };
    climb(root);
    expect(requested).toBeGreaterThan(0);
    expect((await runCli(['tree', ...args, '--invert', 'no-such-package'], { cacheDir })).code).toBe(1);
  });

  it('why ca-certificates: every path real, from a requested spec, shortest first', async () => {
    const { code, stdout } = await runCli(['why', 'ca-certificates', ...args, '--json'], { cacheDir });
    expect(code).toBe(0);
    const [platform] = JSON.parse(stdout) as { answer: WhyAnswer }[];
    const { paths } = platform!.answer;
    expect(paths.length).toBeGreaterThanOrEqual(2);
    for (const path of paths as GraphEdge[][]) {
      expect(path[0]!.from).toBeNull();
      expect(['python=3.9', 'pip']).toContain(path[0]!.spec);
      path.slice(1).forEach((edge, i) => {
        expect(edge.from).toBe(path[i]!.to);
        expectRealEdge(edge.from!, edge.spec, edge.to);
      });
      expect(path[path.length - 1]!.to).toBe('ca-certificates');
    }
    expect(paths.map((p) => p.length)).toEqual([...paths.map((p) => p.length)].sort((a, b) => a - b));
    expect(paths[0]!.map((e) => e.to)).toEqual(['python', 'openssl', 'ca-certificates']);
    const text = (await runCli(['why', 'ca-certificates', ...args], { cacheDir })).stdout;
    expect(text).toContain('   -> openssl 3.3.0 hd590300_0  (python depends on openssl >=3.2.1,<4.0a0)');
  });

  it('why on a package that is not there exits 1 and says so', async () => {
    const { code, stdout } = await runCli(['why', 'numpy', ...args], { cacheDir });
    expect(code).toBe(1);
    expect(stdout).toBe('numpy is not in the environment\n');
  });

  it('why-not pip<24: possible; the diff, and the preference that chose pip 24.0', async () => {
    const { code, stdout } = await runCli(['why-not', 'pip<24', ...args, '--json'], { cacheDir });
    expect(code).toBe(0);
    const [answer] = JSON.parse(stdout) as WhyNotAnswer[];
    expect(answer).toMatchObject({
      kind: 'possible',
      changes: [{ name: 'pip', current: '24.0 pyhd8ed1ab_0', alternative: '23.3.2 pyhd8ed1ab_0' }],
    });
    expect(answer!.kind === 'possible' && answer.preference).toMatchObject({
      name: 'pip',
      requested: true,
      criterion: 'version',
      current: 'pip 24.0',
      alternative: '23.3.2',
    });
  });

  it('why-not openssl<3: the dependency change traced to the requested python', async () => {
    const { stdout } = await runCli(['why-not', 'openssl<3', ...args], { cacheDir });
    expect(stdout).toContain('~ openssl 3.3.0 hd590300_0 -> 1.1.1w hd590300_0');
    expect(stdout).toContain('for the requested python=3.9, it prefers the higher version: python 3.9.19 over 3.9.15');
  });

  it('why-not python>=3.10: no solution, worded as why the current one lacks it', async () => {
    const { code, stdout } = await runCli(['why-not', 'python>=3.10', ...args, '--json'], { cacheDir });
    expect(code).toBe(0);
    const [answer] = JSON.parse(stdout) as WhyNotAnswer[];
    expect(answer).toMatchObject({
      kind: 'unsatisfiable',
      text: 'The solution cannot have python>=3.10 because no python matches (available: 3.9.0 .. 3.9.19)',
    });
  });

  it('over a lock (-f pixi.lock, or --lock alone): no solve; the roots are the top-level packages, every edge real', async () => {
    const dir = tempDir('cr-inspect-lock-');
    const lock = join(dir, 'pixi.lock');
    expect((await runCli([...args, '-o', lock], { cacheDir })).code).toBe(0);
    // An empty cache directory and --offline: the answers come from the lock's records alone.
    const offline = { cacheDir: tempDir('cr-inspect-empty-') };
    for (const given of [
      ['-f', lock],
      ['--lock', lock],
    ]) {
      const { code, stdout } = await runCli(['tree', ...given, '--offline', '--json'], offline);
      expect(code).toBe(0);
      const [platform] = JSON.parse(stdout) as { roots: TreeNode[] }[];
      // conda-forge's python depends on pip and pip on python: the cycle's root is pip, which fewer packages need.
      expect(platform!.roots.map((r) => [r.name, r.spec])).toEqual([['pip', 'pip']]);
      const walk = (node: TreeNode): void => {
        for (const child of node.children) {
          expectRealEdge(node.name, child.spec, child.name);
          walk(child);
        }
      };
      platform!.roots.forEach(walk);
    }
    const why = await runCli(['why', 'libzlib', '-f', lock, '--offline', '--json'], offline);
    expect(why.code).toBe(0);
    const [answer] = JSON.parse(why.stdout) as { answer: WhyAnswer }[];
    expect(answer!.answer.paths.length).toBeGreaterThan(0);
    for (const path of answer!.answer.paths) {
      expect(path[0]!.from).toBeNull();
      for (const edge of path.slice(1)) expectRealEdge(edge.from!, edge.spec, edge.to);
    }
    // In text, a lock's roots are its top-level packages, not requested specs.
    const text = await runCli(['why', 'libzlib', '-f', lock, '--offline'], offline);
    expect(text.stdout).toContain('1. top-level pip\n   -> pip ');
    expect(text.stdout).not.toContain('requested');
    const whyNot = await runCli(['why-not', 'pip<24', '-f', lock], offline);
    expect(whyNot.code).toBe(2);
    expect(whyNot.stderr).toContain('--lock FILE SPEC');
  });

  it('why-not on something already there says so; bad input is a usage error', async () => {
    expect((await runCli(['why-not', 'pip', ...args], { cacheDir })).stdout).toMatch(/^The solution already has pip: pip 24\.0 /);
    const bad = await runCli(['why-not', 'pip>>=1', ...args], { cacheDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^conda-resolve: error: .*pip>>=1/);
    expect((await runCli(['why', ...args.slice(0, 4)], { cacheDir })).code).toBe(2);
    expect((await runCli(['tree', '--depth', 'x', ...args], { cacheDir })).stderr).toContain('--depth must be a whole number');
  });
});

describe('on the demo fixtures channel, several platforms', () => {
  const args = ['-c', DEMO, '-p', 'linux-64', '-p', 'osx-arm64'];

  it('answers per platform under a heading; a platform without a solution says why and the exit status is 1', async () => {
    const { code, stdout } = await runCli(['why', 'python', 'linux-only-tool', 'python=3.12', ...args]);
    expect(code).toBe(1);
    expect(stdout).toBe(
      [
        'linux-64:',
        'python 3.12.3 h4bc722e_0_cpython is needed by 1 path:',
        '1. requested python=3.12',
        '   -> python 3.12.3 h4bc722e_0_cpython  (requested python=3.12)',
        '',
        'osx-arm64:',
        `linux-only-tool cannot be installed because nothing provides linux-only-tool. linux-only-tool exists for linux-64. Channels searched: ${pathToFileURL(DEMO).href} (osx-arm64 and noarch).`,
        '',
      ].join('\n'),
    );
  });

  it('tree --invert on both platforms; --help lists the commands', async () => {
    const { code, stdout } = await runCli(['tree', 'python=3.12', '--invert', 'libzlib', ...args]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^linux-64:\nlibzlib 1\.3\.1 h4bc722e_1\n└─ python 3\.12\.3 h4bc722e_0_cpython \[libzlib >=1\.3\.1,<2\.0a0\]\n {3}└─ requested python=3\.12\n\nosx-arm64:\nlibzlib 1\.3\.1 \S+\n/,
    );
    const help = await runCli(['tree', '--help']);
    expect(help.stdout).toContain('conda-resolve why-not SPEC');
  });
});
