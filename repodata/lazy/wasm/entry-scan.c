// The entry scan of a repodata.json package section, in WebAssembly with 128-bit SIMD: the fast
// path of `stream-scan.ts` (see `entry-scan.ts`, which drives it). Built by
// `node scripts/build-entry-scan.mjs` (clang and wasm-ld) into `entry-scan-wasm.ts`.
//
// `scan_entries` reads `"file name": {record}` entries, each followed by `,`, from the input
// buffer and writes one row per entry into the output columns, until an entry it leaves to the
// JavaScript scan (anything unusual), the end of the section, the end of the bytes, or full
// output. It gives the same rows as the exact JavaScript scan (`scanRecordObject`): within a
// record it follows strings, nesting (`{` `[` `}` `]` alike) and, at the record's own level,
// which string is a key, and takes the last "name" key's string value. It does not validate
// JSON inside a record (nor does the exact scan: a record is parsed when it is read).
//
// What it leaves to JavaScript (returns before the entry, with the rows so far): a file name
// with a backslash, a byte >= 0x80 or a leading digit; anything but `:` and `{` after it; a
// record with a backslash before its end; a record whose name is missing, not a string or empty;
// an entry not complete in the bytes given.
//
// How a record is read: 64 bytes at a time, SIMD compares give bit masks of quotes, backslashes
// and structural characters; the prefix XOR of the quote mask says which bytes are inside
// strings (exact while there is no backslash); the structural characters outside strings and the
// opening quotes are then visited in order.

#include <stdint.h>
#include <wasm_simd128.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;

#define MAX_ROWS 4096

#define FNV_OFFSET 0x811c9dc5u
#define FNV_PRIME 0x01000193u

// Output columns, one entry per row (document offsets unless said otherwise).
static u32 out_fn_hash[MAX_ROWS];
static u32 out_fn_start[MAX_ROWS];
static u32 out_fn_end[MAX_ROWS];
static u32 out_rec_start[MAX_ROWS];
static u32 out_rec_end[MAX_ROWS];
// Buffer offsets of the name's bytes, and their FNV-1a hash.
static u32 out_name_start[MAX_ROWS];
static u32 out_name_end[MAX_ROWS];
static u32 out_name_hash[MAX_ROWS];
// Bit 0: the name has a byte >= 0x80; bit 1: the same bytes as the previous row's name.
static u8 out_flags[MAX_ROWS];

// results[0]: where the scan stopped (buffer offset); [1]: why (STOP_*); [2]: the first row whose
// file name is not greater than the previous row's, or MAX_ROWS + 1 when none.
static u32 results[4];

#define STOP_ENTRY 0  // an entry starts here (or is due): the JavaScript scan reads it
#define STOP_SEPARATOR 1  // after an entry, not followed by ","
#define STOP_FULL 2  // the output is full; the next entry starts here

// What `scan_record` found.
static u32 name_start;
static u32 name_end;
static u32 name_state;  // 0 missing, 1 a string, 2 not a string

__attribute__((export_name("rows_capacity"))) u32 rows_capacity(void) { return MAX_ROWS; }
__attribute__((export_name("out_fn_hash"))) u32* p_fn_hash(void) { return out_fn_hash; }
__attribute__((export_name("out_fn_start"))) u32* p_fn_start(void) { return out_fn_start; }
__attribute__((export_name("out_fn_end"))) u32* p_fn_end(void) { return out_fn_end; }
__attribute__((export_name("out_rec_start"))) u32* p_rec_start(void) { return out_rec_start; }
__attribute__((export_name("out_rec_end"))) u32* p_rec_end(void) { return out_rec_end; }
__attribute__((export_name("out_name_start"))) u32* p_name_start(void) { return out_name_start; }
__attribute__((export_name("out_name_end"))) u32* p_name_end(void) { return out_name_end; }
__attribute__((export_name("out_name_hash"))) u32* p_name_hash(void) { return out_name_hash; }
__attribute__((export_name("out_flags"))) u8* p_flags(void) { return out_flags; }
__attribute__((export_name("results"))) u32* p_results(void) { return results; }

extern u8 __heap_base;
// Where the input buffer may start (the host grows the memory to fit it).
__attribute__((export_name("heap_base"))) u32 heap_base(void) { return (u32)(uintptr_t)&__heap_base; }

static inline int is_ws(u8 c) { return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09; }

static inline u32 skip_ws(const u8* b, u32 i, u32 n) {
  while (i < n && is_ws(b[i])) i++;
  return i;
}

