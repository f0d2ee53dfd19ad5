/**
 * `allowlist_channels` and `denylist_channels`, checked as conda's `validate_channels` does: each
 * entry and each channel of the request stand for base URLs (a name goes through the channel
 * alias and the custom channels; `defaults` through `default_channels`), and a request channel
 * whose base URL is on the denylist, or missing from a non-empty allowlist, stops the run before
 * anything is fetched. The channels of `channel::name` specs are checked too.
 */
import { Channel, parseChannel, redactSecrets, removeCredentials } from '../../vocabulary/channel.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { expandChannel, type ChannelSettings } from './channels.js';

export class ChannelListError extends CondaResolveError {
  constructor(message: string) {
    super('CR_ERR_CHANNEL_REFUSED', message);
  }
}

export interface ChannelLists {
  readonly allowlist?: readonly string[] | undefined;
  readonly denylist?: readonly string[] | undefined;
}

function baseUrls(text: string, settings: ChannelSettings, cwd: string): string[] {
  return expandChannel(text, settings).map((t) =>
    removeCredentials(parseChannel(t, { alias: settings.alias, cwd }).baseUrl).replace(/\/+$/, ''),
  );
}

/**
 * Throws `ChannelListError` for the first channel the lists refuse: the request's channels, and
 * channel strings such as those of `channel::name` specs.
 */
export function checkChannelLists(
  channels: readonly (Channel | string)[],
  lists: ChannelLists,
  settings: ChannelSettings,
  cwd: string,
): void {
  const allow = new Set((lists.allowlist ?? []).flatMap((c) => baseUrls(c, settings, cwd)));
  const deny = new Set((lists.denylist ?? []).flatMap((c) => baseUrls(c, settings, cwd)));
  if (allow.size === 0 && deny.size === 0) return;
  for (const channel of channels) {
    const text = channel instanceof Channel ? channel.name : channel;
    const urls = channel instanceof Channel ? [removeCredentials(channel.baseUrl)] : baseUrls(channel, settings, cwd);
    for (const url of urls) {
      if (deny.has(url))
        throw new ChannelListError(
          `Channel ${redactSecrets(text)} (${url}) is on denylist_channels of your configuration (see conda-resolve config)`,
        );
      if (allow.size > 0 && !allow.has(url)) {
        throw new ChannelListError(
          `Channel ${redactSecrets(text)} (${url}) is not on allowlist_channels of your configuration, which allows only ${[...allow].join(', ')} (see conda-resolve config)`,
        );
      }
    }
  }
}
