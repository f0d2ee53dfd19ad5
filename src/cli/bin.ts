#!/usr/bin/env node
/**
 * The `conda-resolve` executable. conda runs any `conda-<name>` executable on PATH as
 * `conda <name>`, so this is also `conda resolve`. package.json's `bin` is its CommonJS build,
 * `dist/src/cli/bin.cjs` (scripts/build-cli.mjs); how it starts quickly: launch/README.md.
 */
import { start } from './launch/start.js';

// No top-level await: the CommonJS build of this file cannot have one. An error `main` did not turn
// into a message ends the process as any unhandled rejection does (status 1, with its stack).
void start(import.meta.url);
