/**
 * `conda-resolve serve`: the HTTP service (DECISIONS.md section 6). Flags win over their
 * `CONDA_RESOLVE_*` variables; logs are JSON lines on standard error. Returns once the server has
 * shut down (SIGTERM/SIGINT), with status 0; 2 for a bad flag or setting, 1 when it cannot start.
 */
import { parseArgs } from 'node:util';
import { userMessage } from '../errors.js';
import { ConfigError, loadConfig, type ServeFlags } from '../http/config.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, writeError, type CliIO } from './io.js';

export const SERVE_USAGE = `usage: conda-resolve serve [--host HOST] [--port PORT] [--allow-channel CHANNEL]...
                           [--allow-local-channels] [--cache-dir DIR] [--prewarm CHANNEL/PLATFORM]...
                           [options]

Serve the resolve API over HTTP: POST/GET /resolve, /formats, /platforms, /version, /health,
/openapi.json and a page to try requests at /docs. Every flag has a variable; the flag wins.

      --host HOST              address to listen on (CONDA_RESOLVE_HOST; default 127.0.0.1)
      --port PORT              port; 0 picks a free one (CONDA_RESOLVE_PORT; default 8000)
      --allow-channel CHANNEL  channel name or URL requests may use; repeatable; * allows any
                               public https channel (CONDA_RESOLVE_ALLOWED_CHANNELS, comma-separated;
                               default: the default channels)
      --allow-local-channels   allow file:// and local path channels
                               (CONDA_RESOLVE_ALLOW_LOCAL_CHANNELS=1)
      --cache-dir DIR          repodata cache (CONDA_RESOLVE_CACHE_DIR; default: the user cache)
      --default-channel CH     channel used when a request names none; repeatable
                               (CONDA_RESOLVE_DEFAULT_CHANNELS; default conda-forge)
      --prewarm CH/PLATFORM    load this channel's index before serving; repeatable
                               (CONDA_RESOLVE_PREWARM, comma-separated)
      --body-limit SIZE        largest request body (CONDA_RESOLVE_BODY_LIMIT; default 1MiB)
      --max-specs N            specs per request (CONDA_RESOLVE_MAX_SPECS; default 200)
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
  -h, --help                   show this help
`;

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'allow-channel': { type: 'string', multiple: true },
  'allow-local-channels': { type: 'boolean' },
  'cache-dir': { type: 'string' },
  'default-channel': { type: 'string', multiple: true },
  prewarm: { type: 'string', multiple: true },
  'body-limit': { type: 'string' },
  'max-specs': { type: 'string' },
  'max-platforms': { type: 'string' },
  'max-channels': { type: 'string' },
  timeout: { type: 'string' },
  'rate-limit': { type: 'string' },
  workers: { type: 'string' },
  'max-queue': { type: 'string' },
  'solve-cache': { type: 'string' },
  'cors-origin': { type: 'string', multiple: true },
  'trust-proxy': { type: 'boolean' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function serveCommand(argv: readonly string[], io: CliIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    writeError(io, `${(error as Error).message.replace(/\. To specify a positional argument.*$/s, '')}; see conda-resolve serve --help`);
    return EXIT_USAGE;
  }
  if (values.help) {
    io.stdout.write(SERVE_USAGE);
    return EXIT_OK;
  }
  const { help: _help, ...flags } = values;
  let config;
  try {
    config = loadConfig(io.env, flags satisfies ServeFlags);
  } catch (error) {
    writeError(io, error instanceof ConfigError ? error.message : userMessage(error));
    return EXIT_USAGE;
  }

  // Loaded here, not at the top: `conda-resolve --help` should not pay for fastify and pino.
  const { startServer } = await import('../http/server.js');
  let server;
  try {
    server = await startServer(config, { env: io.env, cwd: io.cwd, logStream: io.stderr, handleSignals: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? `port ${config.port} is already in use` : code === 'EACCES' ? `no permission to listen on port ${config.port}` : code === 'EADDRNOTAVAIL' ? `address ${config.host} is not available on this machine` : userMessage(error);
    writeError(io, `cannot start the server: ${why}`);
    return EXIT_FAILED;
  }
  await server.closed;
  return EXIT_OK;
}
