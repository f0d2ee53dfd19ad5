#!/usr/bin/env node
// Runs the commands shown in the documentation, so that the docs stay true.
//
// A fenced block whose info string has the word `runnable` (```sh runnable) is run: each line that
// starts with `$ ` is a command (a line ending in `\` continues it), and the lines up to the next
// command are its expected output. `conda-resolve` is the built CLI (`npm run build` first). A command
// passes when it exits 0, or, when its shown output has a `conda-resolve: error:` line (and it does
// not print `$?` itself), when it exits non-zero; and when every shown output line that does not vary
// between machines (paths, times, sizes, versions of Node) appears in what it printed.
// A block with `file=NAME` in its info string (```toml file=pixi.toml) is written to NAME first.
// A block with `needs=shared` is skipped, with a note, when ../shared (the channel snapshots) is absent.
//
// Each page runs in its own temporary folder holding a link to `fixtures/` and `../shared`, with its
// own HOME and no configuration files, so blocks of one page can build on each other; the pages share
// one repodata cache.
//
// Usage: node scripts/check-docs.mjs [FILE.md ...]   (default: README.md and docs/*.md)
import { spawn } from 'node:child_process';
import console from 'node:console';
import process from 'node:process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.cjs');
const SHARED = resolve(ROOT, '..', 'shared');

/** Output lines that differ from machine to machine or from run to run are not compared. */
const VARIES = [
  /\/home\/me\//, // the docs' example checkout
  /\d+(\.\d+)? ?(ms|s|KiB|MiB|GiB|kB|MB|B)\b/, // times and sizes
  /created-by:|created_at|node\.js version|cache directory|cache size/,
  /^\s*\.\.\.\s*$/,
  /…/,
];

/** Blocks of one markdown text: `{ info, lines, line }` for every fenced block. */
export function fencedBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const body = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith(open[1])) body.push(lines[j++]);
    blocks.push({ info: open[2].trim(), lines: body, line: i + 1 });
    i = j;
  }
  return blocks;
}

/** The commands of a runnable block with their shown output. */
export function commandsOf(block) {
  const commands = [];
  let current = null;
  for (let k = 0; k < block.lines.length; k++) {
    const text = block.lines[k];
    if (text.startsWith('$ ')) {
      let command = text.slice(2);
      while (command.endsWith('\\') && k + 1 < block.lines.length) command = `${command.slice(0, -1)} ${block.lines[++k].trim()}`;
      current = { command, expected: [], line: block.line + 1 + k };
      commands.push(current);
    } else if (current) current.expected.push(text);
  }
  return commands;
}

function attribute(info, name) {
  const match = new RegExp(`(?:^|\\s)${name}(?:=(\\S+))?(?:\\s|$)`).exec(info);
  return match ? (match[1] ?? true) : undefined;
}

function workspace(cache) {
  const top = mkdtempSync(join(tmpdir(), 'cr-docs-'));
  const cwd = join(top, 'checkout');
  const bin = join(top, 'bin');
  mkdirSync(cwd);
  mkdirSync(bin);
  mkdirSync(join(top, 'home'));
  symlinkSync(join(ROOT, 'fixtures'), join(cwd, 'fixtures'));
  if (existsSync(SHARED)) symlinkSync(SHARED, join(top, 'shared'));
  writeFileSync(join(bin, 'conda-resolve'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'conda-resolve'), 0o755);
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: join(top, 'home'),
    XDG_CONFIG_HOME: join(top, 'home', '.config'),
    CONDA_RESOLVE_CACHE_DIR: cache,
    // The test suite's one code cache folder for every CLI it starts (test/helpers/global-setup.ts).
    ...(process.env.CONDA_RESOLVE_CODE_CACHE_DIR ? { CONDA_RESOLVE_CODE_CACHE_DIR: process.env.CONDA_RESOLVE_CODE_CACHE_DIR } : {}),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
  };
  return { top, cwd, env };
}

