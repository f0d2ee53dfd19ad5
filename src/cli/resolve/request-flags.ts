/**
 * The request the resolve flags describe, shared by `resolve` and `tree`/`why`/`why-not` (which
 * take the same flags): the user's configuration (.condarc, network settings) read for them, the
 * `ResolveRequest` they make, and the options `prepareRequest` needs.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { hostSubdir } from '../../../vocabulary/platform.js';
import type { InputFile, PrepareOptions, ResolveRequest } from '../../request.js';
import type { CondaPypiMapOverrides } from '../../pypi/request.js';
import type { CliIO } from '../io.js';
import { verbosity, type HabitFlags } from './resolve-habits.js';
import { userSettings, type UserSettings } from './user-settings.js';

export interface RequestFlags extends HabitFlags {
  readonly channel?: string[] | undefined;
  readonly platform?: string[] | undefined;
  readonly subdir?: string[] | undefined;
  readonly 'channel-priority'?: string | undefined;
  readonly 'virtual-package'?: string[] | undefined;
  readonly 'exclude-newer'?: string | undefined;
  readonly environment?: string | undefined;
  readonly 'override-channels'?: boolean | undefined;
  readonly offline?: boolean | undefined;
  readonly pypi?: string[] | undefined;
  readonly 'index-url'?: string | undefined;
  readonly 'extra-index-url'?: string[] | undefined;
  readonly 'find-links'?: string[] | undefined;
  readonly 'index-strategy'?: string | undefined;
  readonly pre?: boolean | undefined;
  readonly prerelease?: string | undefined;
  readonly resolution?: string | undefined;
}

/** The user's settings for these flags; `hasFiles`: input files may name the channels. */
export function settingsForFlags(io: CliIO, values: RequestFlags, hasFiles: boolean): UserSettings {
  return userSettings(io, {
    channels: values.channel,
    hasFiles,
    overrideChannels: values['override-channels'],
    channelPriority: values['channel-priority'],
    offline: values.offline,
    verbose: verbosity(values) > 0,
  });
}

/** The request: the flags plus what the command read (specs, input files, a previous lock). */
export function requestFromFlags(
  values: RequestFlags,
  user: UserSettings,
  parts: {
    readonly specs: readonly string[];
    readonly files: readonly InputFile[];
    readonly lock: InputFile | undefined;
    readonly update?: readonly string[] | undefined;
    /** `--pypi-mapping`, read (`readPypiMappings`). */
    readonly condaPypiMap?: CondaPypiMapOverrides | undefined;
  },
): ResolveRequest {
  return {
    specs: parts.specs,
    files: parts.files,
    channels: values.channel,
    platforms: [...(values.platform ?? []), ...(values.subdir ?? [])],
    channelPriority: user.channelPriority,
    virtualPackages: values['virtual-package'],
    excludeNewer: values['exclude-newer'],
    environment: values.environment,
    lock: parts.lock,
    update: parts.update,
    pypi: values.pypi,
    pypiOptions: {
      indexUrl: values['index-url'],
      extraIndexUrls: values['extra-index-url'],
      findLinks: values['find-links'],
      indexStrategy: values['index-strategy'],
      prerelease: values.pre ? 'allow' : values.prerelease,
    },
    resolution: values.resolution,
    ...(parts.condaPypiMap ? { condaPypiMap: parts.condaPypiMap } : {}),
  };
}

/** What `prepareRequest` needs beside the request, on the command line. */
export function prepareOptionsFor(io: CliIO, user: UserSettings): PrepareOptions {
  return {
    env: io.env,
    cwd: io.cwd,
    hostPlatform: hostSubdir(process.platform, process.arch),
    defaultChannels: ['conda-forge'],
    // pip `-r FILE` lines of an environment file: the CLI reads the user's own disk.
    readIncluded: (path) => readFileSync(resolve(io.cwd, path), 'utf8'),
    ...user.prepare,
  };
}
