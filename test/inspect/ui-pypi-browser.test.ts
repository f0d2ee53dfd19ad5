/**
 * The /ui page with PyPI requirements in a real browser (as ui-browser.test.ts: Debian's chromium
 * through playwright-core, skipped with a message without it): the PyPI fields reach the solve,
 * the table marks PyPI packages, and the tree shows the PyPI edge to the conda package that
 * provides a requirement.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../http/helpers/test-server.js';
import { indexWheel, startIndexServer, type IndexServer } from '../helpers/pypi-index.js';
import { writePythonChannel } from '../helpers/python-channel.js';
import { checkChromium, HAVE_CHROMIUM, launchChromium } from '../helpers/chromium.js';

checkChromium('the /ui PyPI browser test');

(HAVE_CHROMIUM ? describe : describe.skip)('/ui with PyPI requirements', () => {
  let index: IndexServer;
  let server: TestServer;
  let context: BrowserContext;
  let dir: string;
  let channel: string;

  beforeAll(async () => {
    index = await startIndexServer([
      { name: 'webapp', files: [indexWheel('webapp', '2.0', ['helper>=1', 'requests>=2.30'])] },
      { name: 'helper', files: [indexWheel('helper', '1.2')] },
    ]);
    dir = mkdtempSync(join(tmpdir(), 'cr-ui-pypi-'));
    channel = pathToFileURL(writePythonChannel(join(dir, 'channel'), ['linux-64'], [{ name: 'requests', version: '2.31.0', noarch: 'python', depends: ['python >=3.8'] }])).href;
    server = await startTestServer({ 'allow-index': [index.indexUrl], 'allow-channel': [channel] });
    context = await launchChromium(join(dir, 'profile'));
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await server?.close();
    await index?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('solves conda specs and PyPI requirements together and shows the PyPI edges', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/ui`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.check('input[name=platform][value="linux-64"]');
    await page.fill('#specs', 'python 3.12.*\nrequests');
    await page.fill('#pypi', 'webapp');
    await page.fill('#index-url', index.indexUrl);
    await page.fill('#channels', channel);
    await page.click('#solve');
    await page.locator('#status', { hasText: /Solved in/ }).waitFor();
    const linux = page.locator('section.platform[data-platform="linux-64"]');
    const helper = linux.locator('tbody tr', { has: page.locator('button.pkg[data-package="helper"]') });
    expect(await helper.locator('td').allTextContents()).toEqual(['helper', '1.2', 'pypi', index.indexUrl, expect.any(String)]);
    const webapp = linux.locator('.tree > details[data-package="webapp"]');
    expect(await webapp.locator('> summary').textContent()).toBe('webapp 2.0 pypi [webapp]');
    expect(await webapp.locator('> .leaf, > details').allTextContents()).toEqual(['helper 1.2 pypi [helper>=1]', 'requests 2.31.0 h0_0 [requests>=2.30] (*) shown above']);
  }, 60_000);
});
