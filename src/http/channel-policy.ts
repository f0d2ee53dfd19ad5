/**
 * Which URLs a server may fetch on a client's behalf.
 *
 * A request names channels; without a policy that is a server-side request forgery: a client could
 * make the server read its own files (`file:///etc`), cloud metadata (`http://169.254.169.254`) or
 * services on its private network. The rules:
 * - a URL under an allowlisted channel is allowed, even on loopback (an operator's mirror on
 *   127.0.0.1 is a normal set-up);
 * - `file://` URLs and local paths only when the operator enables local channels (or allowlists
 *   that path);
 * - with `*` on the allowlist, any other https URL whose host resolves only to public addresses;
 *   loopback, private, link-local, unique-local, IPv4-mapped and other special-purpose addresses
 *   are refused;
 * - everything else is refused.
 * The repodata store asks `checkUrl` for every URL it requests, including `base_url` found inside
 * repodata and redirect targets, so a channel cannot point the server somewhere it may not go.
 *
 * Security notes: a host name is checked by resolving it; the connection made afterwards resolves
 * it again, so a host that answers differently within seconds (DNS rebinding) is only fully stopped
 * when the fetcher connects through `lookup` below, which applies the same address rules.
 */
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { DEFAULT_CHANNEL_ALIAS, DEFAULTS_CHANNEL_URLS, parseChannel, redactSecrets } from '../../vocabulary/channel.js';
import { CondaResolveError } from '../../vocabulary/errors.js';

export class ChannelRefusedError extends CondaResolveError {
  /** The URL refused, without credentials. */
  readonly url: string;
  constructor(url: string, reason: string) {
    super('CR_ERR_CHANNEL_REFUSED', `Cannot use channel URL "${url}": ${reason}`);
    this.url = url;
  }
}

export interface ChannelPolicyOptions {
  /** Channel names, URLs or local paths, and `*` for any public https channel. */
  readonly allowed: readonly string[];
  /** `file://` URLs and local paths of any location. */
  readonly allowLocal: boolean;
  /** `CONDA_CHANNEL_ALIAS`; default `https://conda.anaconda.org`. */
  readonly channelAlias?: string;
  /** Base for relative local paths in the allowlist. */
  readonly cwd: string;
  /** Resolves a host name to its addresses; default: the system resolver. Injected by tests. */
  readonly resolveHost?: (hostname: string) => Promise<readonly string[]>;
  /** How long a host's addresses are remembered; default 30 s. */
  readonly dnsCacheMs?: number;
  readonly now?: () => number;
}

export interface ChannelPolicy {
  /** Resolves when the server may fetch `url`; rejects with `ChannelRefusedError` otherwise. */
  checkUrl(url: string | URL): Promise<void>;
  /** True when `url` lies under an allowlisted channel (no address checks apply then). */
  isAllowlisted(url: string | URL): boolean;
  /** The allowlist entry (a normalised URL prefix) `url` lies under, the longest; undefined when none. */
  allowlistEntry(url: string | URL): string | undefined;
  /**
   * A `lookup` for `net.connect` / undici's `connect` option: resolves as usual but refuses, at
   * connection time, non-public addresses of hosts that are not allowlisted.
   */
  readonly lookup: LookupFunction;
  /** The allowlist as normalised URL prefixes (for start-up logs). */
  readonly allowlist: readonly string[];
  readonly allowsAnyPublic: boolean;
}

export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'ipv4-mapped'
  | 'multicast'
  | 'reserved';

