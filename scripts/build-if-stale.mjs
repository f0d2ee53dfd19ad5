#!/usr/bin/env node
// `npm test`'s build step: runs `npm run build` unless dist/ was built after every file the build
// reads was last changed (dist/.build-stamp, written by the build's last step). In CI, `npm ci`
// has just built through `prepare`; building again was a quarter of a minute for nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(ROOT, 'dist', '.build-stamp');
const INPUTS = [
  'src',
  'solver',
  'repodata',
  'vocabulary',
  'scripts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];

if (process.argv[2] === '--stamp') {
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  process.exit(0);
}

/** The newest modification time under `path` (files only). */
function newest(path) {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const stamp = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
const changed = Math.max(...INPUTS.map((input) => newest(join(ROOT, input))));
if (stamp > changed) {
  process.stdout.write('dist/ is up to date with the sources: not building again\n');
} else {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}
