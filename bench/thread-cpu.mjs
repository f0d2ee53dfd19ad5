// Preloaded into a CLI process by bench/headroom.ts (`node --import ./bench/thread-cpu.mjs ...`):
// at exit, writes the CPU seconds of the main thread (the one that receives and scans) and of the
// whole process, from /proc, as one JSON line to the file named by CR_BENCH_CPU_OUT. Linux only.
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';

const TICKS = 100; // USER_HZ on Linux
function times(path) {
  const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) / TICKS, system: Number(fields[12]) / TICKS };
}

const out = process.env.CR_BENCH_CPU_OUT;
if (out) {
  process.on('exit', () => {
    try {
      writeFileSync(out, `${JSON.stringify({ main: times('/proc/thread-self/stat'), process: times('/proc/self/stat') })}\n`);
    } catch {
      // Not Linux, or /proc is missing: the bench prints no CPU columns.
    }
  });
}
