/**
 * Sizes as people write them in flags and variables: `1048576`, `512KiB`, `2MiB`, `1GB`. Binary
 * units (KiB, MiB, GiB) and their one-letter forms (k, m, g) are powers of 1024; KB, MB and GB are
 * powers of 1000, as in conda's and pip's own size settings.
 */
const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** Bytes, or null when `text` is not a size. */
export function parseByteSize(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) return null;
  const value = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(value) ? value : null;
}
