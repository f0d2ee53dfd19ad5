/**
 * Every command and option of the command line in one table: `main.ts` dispatches on it, `args.ts`
 * parses each command's argv with its option set (and suggests the closest known flag), and
 * `commands/completion.ts` writes shell completion from it. Importing it loads no command: each
 * entry's `load` imports the command's module when it runs.
 */
import type { CommandArgs } from './args.js';
import type { CliIO } from './io.js';

/** What an option's value is, for shell completion. */
export type ValueKind = 'file' | 'dir' | 'platform' | 'format' | 'channel' | 'priority' | 'shell' | 'text';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** One line for completion menus (zsh, fish). */
  readonly help: string;
  readonly value?: ValueKind;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

export const RESOLVE_OPTIONS = {
  channel: { type: 'string', short: 'c', multiple: true, help: 'channel, in priority order', value: 'channel' },
  platform: { type: 'string', short: 'p', multiple: true, help: 'target platform', value: 'platform' },
  subdir: { type: 'string', multiple: true, help: 'target platform (conda spelling)', value: 'platform' },
  file: { type: 'string', short: 'f', multiple: true, help: 'environment.yml, .txt, @EXPLICIT, a lock or a pixi manifest', value: 'file' },
  environment: { type: 'string', short: 'e', help: 'environment of a pixi.lock or pixi manifest', value: 'text' },
  lock: { type: 'string', help: 'a previous lock to stay close to', value: 'file' },
  update: { type: 'string', multiple: true, help: 'with --lock: solve this package afresh', value: 'text' },
  check: { type: 'boolean', help: 'with --lock: does the lock satisfy the request?' },
  diff: { type: 'boolean', help: 'with --lock: print what the solve changes' },
  format: { type: 'string', help: 'exporter name or alias', value: 'format' },
  output: { type: 'string', short: 'o', help: 'write the result to this file', value: 'file' },
  'channel-priority': { type: 'string', help: 'strict, flexible or disabled', value: 'priority' },
  'exclude-newer': { type: 'string', help: 'ignore packages published after this date', value: 'text' },
  'virtual-package': { type: 'string', multiple: true, help: 'add or replace a virtual package', value: 'text' },
  pypi: { type: 'string', multiple: true, help: 'a PyPI requirement (PEP 508), solved with the conda specs', value: 'text' },
  'index-url': { type: 'string', help: 'PyPI index (default https://pypi.org/simple)', value: 'text' },
  'extra-index-url': { type: 'string', multiple: true, help: 'another PyPI index', value: 'text' },
  'find-links': { type: 'string', multiple: true, help: 'a folder of wheels', value: 'dir' },
  'index-strategy': { type: 'string', help: 'first-index, unsafe-first-match or unsafe-best-match', value: 'text' },
  pre: { type: 'boolean', help: 'allow PyPI pre-releases' },
  prerelease: { type: 'string', help: 'if-necessary-or-explicit, allow or disallow', value: 'text' },
  resolution: { type: 'string', help: 'highest, lowest or lowest-direct', value: 'text' },
  'pypi-mapping': { type: 'string', multiple: true, help: 'conda-to-PyPI name map (JSON file or URL)', value: 'file' },
  'cache-dir': { type: 'string', help: 'repodata cache directory', value: 'dir' },
  offline: { type: 'boolean', help: 'use cached repodata only' },
  refresh: { type: 'boolean', help: 'revalidate cached repodata now' },
  timeout: { type: 'string', help: 'time limit per platform, in seconds', value: 'text' },
  'max-repodata-size': { type: 'string', help: 'largest decoded repodata per subdir', value: 'text' },
  quiet: { type: 'boolean', short: 'q', help: 'no progress display' },
  'no-progress': { type: 'boolean', help: 'no progress display (pixi and conda spelling)' },
  'override-channels': { type: 'boolean', help: 'ignore configured channels' },
  verbose: { type: 'boolean', short: 'v', multiple: true, help: 'log requests; twice: timings and cache hits' },
  json: { type: 'boolean', help: 'native JSON output (the default); with --diff, the changes as JSON' },
  'dry-run': { type: 'boolean', help: 'solve and print, write no file' },
  name: { type: 'string', short: 'n', help: 'environment name (shown in the summary only)', value: 'text' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const satisfies OptionTable;

/** The resolve options `tree`, `why` and `why-not` read, and their own. */
export const INSPECT_OPTIONS = {
  channel: RESOLVE_OPTIONS.channel,
  platform: RESOLVE_OPTIONS.platform,
  subdir: RESOLVE_OPTIONS.subdir,
  file: RESOLVE_OPTIONS.file,
  environment: RESOLVE_OPTIONS.environment,
  lock: RESOLVE_OPTIONS.lock,
  'channel-priority': RESOLVE_OPTIONS['channel-priority'],
  'exclude-newer': RESOLVE_OPTIONS['exclude-newer'],
  'virtual-package': RESOLVE_OPTIONS['virtual-package'],
  pypi: RESOLVE_OPTIONS.pypi,
  'index-url': RESOLVE_OPTIONS['index-url'],
  'extra-index-url': RESOLVE_OPTIONS['extra-index-url'],
  'find-links': RESOLVE_OPTIONS['find-links'],
  'index-strategy': RESOLVE_OPTIONS['index-strategy'],
  pre: RESOLVE_OPTIONS.pre,
  prerelease: RESOLVE_OPTIONS.prerelease,
  resolution: RESOLVE_OPTIONS.resolution,
  'pypi-mapping': RESOLVE_OPTIONS['pypi-mapping'],
  'cache-dir': RESOLVE_OPTIONS['cache-dir'],
  offline: RESOLVE_OPTIONS.offline,
  refresh: RESOLVE_OPTIONS.refresh,
  timeout: RESOLVE_OPTIONS.timeout,
  'max-repodata-size': RESOLVE_OPTIONS['max-repodata-size'],
  quiet: RESOLVE_OPTIONS.quiet,
  'no-progress': RESOLVE_OPTIONS['no-progress'],
  'override-channels': RESOLVE_OPTIONS['override-channels'],
  verbose: RESOLVE_OPTIONS.verbose,
  help: RESOLVE_OPTIONS.help,
  depth: { type: 'string', help: 'tree: levels below the requested packages', value: 'text' },
  invert: { type: 'string', help: 'tree: every path to this package, bottom-up', value: 'text' },
  json: { type: 'boolean', help: 'print JSON' },
} as const satisfies OptionTable;

export const DIFF_OPTIONS = {
  environment: { type: 'string', short: 'e', help: 'the pixi.lock environment to compare', value: 'text' },
  platform: { type: 'string', short: 'p', multiple: true, help: 'compare only these platforms', value: 'platform' },
  json: { type: 'boolean', help: 'print the changes as JSON' },
  format: { type: 'string', help: 'table (default), json or markdown', value: 'text' },
  requested: { type: 'string', multiple: true, help: 'markdown: a package the request asked for; repeatable', value: 'text' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const satisfies OptionTable;

const { depth: _depth, invert: _invert, ...SOLVE_OPTIONS } = INSPECT_OPTIONS;

/** `audit`: the resolve options `tree` reads, and its own. */
export const AUDIT_OPTIONS = {
  ...SOLVE_OPTIONS,
  db: { type: 'string', help: "OSV database: OSV's all.zip or a folder of OSV JSON files", value: 'file' },
  'osv-api': { type: 'string', help: 'URL of an OSV-compatible API (e.g. https://api.osv.dev)', value: 'text' },
  'pypi-mapping': { type: 'string', multiple: true, help: 'conda-to-PyPI names: [CHANNEL=]FILE, repeatable', value: 'file' },
  'pypi-mapping-url': {
    type: 'string',
    help: "where to fetch conda-forge's conda-to-PyPI mapping (default: parselmouth's)",
    value: 'text',
  },
  format: { type: 'string', help: 'table (default), json or sarif', value: 'text' },
  output: { type: 'string', short: 'o', help: 'write the report to this file', value: 'file' },
  'fail-on': { type: 'string', help: 'exit 1 for a finding at LOW, MODERATE, HIGH or CRITICAL or above', value: 'text' },
  json: { type: 'boolean', help: 'the report as JSON (--format json)' },
} as const satisfies OptionTable;

export const INFO_OPTIONS = {
  platform: { type: 'string', short: 'p', multiple: true, help: 'platform whose virtual packages to show', value: 'platform' },
  subdir: { type: 'string', multiple: true, help: 'platform (conda spelling)', value: 'platform' },
  channel: { type: 'string', short: 'c', multiple: true, help: 'channel, as for a resolve', value: 'channel' },
  'override-channels': { type: 'boolean', help: 'ignore configured channels' },
  'virtual-package': { type: 'string', multiple: true, help: 'add or replace a virtual package', value: 'text' },
  'cache-dir': { type: 'string', help: 'repodata cache directory', value: 'dir' },
  json: { type: 'boolean', help: 'print JSON' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const satisfies OptionTable;

export const CACHE_CLEAN_OPTIONS = {
  'cache-dir': { type: 'string', help: 'repodata cache directory', value: 'dir' },
  'dry-run': { type: 'boolean', help: 'list what would be removed, remove nothing' },
  json: { type: 'boolean', help: 'print JSON' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const satisfies OptionTable;

export const COMPLETION_OPTIONS = {
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const satisfies OptionTable;

export const LISTING_OPTIONS = {
  json: { type: 'boolean', help: 'print JSON' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const satisfies OptionTable;

/** `serve`'s options; its own help text (commands/serve.ts) describes them in full. */
export const SERVE_OPTIONS = {
  host: { type: 'string', help: 'address to listen on', value: 'text' },
  port: { type: 'string', help: 'port (0 picks a free one)', value: 'text' },
  'allow-channel': { type: 'string', multiple: true, help: 'channel the server may fetch', value: 'channel' },
  'allow-index': { type: 'string', multiple: true, help: 'PyPI index the server may fetch, besides pypi.org', value: 'text' },
  'max-pypi-projects': { type: 'string', help: 'PyPI projects one request may fetch', value: 'text' },
  'allow-local-channels': { type: 'boolean', help: 'allow file:// and local channels' },
  'cache-dir': { type: 'string', help: 'repodata cache directory', value: 'dir' },
  'default-channel': { type: 'string', multiple: true, help: 'channel used when a request names none', value: 'channel' },
  prewarm: { type: 'string', multiple: true, help: 'CHANNEL/SUBDIR to load at start', value: 'text' },
  'body-limit': { type: 'string', help: 'largest request body', value: 'text' },
  'max-specs': { type: 'string', help: 'most specs per request', value: 'text' },
  'max-platforms': { type: 'string', help: 'most platforms per request', value: 'text' },
  'max-channels': { type: 'string', help: 'most channels per request', value: 'text' },
  timeout: { type: 'string', help: 'time limit per request, in seconds', value: 'text' },
  'rate-limit': { type: 'string', help: 'requests per minute per client', value: 'text' },
  workers: { type: 'string', help: 'solve worker threads', value: 'text' },
  'max-queue': { type: 'string', help: 'solves waiting at most', value: 'text' },
  'solve-cache': { type: 'string', help: 'solve cache entries', value: 'text' },
  'cors-origin': { type: 'string', multiple: true, help: 'allowed CORS origin', value: 'text' },
  'trust-proxy': { type: 'boolean', help: 'trust X-Forwarded-* headers' },
  'log-level': { type: 'string', help: 'pino log level', value: 'text' },
  'max-repodata-size': { type: 'string', help: 'largest decoded repodata per subdir', value: 'text' },
  'max-request-decoding': { type: 'string', help: 'repodata one request may decode at once', value: 'text' },
  'download-timeout': { type: 'string', help: 'repodata download time limit', value: 'text' },
  condarc: { type: 'string', help: 'network settings from this .condarc', value: 'file' },
  'osv-db': { type: 'string', help: "POST /audit: OSV's all.zip or a folder of OSV files", value: 'file' },
  'osv-api': { type: 'string', help: 'POST /audit: an OSV-compatible API URL', value: 'text' },
  'pypi-mapping': { type: 'string', help: "POST /audit: conda-forge's conda-to-PyPI mapping file", value: 'file' },
  redis: { type: 'string', help: 'Redis URL shared by replicas and workers', value: 'text' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const satisfies OptionTable;

/** `worker`'s options; its own help text (commands/worker.ts) describes them in full. */
export const WORKER_OPTIONS = {
  redis: { type: 'string', help: 'Redis URL the replicas use', value: 'text' },
  workers: { type: 'string', help: 'solve threads', value: 'text' },
  'cache-dir': { type: 'string', help: 'repodata cache directory', value: 'dir' },
  'solve-cache-ttl': { type: 'string', help: 'seconds a shared solve outcome is kept', value: 'text' },
  'solve-cache-entries': { type: 'string', help: 'most outcomes the shared cache keeps', value: 'text' },
  'log-level': { type: 'string', help: 'pino log level', value: 'text' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const satisfies OptionTable;

/** A command's module, `commands/<name>.ts`: its `--help` text and what it does with its parsed arguments. */
export interface CommandModule<T extends OptionTable> {
  readonly usage: string;
  /** `name` is the word that chose the command (`tree`, `why` and `why-not` share one module). */
  run(args: CommandArgs<T>, io: CliIO, name: string): Promise<number>;
}

export interface CommandSpec<T extends OptionTable = OptionTable> {
  readonly name: string;
  readonly help: string;
  readonly options: T;
  /** Words that may follow the command (sub-subcommands, shells). */
  readonly words?: readonly string[];
  /** False when the command takes no positional arguments. */
  readonly positionals?: boolean;
  /** The one action word that must come first (`cache clean`). */
  readonly action?: string;
  /** A long-running service that handles its own signals (main.ts leaves them to it). */
  readonly service?: boolean;
  /** The command's module; `help` has none (main.ts prints the usage). */
  readonly load?: () => Promise<CommandModule<T>>;
}

/** One entry: ties `load`'s module to `options`, so a command's `run` gets the values its table parses. */
const command = <T extends OptionTable>(spec: CommandSpec<T>): CommandSpec<T> => spec;

/** The commands, in the order `--help` lists them. `resolve` is also what runs without a command. */
export const COMMANDS: readonly CommandSpec[] = [
  command({
    name: 'resolve',
    help: 'solve specs for one or more platforms',
    options: RESOLVE_OPTIONS,
    load: () => import('./commands/resolve.js'),
  }),
  command({
    name: 'info',
    help: 'version, platform, virtual packages, channels, cache',
    options: INFO_OPTIONS,
    positionals: false,
    load: () => import('./commands/info.js'),
  }),
  command({
    name: 'cache',
    help: 'the repodata cache (cache clean)',
    options: CACHE_CLEAN_OPTIONS,
    words: ['clean'],
    action: 'clean',
    positionals: false,
    load: () => import('./commands/cache.js'),
  }),
  command({
    name: 'config',
    help: 'the effective configuration and its sources',
    options: LISTING_OPTIONS,
    positionals: false,
    load: () => import('./commands/config.js'),
  }),
  command({
    name: 'diff',
    help: 'what changed between two locks or exact environments',
    options: DIFF_OPTIONS,
    load: () => import('./commands/diff.js'),
  }),
  command({
    name: 'tree',
    help: 'the solved environment as a dependency tree',
    options: INSPECT_OPTIONS,
    load: () => import('./commands/inspect.js'),
  }),
  command({
    name: 'why',
    help: 'every path from a requested spec to a package',
    options: INSPECT_OPTIONS,
    load: () => import('./commands/inspect.js'),
  }),
  command({
    name: 'why-not',
    help: 'why the solution does not have a spec, or what would change',
    options: INSPECT_OPTIONS,
    load: () => import('./commands/inspect.js'),
  }),
  command({
    name: 'audit',
    help: 'known vulnerabilities (OSV) of a solve or a lock',
    options: AUDIT_OPTIONS,
    load: () => import('./commands/audit.js'),
  }),
  command({
    name: 'formats',
    help: 'the exporters',
    options: LISTING_OPTIONS,
    positionals: false,
    load: () => import('./commands/formats.js'),
  }),
  command({
    name: 'serve',
    help: 'run the HTTP service',
    options: SERVE_OPTIONS,
    positionals: false,
    service: true,
    load: () => import('./commands/serve.js'),
  }),
  command({
    name: 'worker',
    help: 'solve jobs from the Redis queue of serve --redis replicas',
    options: WORKER_OPTIONS,
    positionals: false,
    service: true,
    load: () => import('./commands/worker.js'),
  }),
  command({
    name: 'completion',
    help: 'print a shell completion script',
    options: COMPLETION_OPTIONS,
    words: ['bash', 'zsh', 'fish'],
    load: () => import('./commands/completion.js'),
  }),
  { name: 'help', help: 'show help', options: {} },
];

export const COMMAND_NAMES: ReadonlySet<string> = new Set(COMMANDS.map((c) => c.name));
