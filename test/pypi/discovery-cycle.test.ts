/** A dependency cycle between PyPI projects (common on PyPI: plugins that require their host and back). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PypiIndexClient } from '../../repodata/pypi/client.js';
import { PypiDataStore } from '../../src/pypi/data.js';
import { parseRequirement } from '../../vocabulary/pypi/requirement.js';
import { targetTags } from '../../vocabulary/pypi/tags.js';
import { simpleProject, startIndexServer, type IndexServer } from '../helpers/pypi-index.js';

let index: IndexServer;
let dir: string;
beforeAll(async () => {
  index = await startIndexServer([simpleProject('host', ['1.0'], ['plugin>=1']), simpleProject('plugin', ['1.0'], ['host>=1'])]);
  dir = mkdtempSync(join(tmpdir(), 'cr-discovery-cycle-'));
});
afterAll(async () => {
  await index?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('PypiDataStore.discover over a cycle', () => {
  it('ends, with the metadata of both projects', async () => {
    const client = new PypiIndexClient({ indexUrl: index.indexUrl, cacheDir: dir });
    const data = new PypiDataStore(client);
    const tags = [targetTags({ platform: 'linux-64', pythonVersion: '3.12' })];
    const walk = data.discover(['host'], [], new Map([['', [parseRequirement('host')]]]), {
      tags,
      resolution: 'highest',
      prereleases: undefined,
      maxProjects: 100,
    });
    const outcome = await Promise.race([walk.then(() => 'done'), new Promise((ok) => setTimeout(() => ok('hung'), 5000))]);
    expect(outcome).toBe('done');
    expect(data.metadata('host', '1.0')).toBeDefined();
    expect(data.metadata('plugin', '1.0')).toBeDefined();
    await client.close();
  });
});
