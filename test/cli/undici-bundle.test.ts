/**
 * The CLI's bundle of undici (scripts/build-cli.mjs): its public exports, with the parts no command
 * calls (fetch, WebSocket, the mocks...) replaced by stand-ins that say so when used.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { requireBuild } from './run-cli.js';

const load = (): typeof import('undici') => {
  requireBuild();
  return createRequire(import.meta.url)(join(PROJECT_ROOT, 'dist', 'cli', 'undici.cjs')) as typeof import('undici');
};

describe("the CLI's undici bundle", () => {
  it('gives the agents and request the CLI uses, working', async () => {
    const undici = load();
    const agent = new undici.Agent({ connections: 2 });
    const proxy = new undici.EnvHttpProxyAgent();
    expect(typeof undici.request).toBe('function');
    await Promise.all([agent.close(), proxy.close()]);
  });

  it('names the part it left out when one is used', () => {
    const undici = load();
    expect(() => undici.fetch('http://127.0.0.1:9/')).toThrow(
      /undici's fetch \(lib\/web\/fetch\/index\.js\) is not in conda-resolve's CLI bundle/,
    );
    expect(() => new undici.MockAgent().get('http://127.0.0.1:9')).toThrow(/not in conda-resolve's CLI bundle/);
  });
});
