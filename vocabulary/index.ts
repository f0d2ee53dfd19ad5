/**
 * The conda vocabulary shared by every layer: versions and version specs, match specs, package
 * records, platforms, virtual packages, channels and the typed errors. Runs in a browser too.
 */
export { CondaResolveError } from './errors.js';
export type { PackageRecord } from './record.js';
export { normalizePypiName, pypiLabel, requirementName, requirementNeedsExtra, type PypiRecord } from './pypi-record.js';
export {
  Version,
  InvalidVersionError,
  parseVersion,
  tryParseVersion,
  compareVersions,
  type VersionAtom,
  type VersionComponent,
} from './version.js';
export {
  VersionSpec,
  InvalidVersionSpecError,
  parseVersionSpec,
  tryParseVersionSpec,
  MAX_SPEC_LENGTH,
  MAX_VERSION_CONSTRAINTS,
  MAX_VERSION_SPEC_DEPTH,
  MAX_REGEX_QUANTIFIERS,
  type VersionOperator,
} from './version-spec.js';
export {
  MatchSpec,
  InvalidMatchSpecError,
  StringPattern,
  BuildNumberSpec,
  MATCH_SPEC_FIELDS,
  parseMatchSpec,
  tryParseMatchSpec,
  matchSpecFromFields,
  type MatchSpecField,
  type MatchSpecFields,
} from './match-spec.js';
export {
  KNOWN_SUBDIRS,
  TARGET_SUBDIRS,
  InvalidPlatformError,
  isKnownSubdir,
  parsePlatform,
  hostSubdir,
  subdirOs,
  subdirArch,
  type KnownSubdir,
} from './platform.js';
export {
  virtualPackages,
  virtualPackageList,
  virtualPackageRecord,
  parseVirtualPackage,
  InvalidVirtualPackageError,
  ARCHSPEC_BY_SUBDIR,
  VIRTUAL_CHANNEL,
  type VirtualPackage,
} from './virtual-packages.js';
export {
  Channel,
  InvalidChannelError,
  parseChannel,
  tryParseChannel,
  channelIdentity,
  sameChannel,
  redactSecrets,
  removeCredentials,
  DEFAULT_CHANNEL_ALIAS,
  DEFAULTS_CHANNEL_URLS,
  type ChannelKind,
  type ChannelCredentials,
  type ParseChannelOptions,
} from './channel.js';
