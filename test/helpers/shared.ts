/**
 * Where the shared channel snapshots live, and a `describe` that skips (saying so) when they are
 * absent: a user's fresh clone has no `../shared`, CI always has it (`.ci/run` fails without it).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHARED_DIR = resolve(PROJECT_ROOT, process.env.CONDA_RESOLVE_SHARED_DIR ?? '../shared');
export const CHANNELS_DIR = join(SHARED_DIR, 'channels');
export const REPODATA_FILES_DIR = join(SHARED_DIR, 'repodata-files');
export const SPEC_DIR = join(SHARED_DIR, 'spec');
export const HAVE_SHARED = existsSync(CHANNELS_DIR);

if (!HAVE_SHARED && process.env.CONDA_RESOLVE_REQUIRE_SHARED === '1') {
  throw new Error(`CONDA_RESOLVE_REQUIRE_SHARED=1 but ${SHARED_DIR} is missing`);
}

let warned = false;

/** `describe` for tests that read `../shared`; skipped with a message when it is missing. */
export const describeShared: typeof describe = ((name: string, ...rest: unknown[]) => {
  if (!HAVE_SHARED) {
    if (!warned) {
      warned = true;
      console.warn(`[conda-resolve tests] ${SHARED_DIR} is missing: snapshot-based tests are skipped`);
    }
    // Not the real body: vitest runs a skipped describe's body to collect its tests, and these
    // bodies read the snapshots while collecting.
    return describe.skip(`${name} (skipped: ../shared missing)`, () => {
      it.skip('needs the channel snapshots in ../shared', () => {});
    });
  }
  return (describe as (n: string, ...r: unknown[]) => void)(name, ...rest);
}) as typeof describe;
