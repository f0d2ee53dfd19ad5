/** The discovery walk fetches what the solve will want before the first solve. */
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
  index = await startIndexServer([
    simpleProject('wide', ['1.0'], ['shared>=1']),
    simpleProject('narrow', ['1.0'], ['shared<2']),
    simpleProject('shared', ['1.0', '1.5', '2.0']),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'cr-discovery-'));
});
afterAll(async () => {
  await index?.close();
  rmSync(dir, { recursive: true, force: true });
});

const options = (tags: ReturnType<typeof targetTags>[]) => ({
  tags,
  resolution: 'highest' as const,
  prereleases: undefined,
  maxProjects: 100,
});

describe('PypiDataStore.discover', () => {
  it('fetches the release a later, narrower requirement allows, not only the first guess', async () => {
    const client = new PypiIndexClient({ indexUrl: index.indexUrl, cacheDir: dir });
    const data = new PypiDataStore(client);
    const roots = [parseRequirement('wide'), parseRequirement('narrow')];
    await data.discover(
      ['wide', 'narrow'],
      [],
      new Map([['', roots]]),
      options([targetTags({ platform: 'linux-64', pythonVersion: '3.12' })]),
    );
    // `shared<2` (from narrow) with `shared>=1` (from wide): 1.5 is the one the solve takes.
    expect(data.metadata('shared', '1.5')).toBeDefined();
    await client.close();
  });

  it('a walk without tags (the prefetch beside the conda load) fetches pages and metadata the walk with tags then reuses', async () => {
    const client = new PypiIndexClient({ indexUrl: index.indexUrl, cacheDir: mkdtempSync(join(dir, 'c-')) });
    const data = new PypiDataStore(client);
    const roots = new Map([['', [parseRequirement('wide')]]]);
    await data.discover(['wide'], [], roots, options([]));
    const asked = index.requests.length;
    expect(data.metadata('shared', '2.0')).toBeDefined();
    await data.discover(['wide'], [], roots, options([targetTags({ platform: 'linux-64', pythonVersion: '3.12' })]));
    expect(index.requests.length).toBe(asked);
    await client.close();
  });
});
