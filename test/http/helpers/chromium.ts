/**
 * Debian's chromium through playwright-core, for the /ui and /docs browser tests: `describeBrowser`
 * skips a suite, saying so, when /usr/bin/chromium is missing on a developer's machine (CI must
 * have it and never skips); `openBrowser` starts a headless browser on a fresh profile.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { describe } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';

export function describeBrowser(page: string): typeof describe | typeof describe.skip {
  if (existsSync(CHROMIUM)) return describe;
  if (process.env.CI || process.env.CONDA_RESOLVE_REQUIRE_SHARED === '1') {
    throw new Error(`${CHROMIUM} is missing; CI must install Debian's chromium for the ${page} browser test`);
  }
  console.warn(`[conda-resolve tests] ${CHROMIUM} is missing: the ${page} browser test is skipped (apt-get install chromium)`);
  return describe.skip;
}

export async function openBrowser(
  options: { acceptDownloads?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'cr-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ...options,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