/** Special-purpose ranges (IANA IPv4/IPv6 special-purpose registries), most specific first. */
const RANGES: readonly (readonly [string, number, 'ipv4' | 'ipv6', Exclude<AddressKind, 'public'>])[] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'private'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'reserved'],
  ['192.0.2.0', 24, 'ipv4', 'reserved'],
  ['192.88.99.0', 24, 'ipv4', 'reserved'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'reserved'],
  ['198.51.100.0', 24, 'ipv4', 'reserved'],
  ['203.0.113.0', 24, 'ipv4', 'reserved'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['::ffff:0:0', 96, 'ipv6', 'ipv4-mapped'],
  ['::', 96, 'ipv6', 'reserved'], // IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48, 'ipv6', 'private'], // local-use NAT64
  ['100::', 64, 'ipv6', 'reserved'],
  ['2001::', 32, 'ipv6', 'reserved'], // Teredo tunnels
  ['2001:db8::', 32, 'ipv6', 'reserved'],
  ['fc00::', 7, 'ipv6', 'unique-local'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'private'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const BLOCKS = RANGES.map(([network, prefix, family, kind]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { family, kind, list };
});

/** What kind of address `ip` is; `public` only for globally routable unicast addresses. */
export function classifyAddress(ip: string): AddressKind {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const version = isIP(bare);
  if (version === 0) return 'reserved';
  if (version === 6) {
    // IPv4-mapped first: BlockList would otherwise match it against the IPv4 ranges.
    const groups = expandIPv6(bare);
    if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return 'ipv4-mapped';
    // NAT64 and 6to4 addresses carry an IPv4 address; they are as public as that address.
    if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) {
      return classifyAddress(ipv4FromGroups(groups[6]!, groups[7]!));
    }
    if (groups[0] === 0x2002) return classifyAddress(ipv4FromGroups(groups[1]!, groups[2]!));
  }
  const family = version === 4 ? 'ipv4' : 'ipv6';
  for (const block of BLOCKS) {
    if (block.family === family && block.list.check(bare, family)) return block.kind;
  }
  return 'public';
}

function ipv4FromGroups(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a trailing dotted IPv4 expanded). */
function expandIPv6(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...(tail !== undefined ? Array<string>(missing).fill('0') : []), ...tailGroups];
  return groups.map((g) => parseInt(g || '0', 16));
}

/** A URL without credentials, `/t/<token>` segments, query, fragment or trailing slash. */
export function normaliseChannelUrl(input: string | URL): string {
  const url = new URL(typeof input === 'string' ? input : input.href);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  // conda's token segment (`/t/<token>/`) is a credential on http(s) channels.
  if (url.protocol === 'https:' || url.protocol === 'http:') url.pathname = url.pathname.replace(/\/t\/[^/]+(?=\/|$)/, '');
  return url.href.replace(/\/+$/, '');
}

const LOCAL_HOST_NAMES = /(^|\.)(localhost|localhost\.localdomain)$/i;

export function createChannelPolicy(options: ChannelPolicyOptions): ChannelPolicy {
  const alias = (options.channelAlias || DEFAULT_CHANNEL_ALIAS).replace(/\/+$/, '');
  const allowsAnyPublic = options.allowed.includes('*');
  const prefixes: string[] = [];
  for (const entry of options.allowed) {
    if (entry === '*') continue;
    for (const url of allowlistUrls(entry, alias, options.cwd)) {
      const normalised = normaliseChannelUrl(url);
      if (!prefixes.includes(normalised)) prefixes.push(normalised);
    }
  }
  const allowlistedHosts = new Set(
    prefixes.filter((p) => !p.startsWith('file:')).map((p) => new URL(p).hostname.replace(/^\[|\]$/g, '').toLowerCase()),
  );
  const resolveHost = options.resolveHost ?? systemResolve;
  const dnsCacheMs = options.dnsCacheMs ?? 30_000;
  const now = options.now ?? Date.now;
  const dnsCache = new Map<string, { at: number; addresses: Promise<readonly string[]> }>();

  const allowlistEntry = (input: string | URL): string | undefined => {
    let normalised: string;
    try {
      normalised = normaliseChannelUrl(input);
      if (pathTrick(new URL(normalised).pathname)) return undefined;
    } catch {
      return undefined;
    }
    let found: string | undefined;
    for (const prefix of prefixes) {
      if ((normalised === prefix || normalised.startsWith(`${prefix}/`)) && prefix.length > (found?.length ?? -1)) found = prefix;
    }
    return found;
  };
  const isAllowlisted = (input: string | URL): boolean => allowlistEntry(input) !== undefined;

  const addressesOf = (hostname: string): Promise<readonly string[]> => {
    const cached = dnsCache.get(hostname);
    if (cached && now() - cached.at < dnsCacheMs) return cached.addresses;
    const addresses = resolveHost(hostname);
    dnsCache.set(hostname, { at: now(), addresses });
    if (dnsCache.size > 1000) dnsCache.delete(dnsCache.keys().next().value as string);
    addresses.catch(() => dnsCache.delete(hostname));
    return addresses;
  };

  const checkUrl = async (input: string | URL): Promise<void> => {
    let url: URL;
    try {
      url = new URL(typeof input === 'string' ? input : input.href);
    } catch {
      throw new ChannelRefusedError(String(input).replace(/\/\/[^@/]*@/, '//'), 'not a valid URL');
    }
    const shown = safeUrl(url);
    const trick = pathTrick(url.pathname);
    if (trick) {
      throw new ChannelRefusedError(
        shown,
        `its path has ${trick}, which a server may read as a different location; write the channel's URL without it`,
      );
    }
    if (url.protocol === 'file:') {
      if (options.allowLocal || isAllowlisted(url)) return;
      throw new ChannelRefusedError(shown, 'local channels are not enabled on this server');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ChannelRefusedError(
        shown,
        `the ${url.protocol.replace(/:$/, '')} scheme is not allowed (only https, and http for allowlisted channels)`,
      );
    }
    if (isAllowlisted(url)) return;
    if (!allowsAnyPublic) throw new ChannelRefusedError(shown, "it is not on this server's channel allowlist");
    if (url.protocol !== 'https:') {
      throw new ChannelRefusedError(shown, 'only https channels are allowed unless the channel is on the allowlist');
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const kind = classifyAddress(host);
      if (kind !== 'public') throw new ChannelRefusedError(shown, `${describeKind(kind)} addresses are not allowed`);
      return;
    }
    if (LOCAL_HOST_NAMES.test(host)) throw new ChannelRefusedError(shown, 'loopback addresses are not allowed');
    let addresses: readonly string[];
    try {
      addresses = await addressesOf(host.toLowerCase());
    } catch {
      throw new ChannelRefusedError(shown, `the host name "${host}" cannot be resolved`);
    }
    if (addresses.length === 0) throw new ChannelRefusedError(shown, `the host name "${host}" cannot be resolved`);
    // The refusal names the host the client gave, never what it resolved to: that would let a
    // client map the server's internal network one name at a time.
    if (addresses.some((address) => classifyAddress(address) !== 'public')) throw new ChannelRefusedError(shown, hostNotPublic(host));
  };

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const list = addresses as unknown as { address: string; family: number }[];
      if (!allowlistedHosts.has(hostname.toLowerCase())) {
        if (list.some((entry) => classifyAddress(entry.address) !== 'public')) {
          const refused = new ChannelRefusedError(`//${hostname}`, hostNotPublic(hostname));
          callback(Object.assign(refused, { errno: undefined }) as NodeJS.ErrnoException, '', 0);
          return;
        }
      }
      if (lookupOptions.all) (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };

  return {
    checkUrl,
    isAllowlisted,
    allowlistEntry,
    lookup,
    allowlist: Object.freeze([...prefixes]),
    allowsAnyPublic,
  };
}

