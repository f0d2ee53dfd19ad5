/**
 * `conda-resolve info [-p PLATFORM]... [-c CHANNEL]... [--json]`: what a resolve here would use,
 * in the manner of `conda info` and `pixi info`: the tool's version, this machine's platform, the
 * virtual packages each requested platform gets (after the `CONDA_OVERRIDE_*` variables in effect
 * and any --virtual-package), the channels in priority order and where each came from (-c, a
 * .condarc file or variable, or the built-in default), the channel priority, the configuration
 * files read, and the repodata cache directory with its size.
 */
import { defaultCacheDir } from '../../../repodata/cache.js';
import { parseChannel } from '../../../vocabulary/channel.js';
import { hostSubdir, parsePlatform } from '../../../vocabulary/platform.js';
import { virtualPackageList } from '../../../vocabulary/virtual-packages.js';
import { expandChannel } from '../../config/channels.js';
import { CondaResolveError, exitStatusOf, UsageError, userMessage, type ErrorCode } from '../../errors.js';
import { TOOL_VERSION } from '../../version.js';
import type { CommandArgs } from '../args.js';
import { cacheUsage } from '../cache-usage.js';
import type { INFO_OPTIONS } from '../command-table.js';
import { EXIT_OK, writeError, type CliIO } from '../io.js';
import type { RequestFlags } from '../resolve/request-flags.js';
import { formatBytes } from '../resolve/run-report.js';
import { userSettings } from '../resolve/user-settings.js';

const USAGE = `usage: conda-resolve info [-p PLATFORM]... [-c CHANNEL]... [--override-channels]
                          [--virtual-package V]... [--cache-dir DIR] [--json]

Show the version, this machine's platform, the virtual packages each platform gets (with the
CONDA_OVERRIDE_* variables in effect), the channels a resolve would use and where each came from,
the configuration files read, and the repodata cache directory and its size.

  -p, --platform PLATFORM   platform whose virtual packages to show (default: this machine's);
                            repeatable
  -c, --channel CHANNEL     channels given as for a resolve; repeatable
      --override-channels   ignore the channels of .condarc files and CONDA_CHANNELS
      --virtual-package V   add or replace a virtual package, as for a resolve; repeatable
      --cache-dir DIR       the cache directory to measure
      --json                print JSON
  -h, --help                show this help
`;

export interface ChannelInfo {
  readonly name: string;
  readonly url: string;
  readonly source: string;
}

export interface InfoDocument {
  readonly version: string;
  readonly node_version: string;
  readonly platform: string;
  readonly config_files: readonly string[];
  readonly channels: readonly ChannelInfo[];
  readonly channel_priority: { readonly value: string; readonly source: string };
  readonly overrides: Readonly<Record<string, string>>;
  readonly virtual_packages: Readonly<Record<string, readonly string[]>>;
  readonly cache_dir: string;
  readonly cache_size: { readonly bytes: number; readonly files: number };
}

export const usage = USAGE;

export async function run({ values }: CommandArgs<typeof INFO_OPTIONS>, io: CliIO): Promise<number> {
  let document: InfoDocument;
  try {
    document = await gatherInfo(io, values);
  } catch (error) {
    writeError(io, userMessage(error));
    return exitStatusOf(error);
  }
  io.stdout.write(values.json ? `${JSON.stringify(document, null, 2)}\n` : render(document));
  return EXIT_OK;
}

/** The resolve flags `info` shares (same names, same meaning), and its cache directory. */
type InfoFlags = Pick<RequestFlags, 'platform' | 'subdir' | 'channel' | 'override-channels' | 'virtual-package'> & {
  readonly 'cache-dir'?: string | undefined;
};

