import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Makes dist/'s bin.js executable, points the solve pool at the compiled worker and gives the CLIs
    // the tests start one code cache folder (see the file).
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker less than the cores: a single fork on the 2-core CI machine.
    // One more worker than cores fills the time files spend waiting on child processes and sockets
    // (bench/RESULTS.md, test files: 214 s with two workers, 194 s with three).
    maxWorkers: Math.max(3, availableParallelism() + 1),
    // A larger young generation: the property and referee tests allocate many short-lived objects,
    // and fewer scavenges cut the suite's CPU by about 5%. GC on the worker's own thread: with more
    // workers than cores, V8's helper threads only compete with the other workers for the same
    // cores (bench/RESULTS.md, test files: 14% less CPU over the in-process files).
    execArgv: ['--max-semi-space-size=64', '--single-threaded-gc'],
    sequence: { sequencer: SlowFirstSequencer },
    // Files share the worker's module cache instead of importing the server, store and solver
    // again each (no test mocks a module or changes process-wide state).
    isolate: false,
  },
});
