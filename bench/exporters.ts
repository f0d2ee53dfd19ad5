/**
 * Exporter benchmarks: `npx tsx bench/exporters.ts` (needs ../shared).
 *
 * - The ruamel-compatible YAML emitter against js-yaml's `dump` (the peer: a general YAML writer
 *   that does not reproduce ruamel's bytes) on the same pixi.lock data: time per document and ratio.
 * - Every built-in exporter on a large environment: 400 real records per platform, 3 platforms.
 * - `loadRegistry`: built-ins plus plugin discovery over this checkout's node_modules.
 *
 * Records are real: the newest record of each package name in defaults-main-2022/linux-aarch64,
 * relabelled per platform. Figures are printed; nothing is asserted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import yaml from 'js-yaml';
import { registerBuiltinExporters } from '../src/exporters/builtin.js';
import { loadRegistry } from '../src/exporters/plugins.js';
import { rattlerLockV6Document } from '../src/locks/pixi-lock/write-v6.js';
import type { ExportEnvironment } from '../src/exporters/types.js';
import { emitYaml } from '../src/exporters/yaml/index.js';
import type { PackageRecord } from '../vocabulary/record.js';

const SHARED = join(import.meta.dirname, '..', '..', 'shared', 'channels');
const PLATFORMS = ['linux-64', 'osx-arm64', 'win-64'];
const PER_PLATFORM = 400;

interface RawRecord {
  name: string;
  version: string;
  build: string;
  build_number: number;
  depends?: string[];
  constrains?: string[];
  md5?: string;
  sha256?: string;
  size?: number;
  license?: string;
  license_family?: string;
  timestamp?: number;
}

function realRecords(): PackageRecord[] {
  const repodata = JSON.parse(readFileSync(join(SHARED, 'defaults-main-2022', 'linux-aarch64', 'repodata.json'), 'utf8')) as {
    packages: Record<string, RawRecord>;
  };
  const newest = new Map<string, [string, RawRecord]>();
  for (const [fn, raw] of Object.entries(repodata.packages)) {
    const seen = newest.get(raw.name);
    if (!seen || (raw.timestamp ?? 0) > (seen[1].timestamp ?? 0)) newest.set(raw.name, [fn, raw]);
  }
  return [...newest.values()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .slice(0, PER_PLATFORM)
    .map(([fn, raw]) => ({
      name: raw.name,
      version: raw.version,
      build: raw.build,
      build_number: raw.build_number,
      channel: 'pkgs/main',
      subdir: 'linux-aarch64',
      fn,
      url: `https://repo.anaconda.com/pkgs/main/linux-aarch64/${fn}`,
      md5: raw.md5 ?? null,
      sha256: raw.sha256 ?? null,
      size: raw.size ?? null,
      depends: raw.depends ?? [],
      constrains: raw.constrains ?? [],
      track_features: [],
      features: null,
      license: raw.license ?? null,
      license_family: raw.license_family ?? null,
      noarch: null,
      timestamp: raw.timestamp ?? null,
    }));
}

function environments(records: PackageRecord[]): ExportEnvironment[] {
  return PLATFORMS.map((platform) => ({
    platform,
    channels: ['pkgs/main'],
    records: records
      .map((r) => ({ ...r, subdir: platform, url: r.url.replace('/linux-aarch64/', `/${platform}/`) }))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
  }));
}

/** Median milliseconds per call over `runs` calls, after warm-up. */
function time(fn: () => unknown, runs = 30): number {
  for (let i = 0; i < 5; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

const records = realRecords();
const envs = environments(records);
const context = { toolName: 'conda-resolve', toolVersion: 'bench', now: new Date() };
console.log(`exporters benchmark: ${records.length} real records x ${PLATFORMS.length} platforms (defaults-main-2022)`);

// 1. YAML emitter vs js-yaml on the same document (js-yaml needs plain objects, not Maps).
const document = rattlerLockV6Document(envs);
const plain = JSON.parse(JSON.stringify(document, (_key, value: unknown) => (value instanceof Map ? Object.fromEntries(value) : value)));
// charCodeAt flattens the result, so both sides pay for a finished string.
const ours = time(() => emitYaml(document).charCodeAt(0));
const peer = time(() => yaml.dump(plain, { lineWidth: 80 }).charCodeAt(0));
const bytes = emitYaml(document).length;
console.log(
  `yaml emitter, pixi.lock of ${(bytes / 1024).toFixed(0)} KiB: ours ${ours.toFixed(2)} ms, js-yaml dump ${peer.toFixed(2)} ms, ratio ${(ours / peer).toFixed(2)}x`,
);

// 2. Every built-in exporter through the registry (registry.render: lookup, multi-platform rule, newline).
const registry = registerBuiltinExporters();
for (const name of ['explicit', 'environment-yaml', 'environment-json', 'conda-lock-v1', 'rattler-lock-v6']) {
  const ms = time(() => registry.render(name, envs, context));
  const size = registry.render(name, envs, context).length;
  console.log(`render ${name.padEnd(17)} ${ms.toFixed(2).padStart(7)} ms  (${(size / 1024).toFixed(0)} KiB)`);
}

// 3. Registry start-up with plugin discovery (scans every package.json in node_modules).
const samples: number[] = [];
for (let i = 0; i < 10; i++) {
  const start = performance.now();
  await loadRegistry({ env: {}, cwd: process.cwd() });
  samples.push(performance.now() - start);
}
samples.sort((a, b) => a - b);
console.log(`loadRegistry (built-ins + discovery over this checkout's node_modules): ${samples[5].toFixed(1)} ms median of 10`);
