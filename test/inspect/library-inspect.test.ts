/** tree, why and why-not through the library entry, on the demo fixtures channel. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseExtraSpec, resolveEnvironments, treeOf, whyNot, whyOf } from '../../src/index.js';

const DEMO = resolve(import.meta.dirname, '../../fixtures/channels/demo');
const cacheDir = mkdtempSync(join(tmpdir(), 'cr-library-inspect-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));
const options = { cacheDir, env: {} };
const request = { specs: ['requests', 'python=3.11'], channels: [DEMO], platforms: ['linux-64'] };

it('answers tree, why and why-not from resolutions', async () => {
  const current = await resolveEnvironments(request, options);
  const [tree] = treeOf(current, { depth: 1 });
  expect(tree!.roots.map((r) => [r.name, r.children.map((c) => c.name)])).toEqual([
    ['requests', ['python', 'certifi', 'idna']],
    ['python', ['libgcc', 'bzip2', 'libzlib', 'openssl', 'tzdata', 'python_abi']],
  ]);
  const [why] = whyOf(current, 'certifi');
  expect(why!.answer!.paths).toEqual([
    [
      { from: null, to: 'requests', spec: 'requests' },
      { from: 'requests', to: 'certifi', spec: 'certifi >=2017.4.17' },
    ],
  ]);
  const withSpec = await resolveEnvironments({ ...request, specs: [...request.specs, 'openssl<3.3'] }, options);
  const [answer] = whyNot(current, withSpec, parseExtraSpec('openssl<3.3'));
  expect(answer).toMatchObject({
    kind: 'possible',
    changes: [{ name: 'openssl', current: '3.3.1 h4bc722e_1', alternative: '3.2.1 h4bc722e_0' }],
    preference: { name: 'openssl', criterion: 'version', requested: false, via: 'python depends on openssl >=3.2,<4.0a0' },
  });
});
