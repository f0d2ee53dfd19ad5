/**
 * HTTP/1.1 over a bare TCP socket, for what an HTTP client library hides: the exact bytes a server
 * writes (its own 431/400 answers, `100 Continue`), several requests on one keep-alive connection
 * at chosen moments, and whether a connection ended with a FIN or a reset.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The status line and headers as sent. */
  readonly head: string;
}

/** One TCP connection that parses the responses it receives, in order. */
export class RawConnection {
  readonly socket: Socket;
  /** Settles when the socket is closed: with the error that closed it, or null for a clean end. */
  readonly closed: Promise<NodeJS.ErrnoException | null>;
  /** True once the server's FIN arrived. */
  ended = false;
  /** The status lines of the interim (1xx) answers received, in order. */
  readonly interim: string[] = [];
  #buffer = Buffer.alloc(0);
  #waiters: ((response: RawResponse | Error) => void)[] = [];
  #responses: RawResponse[] = [];
  #error: NodeJS.ErrnoException | null = null;
  #done = false;
  /** The interim answer at the start of the buffer is already in `interim`. */
  #interimSeen = false;
  #onInterim: (() => void)[] = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    this.closed = new Promise((resolve) => {
      socket.on('error', (error: NodeJS.ErrnoException) => (this.#error = error));
      socket.on('end', () => (this.ended = true));
      socket.on('close', () => {
        this.#done = true;
        this.#flushWaiters();
        resolve(this.#error);
      });
    });
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#parse();
    });
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Writes raw request bytes. */
  write(bytes: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(bytes, (error) => (error ? reject(error) : resolve())));
  }

  /** A GET request with `Connection: keep-alive`. */
  get(path: string, headers: Record<string, string> = {}): Promise<void> {
    const lines = [
      `GET ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Connection: keep-alive',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    return this.write(`${lines.join('\r\n')}\r\n\r\n`);
  }

  /** The next complete response; rejects when the connection closes first (with its error). */
  next(): Promise<RawResponse> {
    const ready = this.#responses.shift();
    if (ready) return Promise.resolve(ready);
    if (this.#done) return Promise.reject(this.#closedError());
    return new Promise((resolve, reject) => this.#waiters.push((r) => (r instanceof Error ? reject(r) : resolve(r))));
  }

  /** Everything received that is not a complete response yet (an interim `100 Continue` waits here). */
  get pending(): string {
    return this.#buffer.toString('latin1');
  }

  destroy(): void {
    this.socket.destroy();
  }

  #closedError(): Error {
    const error = this.#error;
    return Object.assign(new Error(error ? `connection failed: ${error.code ?? error.message}` : 'connection closed before a response'), {
      code: error?.code ?? 'CLOSED',
    });
  }

  #flushWaiters(): void {
    for (const waiter of this.#waiters.splice(0)) waiter(this.#closedError());
  }

  /** Settles when an interim (1xx) answer has arrived (at once if one already has). */
  interimArrived(): Promise<void> {
    if (this.interim.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.#onInterim.push(resolve));
  }

  #parse(): void {
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.#buffer.subarray(0, end).toString('latin1');
      const [statusLine, ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      if (status >= 100 && status < 200) {
        for (const notify of this.#onInterim.splice(0)) notify();
        // Interim answers are left in `pending` for the test to see, then dropped with the next one.
        if (status === 100 && this.#buffer.length === end + 4) {
          if (!this.#interimSeen) this.interim.push(statusLine!);
          this.#interimSeen = true;
          return;
        }
        if (!this.#interimSeen) this.interim.push(statusLine!);
        this.#interimSeen = false;
        this.#buffer = this.#buffer.subarray(end + 4);
        continue;
      }
      let length: number;
      if (headers['content-length'] !== undefined) length = Number(headers['content-length']);
      else if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
        const body = dechunk(this.#buffer.subarray(end + 4));
        if (!body) return;
        this.#emit({ status, headers, head, body: body.text });
        this.#buffer = this.#buffer.subarray(end + 4 + body.consumed);
        continue;
      } else length = 0;
      if (this.#buffer.length < end + 4 + length) return;
      const body = this.#buffer.subarray(end + 4, end + 4 + length).toString('utf8');
      this.#buffer = this.#buffer.subarray(end + 4 + length);
      this.#emit({ status, headers, head, body });
    }
  }

  #emit(response: RawResponse): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter(response);
    else this.#responses.push(response);
  }
}

function dechunk(bytes: Buffer): { text: string; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (bytes.length < lineEnd + 2 + size + 2) return undefined;
    if (size === 0) return { text: Buffer.concat(parts).toString('utf8'), consumed: lineEnd + 4 };
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