static inline u64 prefix_xor(u64 x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

static inline u64 mask64(v128_t a, v128_t b, v128_t c, v128_t d) {
  return (u64)wasm_i8x16_bitmask(a) | ((u64)wasm_i8x16_bitmask(b) << 16) | ((u64)wasm_i8x16_bitmask(c) << 32) |
         ((u64)wasm_i8x16_bitmask(d) << 48);
}

#define EQ4(x) mask64(wasm_i8x16_eq(v0, x), wasm_i8x16_eq(v1, x), wasm_i8x16_eq(v2, x), wasm_i8x16_eq(v3, x))

// The record object whose "{" is at b[start]: returns the offset just past its "}", or 0 when the
// JavaScript scan must read it (a backslash before its end, a bracket where a key is due, or the
// bytes end first). Sets name_start, name_end and name_state. The host keeps 64 readable bytes
// past b[n].
//
// The exact scan's rule for keys: a string at the record's level while a key is due (after the
// "{" or a "," and before the next ":") sets "the key is name" to whether it is "name"; a ":"
// then reads the name's value when it is set. Here the strings are not visited: at such a ":",
// the last opening quote before it is found in the quote masks, and it counts when it comes after
// the point where a key became due. A bracket while a key is due (no valid record has one) is left
// to the JavaScript scan, so no string between is nested.
static u32 scan_record(const u8* b, u32 start, u32 n) {
  const v128_t quote = wasm_i8x16_splat('"');
  const v128_t backslash = wasm_i8x16_splat('\\');
  const v128_t colon = wasm_i8x16_splat(':');
  const v128_t comma = wasm_i8x16_splat(',');
  // "{" is 0x7b and "[" 0x5b, "}" 0x7d and "]" 0x5d: compared with bit 5 cleared.
  const v128_t clear5 = wasm_i8x16_splat((char)0xdf);
  const v128_t open = wasm_i8x16_splat(0x5b);
  const v128_t close = wasm_i8x16_splat(0x5d);
  u32 depth = 0;
  int expect_key = 1;
  // Where a key became due (the "{" or the "," after a value); the last opening quote in the
  // blocks before this one (0: none; offsets here are > start).
  u32 key_due = start;
  u32 last_quote = 0;
  u64 inside_carry = 0;
  name_state = 0;
  for (u32 at = start; at < n; at += 64) {
    const v128_t v0 = wasm_v128_load(b + at);
    const v128_t v1 = wasm_v128_load(b + at + 16);
    const v128_t v2 = wasm_v128_load(b + at + 32);
    const v128_t v3 = wasm_v128_load(b + at + 48);
    const u64 valid = n - at >= 64 ? ~(u64)0 : (((u64)1 << (n - at)) - 1);
    u64 quotes = EQ4(quote) & valid;
    const u64 backslashes = EQ4(backslash) & valid;
    // Bits at and after the first backslash are not read here: the record must end before it.
    u64 limit = valid;
    if (backslashes != 0) {
      limit = backslashes & (0 - backslashes);
      limit -= 1;
      quotes &= limit;
    }
    const u64 inside = prefix_xor(quotes) ^ inside_carry;
    inside_carry = (u64)((int64_t)inside >> 63);
    const u64 opening = quotes & inside;
    const v128_t w0 = wasm_v128_and(v0, clear5);
    const v128_t w1 = wasm_v128_and(v1, clear5);
    const v128_t w2 = wasm_v128_and(v2, clear5);
    const v128_t w3 = wasm_v128_and(v3, clear5);
    const u64 brackets = mask64(wasm_v128_or(wasm_i8x16_eq(w0, open), wasm_i8x16_eq(w0, close)),
                                wasm_v128_or(wasm_i8x16_eq(w1, open), wasm_i8x16_eq(w1, close)),
                                wasm_v128_or(wasm_i8x16_eq(w2, open), wasm_i8x16_eq(w2, close)),
                                wasm_v128_or(wasm_i8x16_eq(w3, open), wasm_i8x16_eq(w3, close)));
    const u64 separators = mask64(wasm_v128_or(wasm_i8x16_eq(v0, colon), wasm_i8x16_eq(v0, comma)),
                                  wasm_v128_or(wasm_i8x16_eq(v1, colon), wasm_i8x16_eq(v1, comma)),
                                  wasm_v128_or(wasm_i8x16_eq(v2, colon), wasm_i8x16_eq(v2, comma)),
                                  wasm_v128_or(wasm_i8x16_eq(v3, colon), wasm_i8x16_eq(v3, comma)));
    u64 visit = (brackets | separators) & ~inside & limit;
    while (visit != 0) {
      const u32 bit = (u32)__builtin_ctzll(visit);
      const u32 i = at + bit;
      visit &= visit - 1;
      const u8 c = b[i];
      if (c == ':') {
        if (depth == 1 && expect_key) {
          expect_key = 0;
          const u64 before = opening & (((u64)1 << bit) - 1);
          const u32 q = before != 0 ? at + 63 - (u32)__builtin_clzll(before) : last_quote;
          if (q > key_due && b[q + 1] == 'n' && b[q + 2] == 'a' && b[q + 3] == 'm' && b[q + 4] == 'e' && b[q + 5] == '"') {
            // The value of "name": the last one wins, as in JSON.parse.
            u32 j = skip_ws(b, i + 1, n);
            if (j >= n) return 0;
            if (b[j] == '"') {
              u32 e = j + 1;
              while (e < n && b[e] != '"' && b[e] != '\\') e++;
              if (e >= n || b[e] == '\\') return 0;
              name_start = j + 1;
              name_end = e;
              name_state = 1;
            } else {
              name_state = 2;
            }
          }
        } else if (depth == 1) {
          expect_key = 0;
        }
      } else if (c == ',') {
        if (depth == 1 && !expect_key) {
          expect_key = 1;
          key_due = i;
        }
      } else {
        if (depth == 1 && expect_key && i != start) return 0;
        if ((c & 0xdf) == 0x5b) {
          depth++;
        } else {
          depth--;
          if (depth == 0) return i + 1;
        }
      }
    }
    if (limit != valid) return 0;
    if (opening != 0) last_quote = at + 63 - (u32)__builtin_clzll(opening);
  }
  return 0;
}

static inline int less_bytes(const u8* b, u32 s1, u32 e1, u32 s2, u32 e2) {
  const u32 l1 = e1 - s1;
  const u32 l2 = e2 - s2;
  const u32 common = l1 < l2 ? l1 : l2;
  for (u32 k = 0; k < common; k++) {
    if (b[s1 + k] != b[s2 + k]) return b[s1 + k] < b[s2 + k];
  }
  return l1 < l2;
}

// Reads entries from b[at] (after a section's "{" or an entry's ","; whitespace first) up to
// b[n]; `base` is the document offset of b[0]. Returns the rows written; `results` says where
// and why it stopped.
__attribute__((export_name("scan_entries"))) u32 scan_entries(const u8* b, u32 at, u32 n, u32 base) {
  u32 rows = 0;
  u32 reason = STOP_ENTRY;
  results[2] = MAX_ROWS + 1;
  for (;;) {
    if (rows == MAX_ROWS) {
      reason = STOP_FULL;
      break;
    }
    u32 p = skip_ws(b, at, n);
    if (p >= n || b[p] != '"') break;
    const u32 fn_start = p + 1;
    if (fn_start < n && b[fn_start] >= '0' && b[fn_start] <= '9') break;
    u32 hash = FNV_OFFSET;
    u32 j = fn_start;
    while (j < n) {
      const u8 c = b[j];
      if (c == '"' || c == '\\' || c >= 0x80) break;
      hash = (hash ^ c) * FNV_PRIME;
      j++;
    }
    if (j >= n || b[j] != '"') break;
    const u32 fn_end = j;
    p = skip_ws(b, j + 1, n);
    if (p >= n || b[p] != ':') break;
    p = skip_ws(b, p + 1, n);
    if (p >= n || b[p] != '{') break;
    const u32 rec_start = p;
    const u32 rec_end = scan_record(b, rec_start, n);
    if (rec_end == 0 || name_state != 1 || name_end == name_start) break;
    u32 name_hash = FNV_OFFSET;
    u8 flags = 0;
    for (u32 k = name_start; k < name_end; k++) {
      const u8 c = b[k];
      if (c >= 0x80) flags = 1;
      name_hash = (name_hash ^ c) * FNV_PRIME;
    }
    if (rows > 0) {
      const u32 ps = out_name_start[rows - 1];
      const u32 pe = out_name_end[rows - 1];
      if (pe - ps == name_end - name_start && out_name_hash[rows - 1] == name_hash) {
        u32 k = 0;
        while (k < pe - ps && b[ps + k] == b[name_start + k]) k++;
        if (k == pe - ps) flags |= 2;
      }
      if (results[2] > MAX_ROWS &&
          !less_bytes(b, out_fn_start[rows - 1] - base, out_fn_end[rows - 1] - base, fn_start, fn_end)) {
        results[2] = rows;
      }
    }
    out_fn_hash[rows] = hash;
    out_fn_start[rows] = base + fn_start;
    out_fn_end[rows] = base + fn_end;
    out_rec_start[rows] = base + rec_start;
    out_rec_end[rows] = base + rec_end;
    out_name_start[rows] = name_start;
    out_name_end[rows] = name_end;
    out_name_hash[rows] = name_hash;
    out_flags[rows] = flags;
    rows++;
    p = skip_ws(b, rec_end, n);
    if (p >= n || b[p] != ',') {
      at = rec_end;
      reason = STOP_SEPARATOR;
      break;
    }
    at = p + 1;
  }
  results[0] = at;
  results[1] = reason;
  return rows;
}
