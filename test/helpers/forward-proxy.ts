/**
 * A forward proxy on 127.0.0.1 for tests, as corporate proxies behave: absolute-form requests
 * (`GET http://host/path`) are forwarded, `CONNECT host:port` opens a tunnel. Host names are looked
 * up in `hosts` only, so a made-up name (`conda.internal.test`) is reachable through the proxy and
 * nowhere else. Every request is logged as `GET http://...` or `CONNECT host:port`.
 */
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ForwardProxy {
  readonly url: string;
  readonly log: string[];
  close(): Promise<void>;
}

export async function startForwardProxy(hosts: Record<string, string>): Promise<ForwardProxy> {
  const log: string[] = [];
  const sockets = new Set<Socket>();
  const target = (host: string): string | undefined => hosts[host.toLowerCase()];
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '';
    log.push(`${req.method} ${url}`);
    if (!/^http:\/\//.test(url)) {
      res.writeHead(400).end('absolute-form requests only');
      return;
    }
    const parsed = new URL(url);
    const address = target(parsed.hostname);
    if (address === undefined) {
      res.writeHead(502).end('unknown host');
      return;
    }
    const upstream = request(
      {
        host: address,
        port: parsed.port || 80,
        path: `${parsed.pathname}${parsed.search}`,
        method: req.method,
        headers: { ...req.headers, host: parsed.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket) => {
    log.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const address = target(host ?? '');
    if (address === undefined) {
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream).add(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
