import fc from 'fast-check';

/**
 * One Unicode scalar value, any of them (U+0000 to U+10FFFF without the surrogates): what
 * fast-check's `unit: 'binary'` gives. That unit, the first time fast-check tries to shrink one of
 * its values, builds a reverse table of all 1.1 million code points (about 85 MB) and keeps it for
 * the rest of the worker, where every later test file pays for it in garbage collection.
 */
export const anyCodePoint = fc.nat({ max: 0x10ffff - 0x800 }).map((i) => String.fromCodePoint(i < 0xd800 ? i : i + 0x800));
