/**
 * Reading and writing a large real pixi.lock v7 (conda/rattler's own, written by pixi: 5
 * environments, 4 platforms, source packages), whole process, against the floor of parsing the
 * same file with js-yaml alone in a process, in the same run. Run: `npx tsx bench/locks.ts`
 * (after `npm run build`); ROUNDS=N for more rounds.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './measure.js';

const ROOT = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const LOCK = join(ROOT, 'fixtures/locks/rattler.v7.pixi.lock');
const CLI = join(ROOT, 'dist/src/cli/bin.cjs');
const rounds = Number(process.env.ROUNDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'bench-locks-'));
writeFileSync(join(dir, 'pixi.lock'), readFileSync(LOCK));

function time(run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const floor: number[] = [];
const readWrite: number[] = [];
const toCondaLock: number[] = [];
for (let i = 0; i < rounds; i++) {
  floor.push(time(() => execFileSync(process.execPath, ['-e', `require(${JSON.stringify(require.resolve('js-yaml'))}).load(require('fs').readFileSync('pixi.lock','utf8'))`], { cwd: dir })));
  readWrite.push(time(() => execFileSync(process.execPath, [CLI, '-q', '-f', 'pixi.lock', '--format', 'rattler-lock-v7', '-o', 'out.lock'], { cwd: dir })));
  toCondaLock.push(time(() => execFileSync(process.execPath, [CLI, '-q', '-f', 'pixi.lock', '-p', 'linux-64', '--format', 'conda-lock', '-o', 'conda-lock.yml'], { cwd: dir })));
}
const same = readFileSync(join(dir, 'out.lock'), 'utf8') === readFileSync(LOCK, 'utf8');
const kb = Math.round(readFileSync(LOCK).length / 1024);
console.log(`pixi.lock v7, ${kb} KB, ${rounds} rounds (median ms, whole process):`);
console.log(`  js-yaml parse alone (floor)             ${median(floor).toFixed(0)}`);
console.log(`  read + write v7, all environments       ${median(readWrite).toFixed(0)}  (${(median(readWrite) / median(floor)).toFixed(2)}x floor; byte-identical: ${same})`);
console.log(`  read + write conda-lock.yml (linux-64)  ${median(toCondaLock).toFixed(0)}  (${(median(toCondaLock) / median(floor)).toFixed(2)}x floor)`);
