/**
 * The /ui page in a real browser (Debian's chromium through playwright-core), against the server
 * on 127.0.0.1 with the demo fixtures channel and a local PyPI index: solve, the table and the
 * collapsible tree per platform (PyPI packages and their edges marked), why under the clicked
 * package, why-not under its form, and a download. Nothing may be fetched from outside the
 * server. A screenshot is kept as a test artefact in test-artifacts/ui.png (git-ignored). Skipped,
 * saying so, when /usr/bin/chromium is missing on a developer's machine; CI never skips.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildWheel, metadataText, startIndexServer, type IndexServer } from '../helpers/pypi-index.js';
import { describeBrowser, openBrowser } from './helpers/chromium.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const ARTIFACTS_DIR = join(PROJECT_ROOT, 'test-artifacts');

describeBrowser('/ui')('/ui in a browser', () => {
  let server: TestServer;
  let index: IndexServer;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const wheel = (name: string, version: string, requires: string[]) => {
      const text = metadataText(name, version, requires);
      return { name, files: [{ ...buildWheel(name, version, text, { padding: 150_000 }), metadata: text }] };
    };
    index = await startIndexServer([wheel('tinyweb', '2.1.0', ['tinyhttp>=1.0']), wheel('tinyhttp', '1.4.2', [])]);
    server = await startTestServer({ 'allow-index': [index.indexUrl] });
    ({ context, close: closeBrowser } = await openBrowser({ acceptDownloads: true, viewport: { width: 1280, height: 1000 } }));
  }, 60_000);
  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
    await index?.close();
  });

  it('solves, shows a table and a tree per platform, answers why and why-not where asked, downloads an export', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('blob:') && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });

    await page.goto(`${server.url}/`); // redirects to /ui
    await page.waitForSelector('body[data-ready="true"]');
    expect(page.url()).toBe(`${server.url}/ui`);
    await page.check('input[name=platform][value="linux-64"]');
    await page.check('input[name=platform][value="osx-arm64"]');
    await page.fill('#specs', 'requests\npython=3.11\nlinux-only-tool');
    await page.fill('#pypi', 'tinyweb');
    await page.fill('#index-url', index.indexUrl);
    await page.click('#solve');
    await page.locator('#status', { hasText: /Solved in/ }).waitFor();

    // linux-64 solves: a table row per package, the tree from the requested specs.
    const linux = page.locator('section.platform[data-platform="linux-64"]');
    expect(await linux.locator('h2').textContent()).toMatch(/^linux-64: \d+ packages \(2 from PyPI\)$/);
    const python = linux.locator('tbody tr', { has: page.locator('button.pkg[data-package="python"]') });
    // Channels by name, sizes in the unit that fits.
    expect(await python.locator('td').allTextContents()).toEqual(['python', '3.11.9', 'h4bc722e_0_cpython', 'demo', '32.0 kB']);
    // PyPI distributions: marked, with their index and wheel tags.
    const tinyweb = linux.locator('tbody tr', { has: page.locator('button.pkg[data-package="tinyweb"]') });
    expect(await tinyweb.locator('td').allTextContents()).toEqual([
      'tinywebPyPI',
      '2.1.0',
      'py3-none-any',
      new URL(index.indexUrl).host,
      expect.stringMatching(/^1\d\d kB$/),
    ]);
    // python is shown in full under requests, so its own root is a repeat with nothing to open.
    const roots = linux.locator('.tree > details > summary button.pkg, .tree > .leaf button.pkg');
    expect(await roots.allTextContents()).toEqual(['requests', 'python', 'linux-only-tool', 'tinyweb']);
    // A PyPI edge: tinyweb's Requires-Dist on tinyhttp.
    await linux.locator('.tree > details[data-package="tinyweb"] > summary').click({ position: { x: 2, y: 5 } });
    expect(await linux.locator('.tree > details[data-package="tinyweb"] > .leaf').textContent()).toMatch(
      /^tinyhttpPyPI 1\.4\.2 \[tinyhttp>=1\.0\]$/,
    );
    expect(await linux.locator('.tree > .leaf', { hasText: 'python' }).textContent()).toMatch(
      /^python 3\.11\.9 \S+ \[python=3\.11\] \(\*\) shown above$/,
    );
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

    // Click a package: why it is there, in a row right under it; a second click closes it.
    const libzlib = linux.locator('tbody tr', { has: page.locator('button.pkg[data-package="libzlib"]') });
    await libzlib.locator('button.pkg').click();
    const answerRow = libzlib.locator('xpath=following-sibling::tr[1]');
    await answerRow.locator('pre', { hasText: 'is needed by' }).waitFor();
    expect(await answerRow.locator('h3').textContent()).toBe('Why libzlib?');
    expect(await answerRow.locator('pre').textContent()).toMatch(/^libzlib 1\.3\.1 h4bc722e_1 is needed by 4 paths:/);
    await libzlib.locator('button.pkg').click();
    expect(await linux.locator('tr.answer').count()).toBe(0);
    // In the tree, under the line clicked.
    await linux.locator('.tree > details[data-package="tinyweb"] > .leaf button.pkg').click();
    await linux.locator('.tree > details[data-package="tinyweb"] > .leaf > .answer pre', { hasText: 'tinyhttp 1.4.2' }).waitFor();

    // Why not a version: under the form that asked.
    await page.fill('#why-not-spec', 'python<3.10');
    await page.click('#why-not');
    await page.locator('#why-not-answer pre', { hasText: 'The solution cannot have python<3.10' }).waitFor();

    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui.png'), fullPage: true });

    // Download an export: only linux-64 solves, so solve that alone first.
    await page.uncheck('input[name=platform][value="osx-arm64"]');
    await page.fill('#pypi', '');
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
