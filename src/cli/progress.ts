/**
 * The progress display on standard error: a bar for repodata bytes and a line per platform solve.
 * Drawn only when standard error is a terminal and `--quiet` is not given; otherwise every call is a
 * no-op, so piped and CI output stays clean.
 */
import cliProgress from 'cli-progress';
import type { LoadProgressEvent } from '../../repodata/types.js';
import type { CliIO } from './io.js';

export interface Progress {
  onLoad: (event: LoadProgressEvent) => void;
  onPlatform: (platform: string, phase: 'load' | 'solve' | 'done' | 'failed') => void;
  stop(): void;
}

const SILENT: Progress = { onLoad: () => {}, onPlatform: () => {}, stop: () => {} };

export function createProgress(io: CliIO, options: { quiet: boolean; platforms: readonly string[] }): Progress {
  if (options.quiet || !io.stderr.isTTY || io.env.CI === 'true') return SILENT;
  const multi = new cliProgress.MultiBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      clearOnComplete: true,
      hideCursor: true,
      format: ' {label} [{bar}] {status}',
      barsize: 24,
      autopadding: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const download = new Map<string, { bytes: number; total: number }>();
  const loadBar = multi.create(1, 0, { label: 'repodata'.padEnd(14), status: 'starting' });
  const platformBars = new Map(
    options.platforms.map((p) => [p, multi.create(3, 0, { label: p.padEnd(14), status: 'waiting' })] as const),
  );

  return {
    onLoad(event) {
      const key = `${event.channel}/${event.subdir}`;
      const entry = download.get(key) ?? { bytes: 0, total: 0 };
      if (event.bytes !== undefined) entry.bytes = event.bytes;
      if (event.totalBytes !== undefined) entry.total = event.totalBytes;
      download.set(key, entry);
      let bytes = 0;
      let total = 0;
      for (const value of download.values()) {
        bytes += value.bytes;
        total += Math.max(value.total, value.bytes);
      }
      loadBar.setTotal(Math.max(total, 1));
      loadBar.update(bytes, { status: `${formatBytes(bytes)} ${event.phase} ${key}` });
    },
    onPlatform(platform, phase) {
      const bar = platformBars.get(platform);
      const step = { load: 1, solve: 2, done: 3, failed: 3 }[phase];
      bar?.update(step, { status: phase === 'load' ? 'loading repodata' : phase === 'solve' ? 'solving' : phase });
    },
    stop() {
      multi.stop();
    },
  };
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
