/**
 * Credentials for channel hosts that the URLs do not carry: `~/.netrc` (basic auth by machine) and
 * the JSON authentication file pixi and rattler use (`RATTLER_AUTH_FILE`), keyed by host (or
 * `*.domain`, or host plus a path prefix) with one of `{"BearerToken": "..."}`,
 * `{"BasicHTTP": {"username": "...", "password": "..."}}` or `{"CondaToken": "..."}`.
 * Credentials in the URL itself (`user:password@`, `/t/<token>/`) win over both; the auth file
 * wins over `.netrc`. Nothing here is ever printed: errors name the file and the host only.
 */

export type Credential =
  | { readonly kind: 'bearer'; readonly token: string }
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'conda-token'; readonly token: string };

/** A credentials file that cannot be read; the message names the file and never its contents. */
export class CredentialsFileError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`Cannot read credentials file "${path}": ${reason}`);
    this.path = path;
  }
}

/** `.netrc`: `machine <host> login <user> password <secret>` (and `default`), whitespace separated. */
export function parseNetrc(text: string): Map<string, Credential> {
  const tokens = text.split(/\s+/).filter((t) => t !== '');
  const out = new Map<string, Credential>();
  let host: string | null = null;
  let login = '';
  let password = '';
  const flush = (): void => {
    if (host !== null && (login !== '' || password !== '')) out.set(host, { kind: 'basic', username: login, password });
    host = null;
    login = '';
    password = '';
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === 'machine') {
      flush();
      host = (tokens[++i] ?? '').toLowerCase();
    } else if (t === 'default') {
      flush();
      host = '*';
    } else if (t === 'login') login = tokens[++i] ?? '';
    else if (t === 'password') password = tokens[++i] ?? '';
    else if (t === 'account') i++;
    else if (t === 'macdef') {
      // A macro runs to the next blank line; nothing in it is a credential.
      flush();
      break;
    }
  }
  flush();
  return out;
}

/** The rattler/pixi authentication file. */
export function parseAuthFile(text: string, path: string): Map<string, Credential> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new CredentialsFileError(path, 'not valid JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new CredentialsFileError(path, 'expected a JSON object keyed by host');
  const out = new Map<string, Credential>();
  for (const [host, entry] of Object.entries(doc as Record<string, unknown>)) {
    const e = entry as Record<string, unknown> | null;
    const bad = (): never => {
      throw new CredentialsFileError(
        path,
        `the entry for "${host}" is not {"BearerToken": ...}, {"BasicHTTP": {"username", "password"}} or {"CondaToken": ...}`,
      );
    };
    if (typeof e !== 'object' || e === null) bad();
    if (typeof e!.BearerToken === 'string') out.set(host.toLowerCase(), { kind: 'bearer', token: e!.BearerToken });
    else if (typeof e!.CondaToken === 'string') out.set(host.toLowerCase(), { kind: 'conda-token', token: e!.CondaToken });
    else if (typeof e!.BasicHTTP === 'object' && e!.BasicHTTP !== null) {
      const b = e!.BasicHTTP as Record<string, unknown>;
      if (typeof b.username !== 'string' || typeof b.password !== 'string') bad();
      out.set(host.toLowerCase(), { kind: 'basic', username: b.username as string, password: b.password as string });
    } else bad();
  }
  return out;
}

export class CredentialStore {
  readonly #authFile: Map<string, Credential>;
  readonly #netrc: Map<string, Credential>;

  constructor(sources: { authFile?: Map<string, Credential>; netrc?: Map<string, Credential> } = {}) {
    this.#authFile = sources.authFile ?? new Map();
    this.#netrc = sources.netrc ?? new Map();
  }

  get empty(): boolean {
    return this.#authFile.size === 0 && this.#netrc.size === 0;
  }

  /** The credential for a URL: the auth file (longest host+path key, then `*.domain`), then `.netrc`. */
  lookup(url: URL): Credential | undefined {
    const host = url.host.toLowerCase();
    const hostname = url.hostname.toLowerCase();
    const segments = url.pathname.split('/').filter((s) => s !== '');
    for (let n = segments.length; n >= 1; n--) {
      const hit = this.#authFile.get(`${host}/${segments.slice(0, n).join('/')}`);
      if (hit) return hit;
    }
    const direct = this.#authFile.get(host) ?? this.#authFile.get(hostname);
    if (direct) return direct;
    const parts = hostname.split('.');
    for (let i = 1; i < parts.length; i++) {
      const hit = this.#authFile.get(`*.${parts.slice(i).join('.')}`);
      if (hit) return hit;
    }
    return this.#netrc.get(hostname) ?? this.#netrc.get(host) ?? this.#netrc.get('*');
  }
}

/**
 * Apply a credential to a request URL that carries none: an `Authorization` header, or for a conda
 * token the `/t/<token>` segment at the start of the path (where anaconda.org reads it).
 */
export function applyCredential(url: string, credential: Credential | undefined): { url: string; authorization?: string } {
  if (credential === undefined) return { url };
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '' || /\/t\/[^/]+\//.test(parsed.pathname)) return { url };
  switch (credential.kind) {
    case 'bearer':
      return { url, authorization: `Bearer ${credential.token}` };
    case 'basic':
      return { url, authorization: `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}` };
    case 'conda-token':
      parsed.pathname = `/t/${encodeURIComponent(credential.token)}${parsed.pathname}`;
      return { url: parsed.href };
  }
}
