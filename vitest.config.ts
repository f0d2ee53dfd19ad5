import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Makes dist/'s bin.js executable and points the solve pool at the compiled worker (see the file).
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Property tests and solver tests are CPU-bound; two forks match the 2-core CI machine.
    pool: 'forks',
  },
});
