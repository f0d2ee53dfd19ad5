/**
 * Python's ordering of strings, which conda and conda-lockfiles use for every sorted list they
 * write (platforms, packages, format names): by Unicode code point, stable.
 */

/** Python's `str` comparison: by Unicode code point (JavaScript's `<` compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (astral code points) sort after U+E000..U+FFFF in code point order.
      if (x >= 0xd800) x += x >= 0xe000 ? -0x800 : 0x2000;
      if (y >= 0xd800) y += y >= 0xe000 ? -0x800 : 0x2000;
      return x < y ? -1 : 1;
    }
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Python's `sorted(key=lambda ...: (k1, k2))`: stable, tuple keys compared as strings. */
export function sortByKeys<T>(items: readonly T[], keys: (item: T) => readonly string[]): T[] {
  const keyed = items.map((item) => ({ item, key: keys(item) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < a.key.length; i++) {
      const order = compareCodePoints(a.key[i], b.key[i]);
      if (order !== 0) return order;
    }
    return 0;
  });
  return keyed.map(({ item }) => item);
}
