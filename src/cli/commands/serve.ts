/**
 * `conda-resolve serve`: the HTTP service (docs in README.md). Flags win over their
 * `CONDA_RESOLVE_*` variables; logs are JSON lines on standard error. Returns once the server has
 * shut down (SIGTERM/SIGINT), with status 0; 2 for a bad flag or setting (a host this machine
 * cannot listen on is one), 1 when it cannot start (the port is taken, say).
 */
import { createServer } from 'node:net';
import { CondaResolveError, userMessage } from '../../errors.js';
import { ConfigError, loadConfig, type ServeFlags } from '../../http/config.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, writeError, type CliIO } from '../io.js';
import type { CommandArgs } from '../args.js';
import type { SERVE_OPTIONS } from '../command-table.js';
import { removeTempFilesOnSignal } from '../signal-cleanup.js';

export const SERVE_USAGE = `usage: conda-resolve serve [--host HOST] [--port PORT] [--allow-channel CHANNEL]...
                           [--allow-local-channels] [--cache-dir DIR] [--prewarm CHANNEL/PLATFORM]...
                           [options]

Serve the resolve API over HTTP: POST/GET /resolve, /formats, /platforms, /version, /health,
/openapi.json and a page to try requests at /docs. Every flag has a variable; the flag wins.

      --host HOST              address to listen on (CONDA_RESOLVE_HOST; default 127.0.0.1)
      --port PORT              port; 0 picks a free one (CONDA_RESOLVE_PORT; default 8000)
      --allow-channel CHANNEL  channel name or URL requests may use, besides the default channels
                               (always allowed); repeatable; * allows any public https channel
                               (CONDA_RESOLVE_ALLOWED_CHANNELS, comma-separated)
      --allow-local-channels   allow file:// and local path channels
                               (CONDA_RESOLVE_ALLOW_LOCAL_CHANNELS=1)
      --cache-dir DIR          repodata cache (CONDA_RESOLVE_CACHE_DIR; default: the user cache)
      --default-channel CH     channel used when a request names none; repeatable
                               (CONDA_RESOLVE_DEFAULT_CHANNELS; default conda-forge)
      --prewarm CH/PLATFORM    load this channel's index before serving; repeatable
                               (CONDA_RESOLVE_PREWARM, comma-separated)
      --body-limit SIZE        largest request body (CONDA_RESOLVE_BODY_LIMIT; default 1MiB)
      --max-specs N            specs per request (CONDA_RESOLVE_MAX_SPECS; default 200)
      --allow-index URL        PyPI index requests may use besides https://pypi.org/simple
                               (CONDA_RESOLVE_ALLOWED_INDEXES)
      --max-pypi-projects N    PyPI projects one request may fetch (default 500)
      --max-platforms N        platforms per request (CONDA_RESOLVE_MAX_PLATFORMS; default 8)
      --max-channels N         channels per request (CONDA_RESOLVE_MAX_CHANNELS; default 8)
      --timeout SECONDS        time limit per request (CONDA_RESOLVE_TIMEOUT; default 60)
      --rate-limit N           requests per minute per client address, 0 for none
                               (CONDA_RESOLVE_RATE_LIMIT; default 300)
      --workers N              solver threads (CONDA_RESOLVE_WORKERS; default: CPU count)
      --max-queue N            solves waiting for a thread before 503 (CONDA_RESOLVE_MAX_QUEUE;
                               default 64)
      --solve-cache N          solve outcomes remembered, 0 for none (CONDA_RESOLVE_SOLVE_CACHE;
                               default 256)
      --cors-origin ORIGIN     allow browser requests from ORIGIN (or *); repeatable
                               (CONDA_RESOLVE_CORS_ORIGINS; default: CORS off)
      --trust-proxy            take the client address from X-Forwarded-For
                               (CONDA_RESOLVE_TRUST_PROXY=1)
      --log-level LEVEL        fatal, error, warn, info, debug, trace or silent
                               (CONDA_RESOLVE_LOG_LEVEL; default info)
      --max-repodata-size SIZE stop a channel subdir whose repodata decodes to more than SIZE
                               (CONDA_RESOLVE_MAX_REPODATA_SIZE; default 1GiB, at most 2GiB)
      --max-request-decoding SIZE
                               repodata one request may be decoding at once; past it that
                               request's loads fail and other requests' go on, within the
                               server's budget of 4 x --max-repodata-size
                               (CONDA_RESOLVE_MAX_REQUEST_DECODING; default 2 x --max-repodata-size)
      --download-timeout SECONDS
                               longest one repodata download may take; a download also fails
                               when it receives under 1 KiB in 30 s (CONDA_RESOLVE_DOWNLOAD_TIMEOUT;
                               default 600)
      --condarc FILE           network settings from this .condarc: proxy_servers (and the
                               proxy variables), ssl_verify, remote_* timeouts and retries,
                               mirrors (each mirror must be allowed too); stored credentials only
                               from RATTLER_AUTH_FILE / NETRC when set; channels stay those
                               allowed above (CONDA_RESOLVE_CONDARC)
      --redis URL              share the solve cache, job queue and rate limit with other replicas
                               through Redis; solves then run on conda-resolve worker processes
                               (CONDA_RESOLVE_REDIS_URL; default: none, this process solves)
      --osv-db PATH            POST /audit checks against this OSV database: OSV's all.zip or a
                               folder of OSV JSON files, read once (CONDA_RESOLVE_OSV_DB)
      --osv-api URL            or asks this OSV-compatible API (CONDA_RESOLVE_OSV_API); without
                               either, /audit answers 404
      --pypi-mapping FILE      POST /audit maps conda-forge packages to PyPI names with this file
                               (parselmouth's compressed_mapping.json or pixi's conda-pypi-map
                               format; CONDA_RESOLVE_SERVE_PYPI_MAPPING); the server fetches none,
                               so without it conda-forge packages are reported as not covered
  -h, --help                   show this help
`;