function allowlistUrls(entry: string, alias: string, cwd: string): readonly string[] {
  if (entry === 'defaults') return DEFAULTS_CHANNEL_URLS;
  try {
    return [parseChannel(entry, { alias, cwd }).baseUrl];
  } catch (error) {
    throw new ChannelRefusedError(redactSecrets(entry), `it cannot be used in the channel allowlist (${(error as Error).message})`);
  }
}

function hostNotPublic(host: string): string {
  return `the host name "${host}" resolves to an address that is not public, which is not allowed`;
}

/**
 * What in a URL path could make a server read it as another location than the one matched
 * against the allowlist: an encoded `/` or `\` (`%2f`, `%5c`, also double-encoded as `%252f`), or
 * a dot segment hidden by encoding (`..%2f`, `%2e%2e%5c`). Plain `.` and `..` segments, and `%2e`
 * alone as a segment, never get here: the URL parser has already resolved them, as the fetcher
 * does. Undefined when there is none.
 */
export function pathTrick(pathname: string): string | undefined {
  let path = pathname;
  for (let round = 0; round < 3 && /%25/i.test(path); round++) path = path.replace(/%25/gi, '%');
  const separator = /%2f|%5c/i.exec(path);
  const decoded = path.replace(/%2f|%5c|\\/gi, '/').replace(/%2e/gi, '.');
  if (decoded.split('/').some((segment) => segment === '.' || segment === '..')) {
    return `a dot segment with an encoded "/", "\\" or "." (${(separator ?? /%2e/i.exec(path))?.[0] ?? '..'})`;
  }
  if (separator) return `an encoded "/" or "\\" (${separator[0]})`;
  return undefined;
}

function describeKind(kind: AddressKind): string {
  switch (kind) {
    case 'ipv4-mapped':
      return 'IPv4-mapped';
    case 'unspecified':
      return 'unspecified';
    default:
      return kind;
  }
}

/** The URL as it may be shown: no user, password or token. */
function safeUrl(url: URL): string {
  try {
    return normaliseChannelUrl(url);
  } catch {
    return '<invalid URL>';
  }
}

async function systemResolve(hostname: string): Promise<readonly string[]> {
  const { lookup } = await import('node:dns/promises');
  const results = await lookup(hostname, { all: true, verbatim: true });
  return results.map((r) => r.address);
}
