/**
 * A server on 127.0.0.1 publishing our hand-made conda-forge mapping (fixtures/pypi-mapping) as
 * parselmouth publishes its own, with an ETag, counting the requests and the 304s it answers.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/shared.js';

export const MAPPING_FIXTURE = join(PROJECT_ROOT, 'fixtures', 'pypi-mapping', 'conda-forge.json');

export interface MappingServer {
  readonly url: string;
  requests: number;
  notModified: number;
  close(): Promise<void>;
}

export async function serveMapping(body = readFileSync(MAPPING_FIXTURE)): Promise<MappingServer> {
  const etag = '"fixture-1"';
  const state = { requests: 0, notModified: 0 };
  const server = createServer((request, response) => {
    state.requests++;
    if (request.url !== '/compressed_mapping.json') {
      response.writeHead(404).end();
      return;
    }
    if (request.headers['if-none-match'] === etag) {
      state.notModified++;
      response.writeHead(304, { etag }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', etag, 'cache-control': 'max-age=0' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/compressed_mapping.json`,
    get requests() {
      return state.requests;
    },
    get notModified() {
      return state.notModified;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