export const usage = SERVE_USAGE;

export async function run({ values }: CommandArgs<typeof SERVE_OPTIONS>, io: CliIO): Promise<number> {
  const { help: _help, ...flags } = values;
  let config;
  try {
    config = loadConfig(io.env, flags satisfies ServeFlags);
  } catch (error) {
    writeError(io, error instanceof ConfigError ? error.message : userMessage(error));
    return EXIT_USAGE;
  }

  const address: ListenAddress = {
    host: config.host,
    port: config.port,
    hostFrom: setting(flags.host, io.env.CONDA_RESOLVE_HOST, '--host', 'CONDA_RESOLVE_HOST'),
    portFrom: setting(flags.port, io.env.CONDA_RESOLVE_PORT, '--port', 'CONDA_RESOLVE_PORT'),
  };
  // The address is tried before anything starts: a bad host should not wait for workers to start
  // or for --prewarm to load channels, and should not read as a failed solve.
  const refused = hostSyntaxProblem(address) ?? (await tryListen(address));
  if (refused) {
    writeError(io, refused.message);
    return refused.status;
  }

  // Loaded here, not at the top: `conda-resolve --help` should not pay for fastify and pino.
  const { startServer } = await import('../../http/server.js');
  // Until the server listens (and its own graceful shutdown takes the signals), a stop signal ends
  // a --prewarm download at once, removing its temp files.
  const stopSignalCleanup = removeTempFilesOnSignal();
  let server;
  try {
    server = await startServer(config, { env: io.env, cwd: io.cwd, logStream: io.stderr, handleSignals: true });
    stopSignalCleanup();
  } catch (error) {
    stopSignalCleanup();
    // The port can still be taken between the check and the server's own listen.
    const problem = listenProblem(error, address);
    writeError(io, problem ? problem.message : `cannot start the server: ${startFailure(error)}`);
    return problem ? problem.status : EXIT_FAILED;
  }
  await server.closed;
  return EXIT_OK;
}

interface ListenAddress {
  readonly host: string;
  readonly port: number;
  /** How the user set them, for messages: `--host`, `CONDA_RESOLVE_HOST`, or null for the default. */
  readonly hostFrom: string | null;
  readonly portFrom: string | null;
}

