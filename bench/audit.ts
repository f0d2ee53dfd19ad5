/**
 * `conda-resolve audit` of a 300-package pixi.lock against an OSV zip of 50,000 records, whole
 * process (node dist/src/cli/bin.cjs), cold (the first run: nothing of the zip in this process or
 * any cache of ours) and warm (later runs, the zip in the OS page cache), against a floor in the
 * same run: Python's zipfile and json reading every record and matching the same 300 names.
 *
 * The database is generated in a temporary directory (not committed) from the shapes of our test
 * records in fixtures/osv/own: each record is one of them with its id, package name and version
 * range changed, so the nesting is that of OSV records (they are shorter than GitHub's advisories,
 * whose `details` run to a few KB). Packages are the first names
 * of the bundled conda-forge PyPI mapping; 1 in 20 records hits a locked package.
 *
 *   npx tsx bench/audit.ts [--records N] [--rounds N]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { zipSync } from 'fflate';
import { registerBuiltinExporters } from '../src/exporters/builtin.js';
import type { PackageRecord } from '../vocabulary/record.js';
import { median } from './measure.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.cjs');
const { values } = parseArgs({ options: { records: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '3' } } });
const RECORDS = Number(values.records);
const ROUNDS = Number(values.rounds);
const PACKAGES = 300;

const dir = mkdtempSync(join(tmpdir(), 'cr-bench-audit-'));
try {
  // Made-up names (the shapes matter, not the names): 300 locked, 10,000 more that records name.
  const names = Array.from({ length: PACKAGES + 10_000 }, (_, i) => `pkg-${i.toString(36)}`);
  const locked = names.slice(0, PACKAGES);
  const others = names.slice(PACKAGES);
  // Each locked conda package provides the PyPI name of its own name (as most of conda-forge's do).
  const mappingFile = join(dir, 'conda-forge-mapping.json');
  writeFileSync(mappingFile, JSON.stringify(Object.fromEntries(locked.map((name) => [name, name]))));

  // The lock: 300 noarch python packages from conda-forge, version 1.2.3.
  const records: PackageRecord[] = locked.map((name) => {
    const fn = `${name}-1.2.3-pyhd8ed1ab_0.conda`;
    return {
      name,
      version: '1.2.3',
      build: 'pyhd8ed1ab_0',
      build_number: 0,
      channel: 'conda-forge',
      subdir: 'noarch',
      fn,
      url: `https://conda.anaconda.org/conda-forge/noarch/${fn}`,
      md5: null,
      sha256: 'ab'.repeat(32),
      size: 1000,
      depends: ['python >=3.8'],
      constrains: [],
      track_features: [],
      features: null,
      license: 'MIT',
      license_family: 'MIT',
      noarch: 'python',
      timestamp: 1700000000000,
    };
  });
  const lock = join(dir, 'pixi.lock');
  writeFileSync(
    lock,
    registerBuiltinExporters().render('pixi', [{ platform: 'linux-64', records, channels: ['conda-forge'] }], {
      toolName: 'conda-resolve',
      toolVersion: '0',
      now: new Date(),
    }),
  );

  // The database: our test records' shapes with new ids, names and ranges.
  const shapes = readdirSync(join(ROOT, 'fixtures', 'osv', 'own'))
    .map(
      (f) =>
        JSON.parse(readFileSync(join(ROOT, 'fixtures', 'osv', 'own', f), 'utf8')) as {
          affected?: { package: { name: string; ecosystem: string }; ranges?: { events: object[] }[] }[];
          withdrawn?: string;
        },
    )
    .filter((r) => r.withdrawn === undefined && r.affected?.[0]?.package.ecosystem === 'PyPI');
  const files: Record<string, Uint8Array> = {};
  const encoder = new TextEncoder();
  for (let i = 0; i < RECORDS; i++) {
    const shape = structuredClone(shapes[i % shapes.length]!) as Record<string, unknown> & {
      affected: { package: { name: string }; ranges?: { events: object[] }[] }[];
    };
    const id = `GHSA-bench-${String(i).padStart(6, '0')}`;
    const name = i % 20 === 0 ? locked[(i / 20) % PACKAGES]! : others[i % others.length]!;
    shape.id = id;
    for (const affected of shape.affected) {
      affected.package.name = name;
      // Half the hits cover 1.2.3, half are fixed before it.
      affected.ranges = [{ events: [{ introduced: '0' }, { fixed: i % 40 === 0 ? '2.0.0' : '1.0.0' }] }].map((r) => ({
        type: 'ECOSYSTEM',
        ...r,
      }));
    }
    files[`${id}.json`] = encoder.encode(JSON.stringify(shape, null, 2));
  }
  const zip = join(dir, 'all.zip');
  writeFileSync(zip, zipSync(files, { level: 6 }));
  const zipMb = statSync(zip).size / 1024 ** 2;
  const inflatedMb = Object.values(files).reduce((n, f) => n + f.length, 0) / 1024 ** 2;
  console.log(`database: ${RECORDS} records, ${zipMb.toFixed(1)} MB zip (${inflatedMb.toFixed(0)} MB of JSON); lock: ${PACKAGES} packages`);

  const time = (command: string, args: readonly string[]): { ms: number; stdout: string } => {
    const started = process.hrtime.bigint();
    const run = spawnSync(command, args, {
      encoding: 'utf8',
      cwd: dir,
      maxBuffer: 64 * 1024 ** 2,
      env: { ...process.env, CONDA_RESOLVE_CACHE_DIR: join(dir, 'cache') },
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
    return { ms, stdout: run.stdout };
  };

  const ours = () =>
    time(process.execPath, [CLI, 'audit', '-f', lock, '--db', zip, '--pypi-mapping', `conda-forge=${mappingFile}`, '--json', '-q']);
  const cold = ours();
  const findings = (JSON.parse(cold.stdout) as { summary: { findings: number } }).summary.findings;
  const warm = median(Array.from({ length: ROUNDS }, () => ours().ms));

  // The floor: Python's zipfile (zlib in C) and json, every record read, the 300 names matched.
  const script = [
    'import json, sys, zipfile, re',
    'names = set(sys.argv[2].split(","))',
    'hits = 0',
    'with zipfile.ZipFile(sys.argv[1]) as z:',
    '    for info in z.infolist():',
    '        record = json.loads(z.read(info))',
    '        for a in record.get("affected", []):',
    '            if re.sub(r"[-_.]+", "-", a["package"]["name"].lower()) in names: hits += 1',
    'print(hits)',
  ].join('\n');
  const floorArgs = ['-c', script, zip, locked.join(',')];
  const floorCold = time('python3', floorArgs).ms;
  const floor = median(Array.from({ length: ROUNDS }, () => time('python3', floorArgs).ms));

  console.log(
    `conda-resolve audit (whole process): cold ${cold.ms.toFixed(0)} ms, warm ${warm.toFixed(0)} ms (median of ${ROUNDS}); ${findings} findings`,
  );
  console.log(`floor, python3 zipfile + json over every record: first ${floorCold.toFixed(0)} ms, then ${floor.toFixed(0)} ms`);
  console.log(`ratio (warm / floor): ${(warm / floor).toFixed(2)}x`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
