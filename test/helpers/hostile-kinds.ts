/**
 * Two more kinds of request for the server under fire (issue 32): hostile pixi manifests (far more
 * environments, features or targets than a manifest may have, sent as `?format=pixi` workspaces)
 * and a multi-platform decompression bomb (a channel whose every subdir's `repodata.json.zst`
 * decodes to one 256 MiB JSON string, asked for 8 platforms at once). Each kind says which
 * statuses it may get, as `mixedLoad` (fault-channels.ts) does.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { send, type LoadKind } from './fault-channels.js';

const BOMB_PLATFORMS = ['linux-64', 'linux-aarch64', 'linux-ppc64le', 'osx-64', 'osx-arm64', 'win-64', 'win-arm64', 'linux-s390x'];

/** A zstd frame: `head` as a raw block, then `mib` MiB of "a" as RLE blocks (4 bytes each). */
export function zstdStringBomb(head: string, mib: number): Buffer {
  const block = (size: number, type: 0 | 1, last: boolean) => {
    const value = (size << 3) | (type << 1) | (last ? 1 : 0);
    return Buffer.from([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff]);
  };
  const bytes = Buffer.from(head);
  const parts = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]), block(bytes.length, 0, mib === 0), bytes];
  const blocks = mib * 8; // 128 KiB each
  for (let i = 0; i < blocks; i++) parts.push(block(131072, 1, i === blocks - 1), Buffer.from([0x61]));
  return Buffer.concat(parts);
}

export interface StringBombServer {
  /** The channel's URL: every subdir's repodata.json.zst is the bomb. */
  readonly channel: string;
  close(): Promise<void>;
}

export async function startStringBombServer(): Promise<StringBombServer> {
  const bomb = zstdStringBomb(
    '{"info":{},"packages":{"app-1-0.tar.bz2":{"name":"app","version":"1","build":"0","build_number":0,"depends":[],"junk":"',
    256,
  );
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    if ((req.url ?? '').endsWith('/repodata.json.zst')) res.writeHead(200, { 'content-length': bomb.length }).end(bomb);
    else res.writeHead(404).end();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const base = await new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
  );
  return {
    channel: `${base}/bomb8`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** pixi manifests past each bound of src/inputs/pixi-manifest.ts's MANIFEST_LIMITS: a 400 each. */
export function hostileManifestKinds(channel: string): LoadKind[] {
  const head = `[workspace]\nchannels = ["${channel}"]\nplatforms = ["linux-64"]\n[dependencies]\napp = "*"\n`;
  const environments = `${head}[environments]\n${Array.from({ length: 2000 }, (_, i) => `e${i} = []`).join('\n')}\n`;
  const features = `${head}${Array.from({ length: 1000 }, (_, i) => `[feature.f${i}.dependencies]\nx = "*"`).join('\n')}\n`;
  const targets = `${head}${Array.from({ length: 500 }, (_, i) => `[target."t${i}-*".dependencies]\nx = "*"`).join('\n')}\n`;
  const manifest = (kind: string, text: string): LoadKind => ({
    kind,
    expect: [400],
    run: (url) => send(url, '/resolve?format=pixi', JSON.stringify({ file: text, filename: 'pixi.toml' })),
  });
  return [
    manifest('manifest-2000-environments', environments),
    manifest('manifest-1000-features', features),
    manifest('manifest-500-targets', targets),
  ];
}

/** One request for 8 platforms of the string-bomb channel: each platform fails, or the time limit. */
export function multiPlatformBombKinds(bombChannel: string): LoadKind[] {
  const body = JSON.stringify({ specs: ['app'], channels: [bombChannel], platforms: BOMB_PLATFORMS });
  return [{ kind: 'bomb-8-platforms', expect: [200, 504], run: (url) => send(url, '/resolve', body) }];
}
