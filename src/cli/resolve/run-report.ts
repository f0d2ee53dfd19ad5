/**
 * What a resolve tells the user on standard error while it runs, in the manner of pixi:
 *
 * - On a terminal (and not `-q`/`--no-progress`, not `CI=true`, not `-v`): one live line per
 *   channel subdir (bytes, total, speed, elapsed; "cached" or "up to date" when nothing was
 *   downloaded) and one per platform (loading, solving, "solved in N ms", "failed"). The lines are
 *   cleared when the run ends, fails or is interrupted (Ctrl-C), and a one-line summary follows a
 *   success.
 * - With `-v` (any stream): the same facts as plain log lines, once each, and the summary; `-vv`
 *   adds cache hits and misses and the time of each step.
 * - Otherwise nothing: piped output (the action captures stderr with stdout) stays clean.
 */
import type CliProgress from 'cli-progress';
import type { LoadProgressEvent } from '../../../repodata/types.js';
import type { CliIO } from '../io.js';

export type PlatformPhase = 'load' | 'solve' | 'done' | 'failed';

export interface RunReport {
  /** The request is prepared: its platforms get lines, and the live display starts. */
  begin(platforms: readonly string[]): void;
  onLoad(event: LoadProgressEvent): void;
  onPlatform(platform: string, phase: PlatformPhase): void;
  /** `-vv`: a step of the run ended (time since the previous step, and since the start). */
  step(label: string): void;
  /** Clears the live lines (idempotent). */
  stop(): void;
  /** After a success: the one-line summary (on a terminal or with -v). */
  summary(facts: SummaryFacts): void;
}

export interface SummaryFacts {
  readonly platforms: readonly { platform: string; packages: number }[];
  readonly format: string;
  /** Where the text went: a file name, or undefined for standard output. */
  readonly output: string | undefined;
  readonly dryRun: boolean;
  readonly bytes: number;
}

export interface ReportOptions {
  readonly quiet: boolean;
  readonly verbosity: number;
  /** `-n NAME`: named in the summary. */
  readonly name: string | undefined;
  /** A clock in ms, for tests. */
  readonly now?: () => number;
}

interface SubdirState {
  readonly key: string;
  readonly startedAt: number;
  bytes: number;
  total: number | undefined;
  downloaded: boolean;
  cache: LoadProgressEvent['cache'];
  doneAt: number | undefined;
  records: number | undefined;
}

interface PlatformState {
  phase: PlatformPhase | 'waiting';
  since: number;
  loadMs: number | undefined;
  solveMs: number | undefined;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function speed(bytes: number, ms: number): string {
  return ms > 0 ? `${formatBytes((bytes * 1000) / ms)}/s` : '';
}

/** How a finished subdir is described: "cached", "up to date", "local" or what was downloaded. */
function subdirOutcome(s: SubdirState): string {
  if (s.downloaded) {
    const ms = (s.doneAt ?? s.startedAt) - s.startedAt;
    return `${formatBytes(s.bytes)} in ${formatDuration(ms)}${ms > 0 ? ` (${speed(s.bytes, ms)})` : ''}`;
  }
  if (s.cache === 'revalidated') return 'up to date';
  if (s.cache === 'local') return 'local';
  return 'cached';
}

/** Loads cli-progress only when the live lines will be drawn (a terminal): other runs never use it. */
export async function createRunReport(io: CliIO, options: ReportOptions): Promise<RunReport> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const subdirs = new Map<string, SubdirState>();
  const platforms = new Map<string, PlatformState>();
  const verbosity = options.verbosity;
  const live = verbosity === 0 && !options.quiet && io.stderr.isTTY === true && io.env.CI !== 'true';
  const talk = live || verbosity > 0;
  const cliProgress = live ? (await import('cli-progress')).default : undefined;
  const log = (line: string): void => void io.stderr.write(`conda-resolve: ${line}\n`);
  let lastStep = started;

  let display: { redraw(): void; stop(): void } | undefined;

  const finishSubdir = (s: SubdirState, at: number): void => {
    if (s.doneAt !== undefined) return;
    s.doneAt = at;
    if (verbosity > 0) {
      const records = s.records === undefined ? '' : `, ${s.records} records`;
      log(`${s.key}: ${subdirOutcome(s)}${records}`);
    }
    if (verbosity > 1) {
      const hit = s.downloaded
        ? 'cache miss (downloaded)'
        : s.cache === 'revalidated'
          ? 'cache hit (revalidated: 304 Not Modified)'
          : s.cache === 'local'
            ? 'no cache (local channel)'
            : 'cache hit (fresh, no request)';
      log(`${s.key}: ${hit}; loaded in ${formatDuration(at - s.startedAt)}`);
    }
  };