interface Refusal {
  readonly message: string;
  readonly status: number;
}

/** The flag when given, else the variable when set (an empty one counts as unset), else null. */
function setting(flag: string | undefined, variable: string | undefined, flagName: string, envName: string): string | null {
  if (flag !== undefined) return flagName;
  return variable !== undefined && variable.trim() !== '' ? envName : null;
}

/** `--host 999.1.1.1`, `CONDA_RESOLVE_HOST=999.1.1.1`, or `host 127.0.0.1 (the default)`. */
function named(from: string | null, kind: 'host' | 'port', value: string | number): string {
  if (from === null) return `${kind} ${value} (the default)`;
  return from.startsWith('--') ? `${from} ${value}` : `${from}=${value}`;
}

const NOT_LISTENABLE = 'not an address this machine can listen on';

/** Hosts that are no address or host name at all, told without a lookup. */
function hostSyntaxProblem({ host, hostFrom }: ListenAddress): Refusal | undefined {
  const what = named(hostFrom, 'host', host);
  const bracketed = /^\[([0-9a-fA-F:.]+(?:%[\w.-]+)?)\]$/.exec(host);
  if (bracketed) {
    return { message: `${what}: ${NOT_LISTENABLE} (write an IPv6 address without brackets: ${bracketed[1]})`, status: EXIT_USAGE };
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host) && host.split('.').some((part) => Number(part) > 255)) {
    return { message: `${what}: ${NOT_LISTENABLE} (not an IPv4 address: each number is 0 to 255)`, status: EXIT_USAGE };
  }
  if (/[\s/@?#]/.test(host) || host.includes('://')) {
    return {
      message: `${what}: ${NOT_LISTENABLE} (give an IP address or a host name, such as 127.0.0.1, ::1 or 0.0.0.0)`,
      status: EXIT_USAGE,
    };
  }
  return undefined;
}

/** Binds the address for a moment (port 0 stays 0) and says why it cannot be listened on, if so. */
function tryListen(address: ListenAddress): Promise<Refusal | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error) =>
      resolve(listenProblem(error, address) ?? { message: `cannot start the server: ${startFailure(error)}`, status: EXIT_FAILED }),
    );
    probe.listen({ host: address.host, port: address.port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

/** What a listen error says about the host or port, naming the setting and its value. */
function listenProblem(error: unknown, { host, port, hostFrom, portFrom }: ListenAddress): Refusal | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const onHost = (why: string): Refusal => ({
    message: `${named(hostFrom, 'host', host)}: ${NOT_LISTENABLE} (${why})`,
    status: EXIT_USAGE,
  });
  switch (code) {
    case 'ENOTFOUND':
      return onHost('ENOTFOUND: not an IP address, and no host has that name');
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
      return onHost(`${code}: the name could not be looked up`);
    case 'EADDRNOTAVAIL':
      return onHost('EADDRNOTAVAIL: no network interface of this machine has that address');
    case 'EAFNOSUPPORT':
      return onHost('EAFNOSUPPORT: this machine does not support that address family');
    case 'EINVAL':
      return onHost(
        host.toLowerCase().startsWith('fe80:') ? 'EINVAL: a link-local address needs its interface, such as fe80::1%eth0' : 'EINVAL',
      );
    case 'EADDRINUSE':
      return {
        message: `${named(portFrom, 'port', port)}: already in use on ${host} (EADDRINUSE); stop what listens there or choose another port (--port 0 picks a free one)`,
        status: EXIT_FAILED,
      };
    case 'EACCES':
      return {
        message: `${named(portFrom, 'port', port)}: no permission to listen on it (EACCES)${port > 0 && port < 1024 ? '; ports below 1024 need root or CAP_NET_BIND_SERVICE' : ''}`,
        status: EXIT_FAILED,
      };
    default:
      return undefined;
  }
}

/** An unexpected start-up failure: the typed error's message, else the error's own (never "the solve failed"). */
function startFailure(error: unknown): string {
  if (error instanceof CondaResolveError) return userMessage(error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
