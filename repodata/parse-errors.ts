/**
 * Errors of repodata parsing and indexing.
 *
 * `RepodataParseError` means the document itself is bad (not JSON, wrong shape, a record without a
 * name): eager and lazy parsing both reject it. `RepodataIndexUnsupportedError` means only that the
 * lazy byte scan met something it does not handle exactly (duplicate keys, a file over 4 GiB, an
 * index sidecar that does not belong to the bytes); the caller falls back to eager parsing.
 */
import { CondaResolveError } from '../vocabulary/errors.js';
import type { RepodataErrorCode } from './errors.js';

export class RepodataParseError extends CondaResolveError {
  /** `channel/subdir` the document came from. */
  readonly source: string;
  /** Byte offset into the document, when known. */
  readonly byteOffset: number | null;

  constructor(source: string, detail: string, options?: { byteOffset?: number; cause?: unknown; code?: RepodataErrorCode }) {
    super(options?.code ?? 'CR_ERR_REPODATA_PARSE', `Cannot parse repodata for ${source}: ${detail}`, options);
    this.source = source;
    this.byteOffset = options?.byteOffset ?? null;
  }
}

/** The document declares a `repodata_version` newer than conda reads (conda stops above 2). */
export class RepodataVersionError extends RepodataParseError {
  constructor(source: string, version: number) {
    super(source, `repodata_version ${version} is newer than the supported versions 1 and 2`, {
      code: 'CR_ERR_REPODATA_VERSION',
    });
  }
}

export class RepodataIndexUnsupportedError extends CondaResolveError {
  readonly source: string;

  constructor(source: string, detail: string, options?: { cause?: unknown }) {
    super('CR_ERR_REPODATA_INDEX_UNSUPPORTED', `Cannot index repodata for ${source} lazily: ${detail}`, options);
    this.source = source;
  }
}

/** `conda-forge/linux-64`: how messages name a document. */
export function describeSource(channelName: string, subdir: string | null | undefined): string {
  return subdir ? `${channelName}/${subdir}` : channelName;
}
