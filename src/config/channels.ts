/**
 * conda's channel names that configuration defines: `defaults` (`default_channels`), a
 * multichannel (`custom_multichannels`: one name for several channels) and a custom channel
 * (`custom_channels`: a name served from its own base URL instead of the channel alias). Each is
 * turned into the channel strings `parseChannel` understands.
 */
import { DEFAULTS_CHANNEL_URLS } from '../../vocabulary/channel.js';

export interface ChannelSettings {
  /** `channel_alias`; unset means conda.anaconda.org. */
  readonly alias?: string | undefined;
  readonly defaultChannels?: readonly string[] | undefined;
  readonly customChannels?: Readonly<Record<string, string>> | undefined;
  readonly customMultichannels?: Readonly<Record<string, readonly string[]>> | undefined;
}

function isName(text: string): boolean {
  return !/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(text) && !/^[./\\~]/.test(text) && !/^[A-Za-z]:[\\/]/.test(text);
}

/** A custom channel's URL for a name (`name` or `name/label/x` whose first part is configured). */
function customChannel(text: string, custom: Readonly<Record<string, string>> | undefined): string | undefined {
  if (custom === undefined || !isName(text)) return undefined;
  const first = text.split('/')[0]!;
  const base = custom[text] ?? custom[first];
  if (base === undefined) return undefined;
  return `${base.replace(/\/+$/, '')}/${text}`;
}

/** The channel strings one channel string of the request stands for. */
export function expandChannel(text: string, settings: ChannelSettings | undefined): string[] {
  const one = (t: string): string => customChannel(t, settings?.customChannels) ?? t;
  if (text === 'defaults') return (settings?.defaultChannels?.length ? settings.defaultChannels : DEFAULTS_CHANNEL_URLS).map(one);
  const multi = settings?.customMultichannels?.[text];
  if (multi !== undefined && isName(text)) return multi.map((t) => (t === 'defaults' ? expandChannel(t, settings) : [one(t)])).flat();
  return [one(text)];
}
