/**
 * A request over many channel subdirs prints no MaxListenersExceededWarning (issue 37): every load
 * waits on the request's signal, so 12 channel subdirs added 12 abort listeners to it and Node
 * warned of a possible leak past 10. The warning is captured from the process.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveEnvironments } from '../../src/index.js';
import { startChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../cli/run-cli.js';

const warnings: Error[] = [];
const onWarning = (warning: Error): void => {
  warnings.push(warning);
};

afterEach(() => {
  process.off('warning', onWarning);
});

describe('abort listeners', () => {
  it('6 channels x 2 subdirs with a time limit and a signal: no listener warning', async () => {
    const root = tempDir('cr-channels-');
    for (let i = 0; i < 6; i++) cpSync(join(PROJECT_ROOT, 'fixtures', 'channels', 'demo'), join(root, `c${i}`), { recursive: true });
    const server = await startChannelServer({ root });
    process.on('warning', onWarning);
    try {
      const channels = Array.from({ length: 6 }, (_, i) => `${server.url}/c${i}`);
      const resolution = await resolveEnvironments(
        { specs: ['python'], channels, platforms: ['linux-64', 'osx-arm64'] },
        { timeoutMs: 60_000, signal: new AbortController().signal, cacheDir: tempDir('cr-cache-') },
      );
      expect(resolution.platforms.map((p) => p.error)).toEqual([null, null]);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
