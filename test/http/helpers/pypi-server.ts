/**
 * A file's test server for PyPI requests: a local index (made by `startIndex`) and a python-only
 * conda channel, both on the server's allowlists, started before the file's cases and stopped after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import type { IndexServer } from '../../helpers/pypi-index.js';
import { writePythonChannel } from '../../helpers/python-channel.js';
import { injectTestServer, type InjectedServer } from './test-server.js';

export interface PypiServerSuite {
  readonly index: IndexServer;
  readonly server: InjectedServer;
  /** The channel's `file://` URL. */
  readonly channel: string;
}

/** `use` receives the suite once it runs (the file keeps its parts in its own variables). */
export function usePypiServer(startIndex: () => Promise<IndexServer>, use: (suite: PypiServerSuite) => void): void {
  let suite: PypiServerSuite | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    const index = await startIndex();
    dir = mkdtempSync(join(tmpdir(), 'cr-http-pypi-'));
    const channel = pathToFileURL(writePythonChannel(join(dir, 'channel'), ['linux-64'])).href;
    suite = { index, server: await injectTestServer({ 'allow-index': [index.indexUrl], 'allow-channel': [channel] }), channel };
    use(suite);
  });
  afterAll(async () => {
    await suite?.server.close();
    await suite?.index.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}
