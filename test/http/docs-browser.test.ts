/**
 * The /docs page in a real browser (Debian's chromium through playwright-core): it loads offline,
 * fills its form from /formats and /platforms, sends a resolve and shows the result. Skipped, saying
 * so, when /usr/bin/chromium is missing on a developer's machine; CI installs it and never skips.
 */
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, openBrowser } from './helpers/chromium.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

describeBrowser('/docs')('/docs in a browser', () => {
  let server: TestServer;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    ({ context, close: closeBrowser } = await openBrowser());
  }, 60_000);
  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
  });

  it('sends a resolve from the form and shows the packages, then an exporter text', async () => {
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    // Nothing may come from outside this server (the page works offline).
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url)) foreign.push(request.url());
    });

    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#format option').count()).toBeGreaterThan(5);
    await page.check('input[name=platform][value="linux-64"]');
    await page.fill('#specs', 'python=3.11\nnumpy');
    await page.click('#submit');
    await page.locator('#status', { hasText: /HTTP \d+/ }).waitFor();
    expect(await page.textContent('#status')).toContain('HTTP 200');
    expect(await page.textContent('#summary')).toMatch(/linux-64: \d+ packages/);
    const result = (await page.textContent('#result')) ?? '';
    expect(result).toContain('"name": "python"');
    expect(result).toContain('"version": "3.11.9"');
    expect(await page.textContent('#curl')).toContain('--data \'{"specs":["python=3.11","numpy"]');

    await page.selectOption('#format', 'explicit');
    await page.click('#submit');
    await page.locator('#result', { hasText: '@EXPLICIT' }).waitFor();
    expect(await page.textContent('#status')).toContain('text/plain');

    await page.fill('#specs', 'numpy >=<1');
    await page.click('#submit');
    await page.locator('#status', { hasText: 'HTTP 400' }).waitFor();
    expect(await page.textContent('#result')).toContain('invalid-spec');

    expect(foreign).toEqual([]);
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
  }, 60_000);
});
