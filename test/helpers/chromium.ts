/**
 * Debian's chromium through playwright-core, for the browser tests: whether it is there (CI must
 * have it; a developer's machine without it skips, saying so), and a headless persistent context.
 */
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Throws in CI without chromium; warns elsewhere. `what` names the test (`the /ui browser test`). */
export function checkChromium(what: string): void {
  if (!HAVE_CHROMIUM && (process.env.CI || process.env.CONDA_RESOLVE_REQUIRE_SHARED === '1')) {
    throw new Error(`${CHROMIUM} is missing; CI must install Debian's chromium for ${what}`);
  }
  if (!HAVE_CHROMIUM) console.warn(`[conda-resolve tests] ${CHROMIUM} is missing: ${what} is skipped (apt-get install chromium)`);
}

/** A headless chromium with its profile in `profile`, no background traffic. */
export function launchChromium(profile: string, options: { acceptDownloads?: boolean; viewport?: { width: number; height: number } } = {}): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ...options,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}
