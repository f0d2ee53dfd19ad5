/**
 * The channel server of the scale benchmarks: python's http.server handler (ThreadingHTTPServer,
 * HTTP/1.1 keep-alive, as `python3 -m http.server` serves a mirror) in a child process on
 * 127.0.0.1, adding `Cache-Control: public, max-age=3600` (as conda-forge's CDN sends a max-age),
 * and answering a `repodata.json` request that accepts gzip with `repodata.json.gz` beside it when
 * there is one (nginx's `gzip_static`). Used by bench/scale.ts and bench/headroom.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

const SERVER_PY = `
import functools, http.server, os, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    # Headers and body go out as separate writes: with Nagle on, each small response waits ~40 ms
    # for the client's delayed ACK, which would dominate a walk over many small shards (both sides).
    disable_nagle_algorithm = True
    def end_headers(self):
        self.send_header('Cache-Control', 'public, max-age=3600')
        super().end_headers()
    def send_head(self):
        # nginx's gzip_static: repodata.json.gz beside repodata.json goes out with Content-Encoding.
        path = self.translate_path(self.path)
        if path.endswith('/repodata.json') and os.path.exists(path + '.gz') and 'gzip' in self.headers.get('Accept-Encoding', ''):
            f = open(path + '.gz', 'rb')
            self.send_response(200)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Encoding', 'gzip')
            self.send_header('Content-Length', str(os.fstat(f.fileno()).st_size))
            self.end_headers()
            return f
        return super().send_head()
    def log_message(self, format, *args):
        sys.stderr.write((format % args) + '\\n')
        sys.stderr.flush()
server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Handler, directory=sys.argv[1]))
print(server.server_address[1], flush=True)
server.serve_forever()
`;

export interface PythonServer {
  readonly url: string;
  /** Request lines logged so far: `"GET /path HTTP/1.1" 200 -`. */
  readonly log: string[];
  close(): void;
}

/** Serve `root` on a free port; resolves once it listens. */
export async function startPythonServer(root: string): Promise<PythonServer> {
  const proc: ChildProcess = spawn('python3', ['-c', SERVER_PY, root], { stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  createInterface({ input: proc.stderr! }).on('line', (line) => log.push(line));
  const port = await new Promise<number>((done, fail) => {
    proc.once('error', fail);
    proc.once('exit', (code) => fail(new Error(`python3 http.server exited (${code}): ${log.join('\n')}`)));
    createInterface({ input: proc.stdout! }).once('line', (line) => done(Number(line)));
  });
  proc.removeAllListeners('exit');
  return { url: `http://127.0.0.1:${port}`, log, close: () => proc.kill() };
}
