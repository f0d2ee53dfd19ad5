// A stand-in for `pixi` in the action tests (local mode). It records its argv, then does what pixi
// v0.70 does for `pixi [--quiet] run --manifest-path M --environment E [--skip-deps] TASK ARGS...`:
// reads the manifest, checks that environment E exists and has TASK, appends ARGS to the task's
// command the way pixi does (each one single-quoted, ' written as '"'"') and runs the result with a
// POSIX shell in the manifest's folder, with INIT_CWD (where pixi was started) and
// PIXI_PROJECT_ROOT set. Without --quiet it prints pixi's "Pixi task" line on stderr, as pixi does.
//
// Differences from pixi, on purpose: no environment is installed (Node.js is this machine's), and
// dependency tasks (the manifest has none now) would be listed on stderr but not run.
//
// PIXI_STAND_IN_LOG (required) names a file that receives one JSON line per call:
// {"argv": [...], "cwd": "..."}.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import process from 'node:process';
import { parseTomlSubset } from '../toml-subset.mjs';

const argv = process.argv.slice(2);
const log = process.env.PIXI_STAND_IN_LOG;
if (!log) {
  process.stderr.write('pixi stand-in: PIXI_STAND_IN_LOG is not set\n');
  process.exit(70);
}
appendFileSync(log, `${JSON.stringify({ argv, cwd: process.cwd() })}\n`);

function die(message, code = 1) {
  process.stderr.write(`Error:   × ${message}\n`);
  process.exit(code);
}

// Global flags may come before the subcommand; run's own flags come before the task name, and
// everything from the task name on is the task and its arguments (clap's trailing_var_arg).
let quiet = false;
let i = 0;
while (i < argv.length && argv[i].startsWith('-')) {
  if (argv[i] === '--quiet' || argv[i] === '-q') quiet = true;
  else die(`stand-in does not know the global option ${argv[i]}`, 2);
  i++;
}
if (argv[i] !== 'run') die(`stand-in supports only "pixi run", not ${JSON.stringify(argv[i] ?? '')}`, 2);
i++;
let manifestPath;
let environment;
let skipDeps = false;
while (i < argv.length && argv[i].startsWith('-')) {
  const flag = argv[i];
  if (flag === '--quiet' || flag === '-q') quiet = true;
  else if (flag === '--skip-deps') skipDeps = true;
  else if (flag === '--manifest-path' || flag === '--environment' || flag === '-e') {
    const value = argv[++i];
    if (value === undefined) die(`${flag} needs a value`, 2);
    if (flag === '--manifest-path') manifestPath = value;
    else environment = value;
  } else die(`stand-in does not know the run option ${flag}`, 2);
  i++;
}
const taskName = argv[i];
const extra = argv.slice(i + 1);
if (taskName === undefined) die('no task given', 2);
if (manifestPath === undefined) die('the stand-in needs --manifest-path', 2);
manifestPath = resolve(manifestPath);
if (!existsSync(manifestPath)) die(`could not find a manifest at ${manifestPath}`);

const manifest = parseTomlSubset(readFileSync(manifestPath, 'utf8'));
const envName = environment ?? 'default';
const envDef = manifest.environments?.[envName];
if (envDef === undefined) die(`the environment '${envName}' does not exist`);
const features = Array.isArray(envDef) ? envDef : envDef.features;
const tasks = {};
if (!(envDef.features && envDef['no-default-feature'] === true)) Object.assign(tasks, manifest.tasks ?? {});
for (const feature of features ?? []) Object.assign(tasks, manifest.feature?.[feature]?.tasks ?? {});
const task = tasks[taskName];
if (task === undefined) die(`could not find the task '${taskName}' in environment '${envName}'`);
const command = typeof task === 'string' ? task : task.cmd;
if (typeof command !== 'string') die(`task '${taskName}' has no single-string cmd (the stand-in supports only that)`);

if (!skipDeps) {
  const pending = [...(task['depends-on'] ?? [])];
  const seen = new Set();
  while (pending.length > 0) {
    const name = pending.shift();
    if (seen.has(name)) continue;
    seen.add(name);
    if (tasks[name] === undefined) die(`task '${taskName}' depends on the unknown task '${name}'`);
    process.stderr.write(`pixi stand-in: dependency task '${name}' not run (npm test builds dist/)\n`);
    pending.push(...(tasks[name]['depends-on'] ?? []));
  }
}

const quoted = extra.map((arg) => `'${arg.replaceAll("'", `'"'"'`)}'`).join(' ');
const script = quoted === '' ? command : `${command} ${quoted}`;
if (!quiet) process.stderr.write(`✨ Pixi task (${taskName} in ${envName}): ${command}${quoted === '' ? '' : ` ${quoted}`}\n`);

const projectRoot = dirname(manifestPath);
const result = spawnSync('/bin/sh', ['-c', script], {
  cwd: projectRoot,
  stdio: 'inherit',
  env: {
    ...process.env,
    INIT_CWD: process.cwd(),
    PIXI_PROJECT_ROOT: projectRoot,
    PIXI_PROJECT_MANIFEST: manifestPath,
    PIXI_ENVIRONMENT_NAME: envName,
  },
});
if (result.error) die(`cannot run the task: ${result.error.message}`);
process.exit(result.status ?? 1);