async function gatherInfo(io: CliIO, values: InfoFlags): Promise<InfoDocument> {
  const host = hostSubdir(process.platform, process.arch);
  const user = userSettings(io, {
    channels: values.channel,
    hasFiles: false,
    overrideChannels: values['override-channels'],
    channelPriority: undefined,
    offline: undefined,
    verbose: false,
  });
  const { config } = user;

  // The channel strings in priority order with their origin, as prepareRequest orders them.
  const given = (values.channel ?? []).map((text) => ({ text, source: 'command line (-c)' }));
  const configured = user.prepare.configuredChannels.map((text) => ({ text, source: config.sourceOf('channels').join(', ') }));
  const texts = given.length + configured.length > 0 ? [...given, ...configured] : [{ text: 'conda-forge', source: 'default' }];
  const settings = user.prepare.channelSettings;
  const alias = settings.alias ?? io.env.CONDA_CHANNEL_ALIAS;
  const channels: ChannelInfo[] = [];
  const seen = new Set<string>();
  for (const { text, source } of texts) {
    for (const expanded of expandChannel(text.trim(), settings)) {
      const channel = asUsage('CR_ERR_INPUT_CHANNEL', () => parseChannel(expanded, { alias, cwd: io.cwd }));
      if (seen.has(channel.baseUrl)) continue;
      seen.add(channel.baseUrl);
      channels.push({ name: channel.name, url: channel.baseUrl, source: expanded === text ? source : `${source}, via "${text}"` });
    }
  }

  const platforms = [...(values.platform ?? []), ...(values.subdir ?? [])].map((p) =>
    asUsage('CR_ERR_INPUT_PLATFORM', () => parsePlatform(p)),
  );
  const virtual: Record<string, string[]> = {};
  for (const platform of platforms.length ? platforms : [host]) {
    virtual[platform] = asUsage('CR_ERR_INPUT_OPTION', () => virtualPackageList(platform, io.env, values['virtual-package'] ?? [])).map(
      (v) => `${v.name}=${v.version}=${v.build}`,
    );
  }
  const overrides = Object.fromEntries(
    Object.entries(io.env)
      .filter((e): e is [string, string] => e[0].startsWith('CONDA_OVERRIDE_') && e[1] !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );

  const cacheDir = values['cache-dir'] ?? defaultCacheDir(io.env);
  const usage = await cacheUsage(cacheDir);
  const priority = user.channelPriority;
  return {
    version: TOOL_VERSION,
    node_version: process.versions.node,
    platform: host,
    config_files: config.files,
    channels,
    channel_priority:
      priority === undefined
        ? { value: 'strict', source: 'default' }
        : { value: priority, source: config.sourceOf('channel_priority').join(', ') },
    overrides,
    virtual_packages: virtual,
    cache_dir: cacheDir,
    cache_size: { bytes: usage.bytes, files: usage.files },
  };
}

/** What the user typed was wrong (a platform, channel or virtual package): a usage error, exit 2. */
function asUsage<T>(code: ErrorCode, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof CondaResolveError && !(error instanceof UsageError)) throw new UsageError(code, error.message, { cause: error });
    throw error;
  }
}

function render(info: InfoDocument): string {
  const rows: Array<[string, string[]]> = [
    ['conda-resolve version', [info.version]],
    ['node.js version', [info.node_version]],
    ['platform', [info.platform]],
    ['config files', info.config_files.length ? [...info.config_files] : ['(none)']],
    ['channels', info.channels.map((c) => `${c.name === c.url ? c.url : `${c.name}  ${c.url}`}  (${c.source})`)],
    ['channel priority', [`${info.channel_priority.value}  (${info.channel_priority.source})`]],
    ['overrides in effect', Object.keys(info.overrides).length ? Object.entries(info.overrides).map(([k, v]) => `${k}=${v}`) : ['(none)']],
    ...Object.entries(info.virtual_packages).map(([platform, list]): [string, string[]] => [
      `virtual packages ${platform}`,
      list.length ? [...list] : ['(none)'],
    ]),
    ['cache directory', [info.cache_dir]],
    ['cache size', [`${formatBytes(info.cache_size.bytes)} in ${info.cache_size.files} ${info.cache_size.files === 1 ? 'file' : 'files'}`]],
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  const lines: string[] = [];
  for (const [key, values] of rows) {
    values.forEach((value, i) => lines.push(`${(i === 0 ? key : '').padStart(width)} ${i === 0 ? ':' : ' '} ${value}`));
  }
  return `\n${lines.join('\n')}\n\n`;
}
