/**
 * Errors of fetching and caching repodata. Every message names the channel by its display name
 * (never a credential) and the subdir, says what happened, and shows URLs only with their secrets
 * removed. The cache is left as it was whenever one of these is thrown. The codes and what each
 * means are in errors.ts.
 */
import { CondaResolveError } from '../vocabulary/errors.js';
import type { RepodataErrorCode } from './errors.js';
import { redactSecrets } from '../vocabulary/channel.js';
import { describeSource } from './parse-errors.js';

/** `conda-forge/linux-64`. */
export function describeSubdir(channelName: string, subdir: string): string {
  return `${redactSecrets(channelName)}/${subdir}`;
}

export class RepodataFetchError extends CondaResolveError {
  readonly channel: string;
  readonly subdir: string;
  /** The URL that failed, without credentials. */
  readonly url: string | null;
  /** The HTTP status, when the server answered. */
  readonly status: number | null;
  /** What happened, without the channel and URL around it (secrets removed). */
  readonly detail: string;

  constructor(
    channel: string,
    subdir: string,
    detail: string,
    options: { url?: string | null; status?: number | null; cause?: unknown; code?: RepodataErrorCode } = {},
  ) {
    const url = options.url ? redactSecrets(options.url) : null;
    super(
      options.code ?? 'CR_ERR_REPODATA_FETCH',
      `Cannot fetch repodata for ${describeSubdir(channel, subdir)}: ${redactSecrets(detail)}${url ? ` (${url})` : ''}`,
      { cause: options.cause },
    );
    this.channel = redactSecrets(channel);
    this.subdir = subdir;
    this.url = url;
    this.status = options.status ?? null;
    this.detail = redactSecrets(detail);
  }
}

/** The bytes arrived but are not what they claim to be; nothing was cached from them. */
export class RepodataCorruptError extends RepodataFetchError {
  constructor(channel: string, subdir: string, detail: string, options: { url?: string | null; cause?: unknown } = {}) {
    super(channel, subdir, detail, { ...options, code: 'CR_ERR_REPODATA_CORRUPT' });
  }
}

/**
 * A parse error's message as a `RepodataCorruptError` of the same subdir. The parse error's own
 * "Cannot parse repodata for <channel/subdir>: " would repeat what the fetch error says (a pattern
 * up to the first colon would stop inside http://host:port), so it is cut.
 */
export function corruptFromParse(
  channel: string,
  subdir: string,
  message: string,
  options: { url?: string | null; cause?: unknown } = {},
): RepodataCorruptError {
  const prefix = `Cannot parse repodata for ${describeSource(channel, subdir)}: `;
  return new RepodataCorruptError(channel, subdir, message.startsWith(prefix) ? message.slice(prefix.length) : message, options);
}

/** The document decodes to more than the cap; the download was stopped and nothing was kept. */
export class RepodataTooLargeError extends RepodataFetchError {
  readonly limitBytes: number;

  constructor(channel: string, subdir: string, limitBytes: number, options: { url?: string | null; what?: string } = {}) {
    super(
      channel,
      subdir,
      `${options.what ?? 'the repodata'} decodes to more than ${formatBytes(limitBytes)}, the limit (raise it with --max-repodata-size if the channel really is that large)`,
      {
        url: options.url ?? null,
        code: 'CR_ERR_REPODATA_TOO_LARGE',
      },
    );
    this.limitBytes = limitBytes;
  }
}

/**
 * The process's global decoding budget (`DownloadRules.maxDecodingBytes`) ran out: too much
 * repodata being decoded at once, across every download under way. Retrying later may succeed.
 */
export class RepodataDecodingBudgetError extends RepodataFetchError {
  readonly limitBytes: number;

  constructor(channel: string, subdir: string, limitBytes: number, options: { url?: string | null } = {}) {
    super(
      channel,
      subdir,
      `more than ${formatBytes(limitBytes)} of repodata is being decoded at once here, this server's decoding budget; retry once fewer downloads are under way`,
      {
        url: options.url ?? null,
        code: 'CR_ERR_REPODATA_TOO_LARGE',
      },
    );
    this.limitBytes = limitBytes;
  }
}

/**
 * One request's own decoding budget (`DecodingBudget`) is spent: the repodata loads it waits for
 * decode more than it may hold at once. The request's loads stop; other requests' loads go on.
 */
export class RepodataRequestBudgetError extends RepodataFetchError {
  readonly limitBytes: number;

  constructor(channel: string, subdir: string, limitBytes: number) {
    super(
      channel,
      subdir,
      `this request's repodata decodes to more than ${formatBytes(limitBytes)} at once, its decoding budget on this server (--max-request-decoding); ask for fewer platforms or channels at a time`,
      { code: 'CR_ERR_REPODATA_TOO_LARGE' },
    );
    this.limitBytes = limitBytes;
  }
}

/** A download took longer than its cap, or the server sent too slowly. */
export class RepodataTimeoutError extends RepodataFetchError {
  constructor(channel: string, subdir: string, detail: string, options: { url?: string | null } = {}) {
    super(channel, subdir, detail, { url: options.url ?? null, code: 'CR_ERR_REPODATA_TIMEOUT' });
  }
}

/** `1 GiB`, `512 MiB`, `300 kB`-style sizes for messages. */
export function formatBytes(bytes: number): string {
  const units = [
    [1024 ** 3, 'GiB'],
    [1024 ** 2, 'MiB'],
    [1024, 'KiB'],
  ] as const;
  for (const [size, unit] of units) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}

/** Neither `<platform>` nor `noarch` exists: the channel itself is probably misspelled. */
export class ChannelNotFoundError extends CondaResolveError {
  readonly channel: string;

  constructor(channel: string, subdirs: readonly string[], url: string) {
    const where = redactSecrets(url) === redactSecrets(channel) ? '' : ` at ${redactSecrets(url)}`;
    super(
      'CR_ERR_REPODATA_CHANNEL_NOT_FOUND',
      `Cannot find channel ${redactSecrets(channel)}: none of its subdirs ${subdirs.join(', ')} exist${where}`,
    );
    this.channel = redactSecrets(channel);
  }
}

export class RepodataOfflineError extends RepodataFetchError {
  constructor(channel: string, subdir: string) {
    super(channel, subdir, 'offline mode is on and the cache has no copy of it', { code: 'CR_ERR_REPODATA_OFFLINE' });
  }
}

export class RepodataUrlRefusedError extends RepodataFetchError {
  constructor(channel: string, subdir: string, url: string, reason?: string) {
    super(channel, subdir, `the channel policy refuses to fetch this URL${reason ? `: ${reason}` : ''}`, {
      url,
      code: 'CR_ERR_REPODATA_URL_REFUSED',
    });
  }
}

export class RepodataCacheError extends CondaResolveError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super('CR_ERR_REPODATA_CACHE', `Cannot use the repodata cache: ${detail}`, options);
  }
}

export class ShardNotLoadedError extends CondaResolveError {
  constructor(channel: string, subdir: string, name: string) {
    super(
      'CR_ERR_REPODATA_SHARD_NOT_LOADED',
      `Cannot read records of "${name}" from ${describeSubdir(channel, subdir)}: its shard was not fetched (call prepare() with it reachable from the root names)`,
    );
  }
}

/** `RepodataStore.close()` was called while a load was still running. */
export class RepodataStoreClosedError extends CondaResolveError {
  constructor() {
    super('CR_ERR_REPODATA_STORE_CLOSED', 'Cannot load repodata: the store was closed while loading');
  }
}
