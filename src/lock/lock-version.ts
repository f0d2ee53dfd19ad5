/**
 * Which pixi.lock version to write when the user did not name one (`-o pixi.lock`, a workspace
 * written to its lock, `--lock` alone): the version of the lock already at the output path, else
 * of the lock given with `--lock`, else of a pixi.lock given as the input; for a new file, version
 * 7 when the input is a pixi manifest (pixi has written v7 since it moved to rattler_lock v7 and
 * warns on every run in a project with a v6 lock), else version 6, which conda's own exporter
 * (conda-lockfiles 0.2.1, the latest release) writes and the only one it reads.
 */
import { isPixiManifest } from '../inputs/pixi-manifest.js';
import { lockFormatOf } from '../locks/lock-file.js';

export type PixiLockFormat = 'rattler-lock-v6' | 'rattler-lock-v7';

export function isPixiLockFormat(format: string | undefined): format is PixiLockFormat {
  return format === 'rattler-lock-v6' || format === 'rattler-lock-v7';
}

interface TextFile {
  readonly filename: string;
  readonly content: string;
}

export function chosenPixiLockFormat(sources: {
  readonly existing?: TextFile;
  readonly lock?: TextFile;
  readonly files?: readonly TextFile[];
}): PixiLockFormat {
  for (const file of [sources.existing, sources.lock, ...(sources.files ?? [])]) {
    if (!file) continue;
    const format = lockFormatOf(file.filename, file.content);
    if (isPixiLockFormat(format)) return format;
  }
  return (sources.files ?? []).some((file) => isPixiManifest(file.filename, file.content)) ? 'rattler-lock-v7' : 'rattler-lock-v6';
}
