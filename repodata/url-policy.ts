/**
 * The channel policy hook and its check, apart from the HTTP client so that code which only
 * needs to ask the policy (a shard index read from the cache names its base URLs) does not load
 * undici (~0.1 s of start-up).
 */
import { removeCredentials } from '../vocabulary/channel.js';
import { CondaResolveError } from '../vocabulary/errors.js';
import { RepodataUrlRefusedError } from './fetch-errors.js';

/**
 * The channel policy hook: called with every URL before it is requested (redirect targets
 * included) and with base URLs read from repodata. Return `false` (or throw) to refuse. It gets the
 * URL without credentials.
 */
export type CheckUrl = (url: URL) => boolean | void | Promise<boolean | void>;

/** Who is asking: the channel's display name and the subdir, for the error. */
export interface PolicyContext {
  readonly channel: string;
  readonly subdir: string;
  readonly checkUrl?: CheckUrl | undefined;
}

/** Check one URL against the policy; `url` may carry credentials, the hook never sees them. */
export async function checkUrlAllowed(context: PolicyContext, url: string): Promise<void> {
  if (!context.checkUrl) return;
  const shown = removeCredentials(url);
  let allowed: boolean | void;
  try {
    allowed = await context.checkUrl(new URL(shown));
  } catch (error) {
    if (error instanceof CondaResolveError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new RepodataUrlRefusedError(context.channel, context.subdir, shown, reason);
  }
  if (allowed === false) throw new RepodataUrlRefusedError(context.channel, context.subdir, shown);
}
