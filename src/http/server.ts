/**
 * The running server: wires the real dependencies (repodata store behind the channel policy, the
 * worker pool with its solve cache, the exporter registry, a pino logger), pre-warms the channel
 * indexes the operator named, listens, and shuts down gracefully.
 *
 * Shutdown (SIGTERM or SIGINT, or `close()`): the connections already waiting to be accepted are
 * taken (at least 200 ms, at most 5 s), then the listening socket closes and new connections are
 * refused; requests that arrive meanwhile or on open connections (including those already sent but
 * not yet read) get a 503 with `Connection: close`; requests in flight finish (they are bounded by
 * the request time limit); once nothing is in progress the connections are closed with a FIN
 * (`connection-drain.ts`) and the pool's workers stop. No request a client has sent is reset. A
 * second signal, or the grace period running out, closes what is left.
 */
import { PypiIndexClient } from '../../repodata/pypi/client.js';
import type { PreparedPypi } from '../pypi/request.js';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { Agent } from 'undici';
import { defaultCacheDir, RepodataStore } from '../../repodata/store.js';
import { parseChannel, redactSecrets } from '../../vocabulary/channel.js';
import { hostSubdir } from '../../vocabulary/platform.js';
import { loadRegistry, pluginLoadedLine } from '../exporters/index.js';
import { userMessage } from '../errors.js';
import { SolvePool } from '../solving/solve-pool.js';
import type { PlatformSolver } from '../solving/types.js';
import { TOOL_VERSION } from '../version.js';
import { buildApp } from './app.js';
import type { Clock, Lifecycle } from './app-context.js';
import { createChannelPolicy, type ChannelPolicy } from './channel-policy.js';
import { trackConnections } from './connection-drain.js';
import type { PrewarmTarget, ServerConfig } from './config.js';
import { CachingSolver } from '../solving/solve-cache.js';
import { serverNetwork } from './network-config.js';
import type { Replica } from '../cluster/replica.js';
import { allowlistLabel, Metrics } from './metrics.js';

const LISTEN_BACKLOG = 4096;

export interface StartServerOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Where JSON log lines go; default standard error. Ignored when `logger` is given. */
  readonly logStream?: DestinationStream;
  readonly logger?: Logger;
  /** Install SIGTERM/SIGINT handlers that shut the server down gracefully (the CLI does). */
  readonly handleSignals?: boolean;
  /** The time written into lock files; default the system clock (tests fix it). */
  readonly clock?: Clock;
}

export interface RunningServer {
  readonly app: FastifyInstance;
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  readonly port: number;
  readonly logger: Logger;
  /** Stops accepting, lets requests in flight finish (up to the grace period), stops the workers. */
  close(reason?: string): Promise<void>;
  /** Settles once the server has fully stopped. */
  readonly closed: Promise<void>;
}

/** The app with its real dependencies wired, not listening and with no worker started yet. */
export interface ServerApp {
  readonly app: FastifyInstance;
  readonly logger: Logger;
  readonly store: RepodataStore;
  readonly pool: SolvePool;
  readonly policy: ChannelPolicy;
  readonly lifecycle: Lifecycle;
  /** With --redis: the queue solver and Redis link of this replica. */
  readonly replica: Replica | undefined;
}

/**
 * Everything `startServer` runs except pre-warming, listening and shutdown: what tests `inject()`
 * requests into. Close it with `closeServerApp`.
 */
