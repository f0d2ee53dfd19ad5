#!/usr/bin/env node
/**
 * The `conda-resolve` executable. conda runs any `conda-<name>` executable on PATH as
 * `conda <name>`, so this is also `conda resolve`.
 */
import { main } from './main.js';

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
