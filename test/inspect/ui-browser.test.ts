/**
 * The /ui page in a real browser (Debian's chromium through playwright-core), against the server
 * on 127.0.0.1 with the demo fixtures channel: solve, the table and the collapsible tree per
 * platform, why on a click, why-not, and a download. Nothing may be fetched from outside the
 * server. A screenshot is kept as a test artefact in test-artifacts/ui.png (git-ignored). Skipped,
 * saying so, when /usr/bin/chromium is missing on a developer's machine; CI never skips.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { checkChromium, HAVE_CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../http/helpers/test-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

export const ARTIFACTS_DIR = join(PROJECT_ROOT, 'test-artifacts');
checkChromium('the /ui browser test');

(HAVE_CHROMIUM ? describe : describe.skip)('/ui in a browser', () => {
  let server: TestServer;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    server = await startTestServer();
    profile = mkdtempSync(join(tmpdir(), 'cr-chromium-'));
    context = await launchChromium(profile, { acceptDownloads: true, viewport: { width: 1280, height: 1000 } });
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('solves, shows a table and a tree per platform, answers why and why-not, downloads an export', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('blob:') && !request.url().startsWith('data:')) foreign.push(request.url());
    });

    await page.goto(`${server.url}/`); // redirects to /ui
    await page.waitForSelector('body[data-ready="true"]');
    expect(page.url()).toBe(`${server.url}/ui`);
    await page.check('input[name=platform][value="linux-64"]');
    await page.check('input[name=platform][value="osx-arm64"]');
    await page.fill('#specs', 'requests\npython=3.11\nlinux-only-tool');
    await page.click('#solve');
    await page.locator('#status', { hasText: /Solved in/ }).waitFor();

    // linux-64 solves: a table row per package, the tree from the requested specs.
    const linux = page.locator('section.platform[data-platform="linux-64"]');
    expect(await linux.locator('h2').textContent()).toMatch(/^linux-64: \d+ packages$/);
    const python = linux.locator('tbody tr', { has: page.locator('button.pkg[data-package="python"]') });
    expect(await python.locator('td').nth(1).textContent()).toBe('3.11.9');
    // python is shown in full under requests, so its own root is a repeat with nothing to open.
    const roots = linux.locator('.tree > details > summary > span > button.pkg, .tree > .leaf > span > button.pkg');
    expect(await roots.allTextContents()).toEqual(['requests', 'python', 'linux-only-tool']);
    expect(await linux.locator('.tree > .leaf', { hasText: 'python' }).textContent()).toMatch(/^python 3\.11\.9 \S+ \[python=3\.11\] \(\*\) shown above$/);
    // Collapsible: requests's branch opens to show python under it, with the depends entry.
    const requests = linux.locator('.tree > details[data-package="requests"]');
    expect(await requests.evaluate((node) => (node as unknown as { open: boolean }).open)).toBe(false);
    await requests.locator('> summary').click({ position: { x: 2, y: 5 } });
    expect(await requests.evaluate((node) => (node as unknown as { open: boolean }).open)).toBe(true);
    await expect.poll(() => requests.locator('> details > summary, > .leaf').first().textContent()).toContain('[python >=3.8]');
    // osx-arm64 has no linux-only-tool: that platform says why.
    const osx = page.locator('section.platform[data-platform="osx-arm64"]');
    expect(await osx.locator('h2').textContent()).toBe('osx-arm64: no solution');
    expect(await osx.locator('pre.error').textContent()).toContain('linux-only-tool');

    // Click a package: why it is there.
    await linux.locator('tbody button.pkg[data-package="libzlib"]').click();
    await page.locator('#answer-text', { hasText: 'is needed by' }).waitFor();
    expect(await page.textContent('#answer-title')).toBe('Why libzlib?');
    expect(await page.textContent('#answer-text')).toContain('linux-64:\nlibzlib 1.3.1 h4bc722e_1 is needed by 4 paths:');

    // Why not a version.
    await page.fill('#why-not-spec', 'python<3.10');
    await page.click('#why-not');
    await page.locator('#answer-text', { hasText: 'The solution cannot have python<3.10' }).waitFor();

    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui.png'), fullPage: true });

    // Download an export: only linux-64 solves, so solve that alone first.
    await page.uncheck('input[name=platform][value="osx-arm64"]');
    await page.click('#solve');
    await page.locator('#status', { hasText: /Solved in \d+ ms$/ }).waitFor();
    await page.selectOption('#format', 'explicit');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    expect(download.suggestedFilename()).toBe('explicit.txt');
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text).toMatch(/^# platform: linux-64$/m);
    expect(text).toContain('@EXPLICIT');
    expect(text).toMatch(/\/python-3\.11\.9-h4bc722e_0_cpython\.(conda|tar\.bz2)/);

    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);
});
