/**
 * The settings conda-resolve reads from `.condarc` files and `CONDA_<KEY>` variables: each key's
 * kind (conda's parameter types: a primitive, a sequence, a map) and how a raw value is checked.
 * Keys conda has that we do not use are ignored without a word, as conda ignores unknown keys.
 */

export type SettingKind =
  | 'string'
  | 'boolean'
  | 'number'
  | 'integer'
  | 'sequence'
  | 'map'
  | 'map-of-sequences'
  | 'ssl-verify'
  | 'channel-priority';

export const SETTINGS = {
  channels: 'sequence',
  default_channels: 'sequence',
  channel_alias: 'string',
  custom_channels: 'map',
  custom_multichannels: 'map-of-sequences',
  channel_priority: 'channel-priority',
  proxy_servers: 'map',
  ssl_verify: 'ssl-verify',
  client_ssl_cert: 'string',
  client_ssl_cert_key: 'string',
  remote_connect_timeout_secs: 'number',
  remote_read_timeout_secs: 'number',
  remote_max_retries: 'integer',
  remote_backoff_factor: 'number',
  offline: 'boolean',
  allowlist_channels: 'sequence',
  denylist_channels: 'sequence',
  // pixi's table (channel URL prefix -> mirror URLs), also accepted in a .condarc of ours.
  mirrors: 'map-of-sequences',
  // conda-resolve audit: the OSV database (a zip or folder), or an OSV-compatible API, and
  // conda-to-PyPI mapping files by channel.
  osv_db: 'string',
  osv_api: 'string',
  pypi_mappings: 'map',
} as const satisfies Record<string, SettingKind>;

export type SettingKey = keyof typeof SETTINGS;
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** `ssl_verify`: verify with the system store (true), not at all (false), or with this CA bundle. */
export type SslVerify = boolean | string;

export interface SettingValues {
  channels: string[];
  default_channels: string[];
  channel_alias: string;
  custom_channels: Record<string, string>;
  custom_multichannels: Record<string, string[]>;
  channel_priority: 'strict' | 'flexible' | 'disabled';
  proxy_servers: Record<string, string>;
  ssl_verify: SslVerify;
  client_ssl_cert: string;
  client_ssl_cert_key: string;
  remote_connect_timeout_secs: number;
  remote_read_timeout_secs: number;
  remote_max_retries: number;
  remote_backoff_factor: number;
  offline: boolean;
  allowlist_channels: string[];
  denylist_channels: string[];
  mirrors: Record<string, string[]>;
  osv_db: string;
  osv_api: string;
  pypi_mappings: Record<string, string>;
}

/** conda's defaults for the keys that have one (the others are unset). */
export const SETTING_DEFAULTS: Partial<SettingValues> = {
  // conda's default is flexible; conda-resolve's has always been strict (src/request.ts).
  channel_priority: 'strict',
  ssl_verify: true,
  remote_connect_timeout_secs: 9.15,
  remote_read_timeout_secs: 60,
  remote_max_retries: 3,
  remote_backoff_factor: 1,
  offline: false,
};

/** Why a raw value is not what the key takes, or null when it is fine. */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

const TRUE = new Set(['true', 'yes', 'on', '1', 'y']);
const FALSE = new Set(['false', 'no', 'off', '0', 'n', 'none']);

function bool(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') {
    const t = raw.trim().toLowerCase();
    if (TRUE.has(t)) return true;
    if (FALSE.has(t)) return false;
  }
  return undefined;
}

function stringList(raw: unknown): string[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: string[] = [];
  for (const item of raw) {
    if (typeof item !== 'string' && typeof item !== 'number') return undefined;
    out.push(String(item).trim());
  }
  return out;
}

function isPlainObject(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw);
}

/**
 * Most entries one list or mapping setting may have. No real configuration comes near it; a
 * `.condarc` with 60,000 channels made every command spend most of a minute before it could be
 * stopped (each channel is parsed, expanded and checked against the channel lists).
 */
export const MAX_SETTING_ENTRIES = 1000;

function tooMany(count: number, key?: string): { ok: false; reason: string } {
  return {
    ok: false,
    reason: `${count} entries${key === undefined ? '' : ` for "${key}"`}, more than the ${MAX_SETTING_ENTRIES} conda-resolve accepts`,
  };
}

/**
 * Check one raw value (from YAML, or a variable's text split already) for `key`. `fromText` is true
 * for environment variables, whose booleans and numbers arrive as text.
 */
export function checkSetting<K extends SettingKey>(key: K, raw: unknown): Checked<SettingValues[K]> {
  const kind: SettingKind = SETTINGS[key];
  const ok = (value: unknown): Checked<SettingValues[K]> => ({ ok: true, value: value as SettingValues[K] });
  switch (kind) {
    case 'string':
      if (typeof raw === 'string' && raw.trim() !== '') return ok(raw.trim());
      return { ok: false, reason: 'expected a non-empty string' };
    case 'boolean': {
      const b = bool(raw);
      return b === undefined ? { ok: false, reason: 'expected true or false' } : ok(b);
    }
    case 'number':
    case 'integer': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      if (!Number.isFinite(n) || n < 0 || (kind === 'integer' && !Number.isInteger(n))) {
        return { ok: false, reason: kind === 'integer' ? 'expected a whole number of 0 or more' : 'expected a number of 0 or more' };
      }
      return ok(n);
    }
    case 'sequence': {
      const list =
        typeof raw === 'string'
          ? raw
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== '')
          : stringList(raw);
      if (list === undefined) return { ok: false, reason: 'expected a list of strings' };
      return list.length > MAX_SETTING_ENTRIES ? tooMany(list.length) : ok(list);
    }
    case 'map': {
      if (!isPlainObject(raw)) return { ok: false, reason: 'expected a mapping of names to strings' };
      if (Object.keys(raw).length > MAX_SETTING_ENTRIES) return tooMany(Object.keys(raw).length);
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw)) {
        if (typeof v !== 'string') return { ok: false, reason: `expected a string for "${k}"` };
        out[k] = v.trim();
      }
      return ok(out);
    }
    case 'map-of-sequences': {
      if (!isPlainObject(raw)) return { ok: false, reason: 'expected a mapping of names to lists' };
      if (Object.keys(raw).length > MAX_SETTING_ENTRIES) return tooMany(Object.keys(raw).length);
      const out: Record<string, string[]> = {};
      for (const [k, v] of Object.entries(raw)) {
        const list = stringList(v);
        if (list === undefined) return { ok: false, reason: `expected a list of strings for "${k}"` };
        if (list.length > MAX_SETTING_ENTRIES) return tooMany(list.length, k);
        out[k] = list;
      }
      return ok(out);
    }
    case 'ssl-verify': {
      const b = bool(raw);
      if (b !== undefined) return ok(b);
      if (typeof raw === 'string' && raw.trim() !== '') return ok(raw.trim());
      return { ok: false, reason: 'expected true, false or the path of a CA bundle' };
    }
    case 'channel-priority': {
      // conda still takes the old booleans: true is flexible, false is disabled.
      const b = typeof raw === 'boolean' ? raw : undefined;
      if (b !== undefined) return ok(b ? 'flexible' : 'disabled');
      const t = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
      if (t === 'strict' || t === 'flexible' || t === 'disabled') return ok(t);
      const tb = bool(t);
      if (tb !== undefined) return ok(tb ? 'flexible' : 'disabled');
      return { ok: false, reason: 'expected strict, flexible or disabled' };
    }
  }
}