export async function buildServerApp(config: ServerConfig, options: StartServerOptions): Promise<ServerApp> {
  const logger =
    options.logger ??
    pino(
      {
        level: config.logLevel,
        base: { service: 'conda-resolve' },
        // Headers are never logged by us; this guards against a future `req` serializer doing it.
        redact: ['req.headers.authorization', 'req.headers.cookie'],
      },
      options.logStream ?? pino.destination({ fd: 2, sync: false }),
    );

  const policy = createChannelPolicy({
    allowed: config.allowedChannels,
    allowLocal: config.allowLocalChannels,
    channelAlias: options.env.CONDA_CHANNEL_ALIAS,
    cwd: options.cwd,
  });
  const metrics = new Metrics({ channelLabel: allowlistLabel(policy.allowlistEntry) });
  const store = new RepodataStore({
    onProgress: metrics.repodata,
    cacheDir: config.cacheDir ?? defaultCacheDir(options.env),
    offline: false,
    refresh: false,
    // Workers read indexes from shared memory.
    indexBytes: 'memory',
    maxRepodataBytes: config.maxRepodataBytes,
    // The global decoding budget: four subdirs at the size cap at once (8 platforms of conda-forge
    // decode to about 2 GiB), so a hostile channel's bombs cannot fill the disk with temp files.
    downloadRules: { maxBodySeconds: config.downloadTimeoutMs / 1000, maxDecodingBytes: 4 * config.maxRepodataBytes },
    checkUrl: (url: URL) => policy.checkUrl(url.href),
    // Connections resolve host names through the policy too, so a host that changes its answer
    // after the check (DNS rebinding) is still refused a private address.
    ...(config.condarc !== undefined
      ? serverNetwork(config.condarc, options.env, policy.lookup)
      : {
          dispatcher: new Agent({
            connections: 16,
            headersTimeout: 60_000,
            bodyTimeout: 60_000,
            connect: { timeout: 15_000, lookup: policy.lookup },
          }),
        }),
  });
  const pool = new SolvePool({ size: config.workers, maxQueue: config.maxQueue });
  // With --redis solves go to `conda-resolve worker` processes; the pool then stays unstarted.
  // Loaded only with --redis: bullmq and ioredis are a quarter of a single process's start-up CPU.
  const replica = config.redisUrl
    ? (await import('../cluster/replica.js')).startReplica(config.redisUrl, store, {
        channelAlias: options.env.CONDA_CHANNEL_ALIAS,
        // Workers fetch under this replica's policy, redirects and base_url included.
        policy: { allowed: [...policy.allowlist, ...(policy.allowsAnyPublic ? ['*'] : [])], allowLocal: config.allowLocalChannels },
        onRedisError: (detail) => logger.warn({ detail }, 'Redis unreachable'),
        events: { cache: (hit) => metrics.redisLookup(hit), job: (waitMs) => metrics.queueWait(waitMs) },
      })
    : undefined;
  const backend: PlatformSolver = metrics.timed(replica?.solver ?? pool);
  const cache = config.solveCacheEntries > 0 ? new CachingSolver(backend, { maxEntries: config.solveCacheEntries }) : undefined;
  const solver: PlatformSolver = cache ?? backend;

  const { registry, warnings, plugins } = await loadRegistry({ env: options.env, cwd: options.cwd });
  for (const warning of warnings) logger.warn(warning);
  for (const plugin of plugins)
    logger.info(
      { plugin: plugin.name, version: plugin.version, location: plugin.location, formats: plugin.exporters },
      pluginLoadedLine(plugin),
    );

  const lifecycle: Lifecycle = { closing: false };
  const hostPlatform = hostSubdir(process.platform, process.arch);
  // PyPI: index URLs pass the allowlist per request (routes/resolve.ts); files the pages link to
  // are fetched through the policy's lookup, which refuses private addresses.
  const pypiAgent = new Agent({
    connections: 16,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
    connect: { timeout: 15_000, lookup: policy.lookup },
  });
  const pypiClient = (pypi: PreparedPypi): PypiIndexClient =>
    new PypiIndexClient({
      indexUrl: pypi.indexUrl,
      extraIndexUrls: pypi.extraIndexUrls,
      strategy: pypi.indexStrategy,
      cacheDir: config.cacheDir ?? defaultCacheDir(options.env),
      dispatcher: pypiAgent,
      downloadRules: { maxBodySeconds: config.downloadTimeoutMs / 1000 },
    });
  const app = buildApp(config, {
    store,
    solver,
    registry,
    policy,
    pypiClient,
    logger,
    env: options.env,
    cwd: options.cwd,
    hostPlatform,
    // The operator's OSV API goes through serve --condarc's proxies and TLS, as the channels do
    // (its URL is the operator's, so the channel policy's address checks do not apply to it).
    ...(config.osvApi !== undefined && config.condarc !== undefined
      ? { osvDispatcher: serverNetwork(config.condarc, options.env, undefined).dispatcher }
      : {}),
    // With --redis the local pool is never started: /health and /metrics report the shared queue.
    pool: replica ? { size: 0, running: 0, queued: 0, maxQueue: 0 } : pool,
    solveCache: cache,
    metrics,
    lifecycle,
    clock: options.clock,
    cluster: replica,
  });
  return { app, logger, store, pool, policy, lifecycle, replica };
}

/** Stops what `buildServerApp` made: the app, then the workers and the store. */
export async function closeServerApp({ app, pool, store, replica }: ServerApp): Promise<void> {
  await app.close();
  await Promise.all([pool.close(), store.close(), replica?.close()]);
}