  return {
    begin(list) {
      for (const p of list) platforms.set(p, { phase: 'waiting', since: now(), loadMs: undefined, solveMs: undefined });
      if (cliProgress && display === undefined) display = liveDisplay(cliProgress, io, now, subdirs, platforms);
    },
    onLoad(event) {
      const at = now();
      const key = `${event.channel}/${event.subdir}`;
      let s = subdirs.get(key);
      if (!s) {
        s = { key, startedAt: at, bytes: 0, total: undefined, downloaded: false, cache: undefined, doneAt: undefined, records: undefined };
        subdirs.set(key, s);
      }
      if (event.phase === 'fetch') {
        s.downloaded = true;
        if (event.bytes !== undefined) s.bytes = event.bytes;
        if (event.totalBytes !== undefined) s.total = event.totalBytes;
      } else if (event.phase === 'cache') {
        s.cache = event.cache ?? 'fresh';
        if (!s.downloaded && event.bytes !== undefined) s.bytes = event.bytes;
      } else if (event.phase === 'shards') {
        // Shards are fetched as the solve needs them: their bytes add to what this subdir downloaded.
        if (event.bytes !== undefined && event.bytes > 0) {
          s.downloaded = true;
          s.bytes = event.bytes;
        }
      }
      if (event.records !== undefined) s.records = event.records;
      if (event.phase === 'done') finishSubdir(s, at);
      display?.redraw();
    },
    onPlatform(platform, phase) {
      const at = now();
      const p = platforms.get(platform) ?? { phase: 'waiting', since: at, loadMs: undefined, solveMs: undefined };
      platforms.set(platform, p);
      if (p.phase === 'load') p.loadMs = at - p.since;
      if (p.phase === 'solve') p.solveMs = at - p.since;
      p.phase = phase;
      p.since = at;
      if (verbosity > 1 && phase === 'solve' && p.loadMs !== undefined) log(`${platform}: repodata ready in ${formatDuration(p.loadMs)}`);
      if (verbosity > 0 && phase === 'done') log(`${platform}: solved in ${formatDuration(p.solveMs ?? 0)}`);
      if (verbosity > 0 && phase === 'failed') log(`${platform}: failed`);
      display?.redraw();
    },
    step(label) {
      if (verbosity < 2) return;
      const at = now();
      log(`${label} in ${formatDuration(at - lastStep)} (${formatDuration(at - started)} since start)`);
      lastStep = at;
    },
    stop() {
      display?.stop();
    },
    summary(facts) {
      display?.stop();
      if (!talk) return;
      const elapsed = formatDuration(now() - started);
      const named = options.name === undefined ? '' : ` environment '${options.name}' for`;
      const counts = facts.platforms.map((p) => `${p.platform} (${p.packages} packages)`).join(', ');
      const where =
        facts.output === undefined
          ? `${facts.format} to standard output`
          : facts.dryRun
            ? `dry run: ${facts.output} not written (${formatBytes(facts.bytes)} of ${facts.format})`
            : `wrote ${facts.output} (${formatBytes(facts.bytes)} of ${facts.format})`;
      io.stderr.write(`✔ Solved${named} ${counts} in ${elapsed}; ${where}\n`);
    },
  };
}

/** The live lines on a terminal, drawn by cli-progress (one "bar" per line, each formatted here). */
function liveDisplay(
  cliProgress: typeof CliProgress,
  io: CliIO,
  now: () => number,
  subdirs: Map<string, SubdirState>,
  platforms: Map<string, PlatformState>,
) {
  const multi = new cliProgress.MultiBar({
    stream: io.stderr as NodeJS.WritableStream,
    clearOnComplete: true,
    hideCursor: true,
    // Redrawn 10 times a second, so elapsed times and speeds move while bytes do not.
    fps: 10,
    linewrap: false,
    format: (_options, _params, payload: { render: () => string }) => payload.render(),
  });
  const width = (): number => Math.max(40, (io.stderr.columns ?? 80) - 1);
  const spin = (): string => '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[Math.floor(now() / 100) % 10]!;
  const labelWidth = (): number => Math.max(12, ...[...subdirs.keys(), ...platforms.keys()].map((k) => k.length));
  const shown = new Set<string>();
  let stopped = false;

  const subdirLine = (s: SubdirState): string => {
    const label = s.key.padEnd(labelWidth());
    if (s.doneAt !== undefined) return `✔ ${label}  ${subdirOutcome(s)}`;
    const elapsed = now() - s.startedAt;
    if (!s.downloaded) return `${spin()} ${label}  ${s.cache === undefined ? 'checking' : 'reading'} ${formatDuration(elapsed)}`;
    const total = s.total !== undefined && s.total >= s.bytes ? s.total : undefined;
    const barWidth = 20;
    const filled = total ? Math.round((s.bytes / total) * barWidth) : 0;
    const bar = total ? `[${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}] ` : '';
    const amount = total ? `${formatBytes(s.bytes)}/${formatBytes(total)}` : formatBytes(s.bytes);
    return `${spin()} ${label}  ${bar}${amount}  ${speed(s.bytes, elapsed)}  ${formatDuration(elapsed)}`;
  };
  const platformLine = (name: string, p: PlatformState): string => {
    const label = name.padEnd(labelWidth());
    const elapsed = formatDuration(now() - p.since);
    switch (p.phase) {
      case 'waiting':
        return `  ${label}  waiting`;
      case 'load':
        return `${spin()} ${label}  loading repodata ${elapsed}`;
      case 'solve':
        return `${spin()} ${label}  solving ${elapsed}`;
      case 'done':
        return `✔ ${label}  solved in ${formatDuration(p.solveMs ?? 0)}`;
      case 'failed':
        return `✘ ${label}  failed`;
    }
  };
  const clip = (line: string): string => (line.length > width() ? line.slice(0, width()) : line);

  // Ctrl-C: clear the lines and give the cursor back, then let the signal end the process as it
  // would have (exit status 130).
  const onSigint = (): void => {
    stop();
    process.removeListener('SIGINT', onSigint);
    process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGINT', onSigint);

  function stop(): void {
    if (stopped) return;
    stopped = true;
    process.removeListener('SIGINT', onSigint);
    multi.stop();
  }

  function redraw(): void {
    if (stopped) return;
    // Subdir lines come first, in the order they started; platform lines after them.
    for (const s of subdirs.values()) {
      if (shown.has(s.key)) continue;
      shown.add(s.key);
      multi.create(1, 0, { render: () => clip(subdirLine(s)) });
    }
    for (const [name, p] of platforms) {
      if (shown.has(`platform:${name}`)) continue;
      shown.add(`platform:${name}`);
      multi.create(1, 0, { render: () => clip(platformLine(name, p)) });
    }
  }

  redraw();
  return { redraw, stop };
}
