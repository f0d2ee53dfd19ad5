/**
 * The command line's view of the user's configuration (src/config): the channels and channel
 * names `.condarc` defines, the channel priority and offline mode (flags over `CONDA_*` variables
 * over files), and the network (proxies, TLS, retries, mirrors, stored credentials). `-c` channels
 * come first and the configured ones after them, as in conda; `--override-channels` drops the
 * configured ones.
 */
import type { Dispatcher } from 'undici';
import type { NetworkPolicy } from '../../../repodata/net/network.js';
import { tryParseChannel, type Channel } from '../../../vocabulary/channel.js';
import { ConfigFileError } from '../../config/errors.js';
import { loadConfig, type EffectiveConfig } from '../../config/load.js';
import { networkSettings } from '../../config/network.js';
import { expandChannel, type ChannelSettings } from '../../config/channels.js';
import { checkChannelLists } from '../../config/channel-lists.js';
import type { PreparedRequest } from '../../request.js';
import { localFolderHints } from './local-folder-hint.js';
import { UsageError } from '../../errors.js';
import type { CliIO } from '../io.js';

export interface UserFlags {
  readonly channels: readonly string[] | undefined;
  readonly hasFiles: boolean;
  readonly overrideChannels: boolean | undefined;
  readonly channelPriority: string | undefined;
  readonly offline: boolean | undefined;
  readonly verbose: boolean | undefined;
}

export interface UserSettings {
  readonly config: EffectiveConfig;
  readonly prepare: { configuredChannels: readonly string[]; channelSettings: ChannelSettings };
  readonly channelPriority: string | undefined;
  readonly offline: boolean;
  /**
   * Refuse channels `allowlist_channels` / `denylist_channels` refuse (the request's and those of
   * `channel::name` specs); return warnings for `-c` names that are channel folders here.
   */
  checkRequest(request: PreparedRequest, cwd: string): string[];
  /** The configured channels `--override-channels` left out (looked at only to explain a missing name). */
  unrequestedChannels(cwd: string): Channel[];
  /** The HTTP client and network policy for these channels (none when all are local; always for `undefined`). */
  network(channels: readonly Channel[] | undefined): Promise<{ dispatcher?: Dispatcher; network?: NetworkPolicy }>;
}

export function userSettings(io: CliIO, flags: UserFlags): UserSettings {
  if (flags.overrideChannels && !flags.channels?.length && !flags.hasFiles) {
    throw new UsageError('CR_ERR_INPUT_OPTION', '--override-channels needs at least one -c CHANNEL (it ignores the configured channels)');
  }
  const config = loadConfig({ env: io.env });
  const log = flags.verbose ? (line: string) => void io.stderr.write(`conda-resolve: ${line}\n`) : undefined;
  if (log && config.files.length > 0) log(`configuration read from ${config.files.join(', ')}`);
  const channelSettings: ChannelSettings = {
    alias: config.values.channel_alias,
    defaultChannels: config.values.default_channels,
    customChannels: config.values.custom_channels,
    customMultichannels: config.values.custom_multichannels,
  };
  return {
    config,
    prepare: { configuredChannels: flags.overrideChannels ? [] : (config.values.channels ?? []), channelSettings },
    // The project's own default (strict) stays when nothing sets it.
    channelPriority: flags.channelPriority ?? config.values.channel_priority,
    offline: flags.offline === true || config.values.offline === true,
    checkRequest(request, cwd) {
      const specChannels = request.specs.flatMap((s) => (s.channel ? [s.channel] : []));
      const lists = { allowlist: config.values.allowlist_channels, denylist: config.values.denylist_channels };
      checkChannelLists([...request.channels, ...specChannels], lists, channelSettings, cwd);
      return localFolderHints(flags.channels ?? [], request.channels, cwd);
    },
    unrequestedChannels(cwd) {
      if (!flags.overrideChannels) return [];
      const texts = (config.values.channels ?? []).flatMap((c) => expandChannel(c, channelSettings));
      return texts.map((t) => tryParseChannel(t, { alias: channelSettings.alias, cwd })).filter((c): c is Channel => c !== null);
    },
    async network(channels) {
      if (channels?.every((c) => c.kind === 'file')) return {};
      const settings = networkSettings(config, io.env, { log });
      const [{ createNetworkDispatcher, TlsFileError }, { NetworkPolicy }] = await Promise.all([
        import('../../../repodata/net/dispatcher.js'),
        import('../../../repodata/net/network.js'),
      ]);
      try {
        return { dispatcher: createNetworkDispatcher(settings.dispatcher), network: new NetworkPolicy(settings.network) };
      } catch (error) {
        if (error instanceof TlsFileError) throw new ConfigFileError(error.path, error.message);
        throw error;
      }
    },
  };
}