export async function startServer(config: ServerConfig, options: StartServerOptions): Promise<RunningServer> {
  const { app, logger, store, pool, policy, lifecycle, replica } = await buildServerApp(config, options);
  if (!replica) pool.warm();

  // Connections are tracked from the start so that shutdown can answer what they already carry.
  // The debug line is what the shutdown test waits for before it expects a refused connection.
  const connections = trackConnections(app.server, {
    onListenerClosed: () => logger.debug('listening socket closed: new connections are refused'),
  });

  try {
    await prewarm(config.prewarm, { store, policy, logger, env: options.env, cwd: options.cwd });
    // A deep accept queue (the kernel caps it at net.core.somaxconn): with Node's 511, a burst of
    // connections overflows it, and clients whose handshake was dropped retry a second later, into
    // a listening socket that a shutdown may have closed meanwhile.
    await app.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG });
  } catch (error) {
    await pool.close();
    await store.close();
    await replica?.close();
    await app.close().catch(() => undefined);
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  logger.info(
    {
      allowed_channels: config.allowedChannels.map((c) => redactSecrets(c)),
      default_channels: config.defaultChannels.map((c) => redactSecrets(c)),
      local_channels: config.allowLocalChannels,
    },
    `channels allowed: ${describeAllowed(config)}`,
  );
  logger.info(
    {
      url,
      version: TOOL_VERSION,
      workers: pool.size,
      max_queue: config.maxQueue,
      allowlist: policy.allowsAnyPublic ? [...policy.allowlist, '*'] : policy.allowlist,
      local_channels: config.allowLocalChannels,
    },
    `conda-resolve serve listening on ${url}`,
  );

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const close = (reason = 'close requested'): Promise<void> => {
    if (closing) {
      // A second request to stop: do not wait for requests in flight any longer.
      logger.warn('second stop request: closing the remaining connections');
      connections.closeAll();
      return closing;
    }
    lifecycle.closing = true;
    logger.info({ reason, ...connections.stats() }, 'shutting down: finishing requests in flight, refusing new ones');
    const force = setTimeout(() => {
      logger.warn(connections.stats(), 'shutdown grace period over: closing the remaining connections');
      connections.closeAll();
    }, config.shutdownGraceMs);
    force.unref();
    // Connections first (each request already sent gets its answer or the 503), then fastify's
    // own close (its hooks; the listening socket is already closed), then the workers.
    closing = connections
      .drain()
      .then(() => app.close())
      .then(async () => {
        await Promise.all([pool.close(), store.close(), replica?.close()]);
      })
      .finally(() => {
        clearTimeout(force);
        if (options.handleSignals) {
          process.off('SIGTERM', onSignal);
          process.off('SIGINT', onSignal);
        }
        logger.info('stopped');
        logger.flush?.();
        resolveClosed();
      });
    return closing;
  };
  const onSignal = (signal: NodeJS.Signals) => void close(signal);
  if (options.handleSignals) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }

  return { app, url, port, logger, close, closed };
}

/** `conda-forge, bioconda, any public https channel, local channels (...)`, for the start-up log. */
function describeAllowed(config: ServerConfig): string {
  const parts = config.allowedChannels.filter((channel) => channel !== '*').map((channel) => redactSecrets(channel));
  if (config.allowedChannels.includes('*')) parts.push('any public https channel');
  if (config.allowLocalChannels) parts.push('local channels');
  return `${parts.join(', ')} (the default channels, and what --allow-channel or CONDA_RESOLVE_ALLOWED_CHANNELS adds)`;
}

/**
 * Loads the named channel/platform indexes (and their noarch) so the first requests find them in
 * memory. A target that cannot be loaded is logged and skipped: the server still starts.
 */
async function prewarm(
  targets: readonly PrewarmTarget[],
  deps: { store: RepodataStore; policy: ChannelPolicy; logger: Logger; env: Readonly<Record<string, string | undefined>>; cwd: string },
): Promise<void> {
  for (const target of targets) {
    const started = performance.now();
    try {
      const channel = parseChannel(target.channel, { alias: deps.env.CONDA_CHANNEL_ALIAS, cwd: deps.cwd });
      await deps.policy.checkUrl(channel.baseUrl);
      const indexes = await deps.store.prepare([channel], [target.platform, 'noarch'], []);
      const records = indexes.reduce((sum, index) => sum + index.recordCount, 0);
      deps.logger.info(
        { channel: channel.name, platform: target.platform, records, ms: Math.round(performance.now() - started) },
        'pre-warmed channel index',
      );
    } catch (error) {
      deps.logger.warn(
        { channel: redactSecrets(target.channel), platform: target.platform, error: userMessage(error) },
        'cannot pre-warm channel index',
      );
    }
  }
}