function bash(command, ws) {
  return new Promise((done) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', command], {
      cwd: ws.cwd,
      env: ws.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', (error) => done({ status: null, stdout, stderr, error }));
    child.on('close', (status, signal) => done({ status, stdout, stderr, error: signal ? new Error(`ended by ${signal}`) : undefined }));
  });
}

/** Runs one command; returns a list of problems (empty when it passed). */
async function check(cmd, ws) {
  const run = await bash(cmd.command, ws);
  const printed = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  const problems = [];
  const shownError = cmd.expected.some((l) => l.startsWith('conda-resolve: error:')) && !cmd.command.includes('$?');
  if (run.error) problems.push(`did not finish: ${run.error.message}`);
  else if (shownError && run.status === 0) problems.push('exited 0, but the docs show an error');
  else if (!shownError && run.status !== 0) problems.push(`exited ${run.status}`);
  const lines = new Set(printed.split('\n').map((l) => l.trimEnd()));
  const text = [...lines].join('\n');
  for (const want of cmd.expected) {
    const line = want.trimEnd();
    if (line === '' || VARIES.some((re) => re.test(line))) continue;
    if (!lines.has(line) && !text.includes(line)) problems.push(`did not print: ${line}`);
  }
  if (problems.length > 0)
    problems.push(
      `printed:\n${printed
        .split('\n')
        .slice(0, 30)
        .map((l) => `      | ${l}`)
        .join('\n')}`,
    );
  return problems;
}

export async function checkFile(file, cache) {
  const out = [];
  const log = (line) => out.push(line);
  const blocks = fencedBlocks(readFileSync(file, 'utf8')).filter((b) => attribute(b.info, 'runnable') || attribute(b.info, 'file'));
  if (blocks.length === 0) return { ran: 0, failed: 0, skipped: 0, out };
  const ws = workspace(cache);
  let ran = 0;
  let failed = 0;
  let skipped = 0;
  try {
    for (const block of blocks) {
      const where = `${relative(ROOT, file)}:${block.line}`;
      if (attribute(block.info, 'needs') === 'shared' && !existsSync(SHARED)) {
        skipped++;
        log(`skip ${where}: needs ../shared`);
        continue;
      }
      const name = attribute(block.info, 'file');
      if (typeof name === 'string') writeFileSync(join(ws.cwd, name), `${block.lines.join('\n')}\n`);
      if (!attribute(block.info, 'runnable')) continue;
      for (const cmd of commandsOf(block)) {
        ran++;
        const problems = await check(cmd, ws);
        if (problems.length === 0) log(`ok   ${relative(ROOT, file)}:${cmd.line}: ${cmd.command}`);
        else {
          failed++;
          log(`FAIL ${relative(ROOT, file)}:${cmd.line}: ${cmd.command}\n  - ${problems.join('\n  - ')}`);
        }
      }
    }
  } finally {
    rmSync(ws.top, { recursive: true, force: true });
  }
  return { ran, failed, skipped, out };
}

async function main(args) {
  if (!existsSync(CLI)) {
    console.error(`${CLI} is missing: run "npm run build" first`);
    return 2;
  }
  const files =
    args.length > 0
      ? args.map((f) => resolve(f))
      : [
          join(ROOT, 'README.md'),
          ...readdirSync(join(ROOT, 'docs'))
            .filter((f) => f.endsWith('.md'))
            .sort()
            .map((f) => join(ROOT, 'docs', f)),
        ];
  const total = { ran: 0, failed: 0, skipped: 0 };
  // Pages run side by side (each in its own folder), their reports printed in order.
  // One repodata cache for all pages (it is safe across processes), so a channel is indexed once.
  const cache = mkdtempSync(join(tmpdir(), 'cr-docs-cache-'));
  const results = await Promise.all(files.map((file) => checkFile(file, cache))).finally(() =>
    rmSync(cache, { recursive: true, force: true }),
  );
  for (const r of results) {
    if (r.out.length > 0) console.log(r.out.join('\n'));
    total.ran += r.ran;
    total.failed += r.failed;
    total.skipped += r.skipped;
  }
  console.log(`${total.ran} commands run, ${total.failed} failed, ${total.skipped} blocks skipped`);
  return total.failed === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
