/**
 * Where a JSON text stops being valid, for error messages. `JSON.parse` in Node 20 often reports
 * `Unexpected token '}', ..."` without a position, so on the (rare) error path we walk the text
 * with a strict RFC 8259 validator and report the first offending character. Only used after
 * `JSON.parse` has failed, so speed does not matter.
 */

export interface JsonErrorLocation {
  /** Offset in UTF-16 code units into the text (equal to the text's length when it ends early). */
  readonly offset: number;
  /** What the grammar expected there, e.g. `a value` or `"," or "}"`. */
  readonly expected: string;
}

const WS = new Set([' ', '\t', '\n', '\r']);

/** The first error in `text`, or null when it is valid JSON. */
export function locateJsonError(text: string): JsonErrorLocation | null {
  let i = 0;
  const n = text.length;
  const fail = (expected: string): JsonErrorLocation => ({ offset: Math.min(i, n), expected });
  const ws = (): void => {
    while (i < n && WS.has(text[i])) i++;
  };
  // An explicit stack instead of recursion: repodata can nest deeply only if it is hostile.
  const stack: Array<'{' | '['> = [];
  // state: 'value' expects a value; 'after' has just finished one.
  let state: 'value' | 'after' = 'value';
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  for (;;) {
    ws();
    if (state === 'value') {
      if (i >= n) return fail('a value');
      const c = text[i];
      if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        ws();
        if (text[i] === (c === '{' ? '}' : ']')) {
          stack.pop();
          i++;
          state = 'after';
          continue;
        }
        if (c === '{') {
          const error = key();
          if (error) return error;
        }
        continue;
      }
      const error = c === '"' ? string() : c === '-' || (c >= '0' && c <= '9') ? number() : literal();
      if (error) return error;
      state = 'after';
      continue;
    }
    // state === 'after'
    const top = stack[stack.length - 1];
    if (top === undefined) return i >= n ? null : fail('the end of the document');
    if (i >= n) return fail(top === '{' ? '"," or "}"' : '"," or "]"');
    const c = text[i];
    if (c === ',') {
      i++;
      if (top === '{') {
        ws();
        const error = key();
        if (error) return error;
      }
      state = 'value';
      continue;
    }
    if ((top === '{' && c === '}') || (top === '[' && c === ']')) {
      stack.pop();
      i++;
      continue;
    }
    return fail(top === '{' ? '"," or "}"' : '"," or "]"');
  }

  function key(): JsonErrorLocation | null {
    if (text[i] !== '"') return fail('a key string');
    const error = string();
    if (error) return error;
    ws();
    if (text[i] !== ':') return fail('":"');
    i++;
    state = 'value';
    return null;
  }

  function string(): JsonErrorLocation | null {
    i++;
    while (i < n) {
      const code = text.charCodeAt(i);
      if (code === 0x22) {
        i++;
        return null;
      }
      if (code < 0x20) return fail('a closing quote (control characters must be escaped)');
      if (code === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i += 2;
            return fail('four hex digits after "\\u"');
          }
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) {
          i++;
          return fail('a valid escape');
        }
        i += 2;
        continue;
      }
      i++;
    }
    return fail('a closing quote');
  }

  function number(): JsonErrorLocation | null {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) return fail('a number');
    i += match[0].length;
    return null;
  }

  function literal(): JsonErrorLocation | null {
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return null;
      }
    }
    return fail('a value');
  }
}
