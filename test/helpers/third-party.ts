/**
 * Data carried over from public repositories (test vectors, schemas, advisories, real lock files).
 * The project does not commit such data: it lives beside the channel snapshots, in
 * `../shared/third-party/<source>/`, and `test/THIRD-PARTY-DATA.md` says where each file comes from
 * and how to make it. A test that needs a file that is not there is skipped, saying which file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_DIR } from './shared.js';

export const THIRD_PARTY_DIR = join(SHARED_DIR, 'third-party');

const warned = new Set<string>();

/** The path of `relative` under ../shared/third-party, or undefined (with one warning) when absent. */
export function thirdPartyPath(relative: string): string | undefined {
  const path = join(THIRD_PARTY_DIR, relative);
  if (existsSync(path)) return path;
  if (!warned.has(relative)) {
    warned.add(relative);
    console.warn(`[conda-resolve tests] ${path} is missing: the tests that read it are skipped (test/THIRD-PARTY-DATA.md)`);
  }
  return undefined;
}

/** The text of `relative` under ../shared/third-party, or undefined when absent. */
export function thirdPartyText(relative: string): string | undefined {
  const path = thirdPartyPath(relative);
  return path === undefined ? undefined : readFileSync(path, 'utf8');
}

/** The parsed JSON of `relative` under ../shared/third-party, or undefined when absent. */
export function thirdPartyJson<T>(relative: string): T | undefined {
  const text = thirdPartyText(relative);
  return text === undefined ? undefined : (JSON.parse(text) as T);
}
