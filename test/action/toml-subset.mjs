// A strict reader for the small part of TOML that pixi.toml uses: comments, [table] and
// [dotted.table] headers, and `key = value` where value is a basic or literal string, a boolean, an
// integer, an array of those (possibly over several lines), or a one-line inline table of those.
// Anything else throws, so the pixi stand-in never misreads the manifest it emulates.
// Plain JavaScript because the stand-in runs under node without a TypeScript loader.

/** @typedef {string | number | boolean | TomlValue[] | { [key: string]: TomlValue }} TomlValue */

/**
 * @param {string} text
 * @returns {Record<string, TomlValue>}
 */
export function parseTomlSubset(text) {
  /** @type {Record<string, TomlValue>} */
  const root = {};
  let table = root;
  let pos = 0;
  let line = 1;

  const fail = (why) => {
    throw new Error(`Cannot parse TOML at line ${line}: ${why}`);
  };
  const peek = () => text[pos];
  const skipSpaces = () => {
    while (peek() === ' ' || peek() === '\t') pos++;
  };
  const skipComment = () => {
    if (peek() === '#') while (pos < text.length && peek() !== '\n') pos++;
  };
  // Whitespace, newlines and comments (inside arrays and between statements).
  const skipBlank = () => {
    for (;;) {
      skipSpaces();
      skipComment();
      if (peek() === '\n') {
        pos++;
        line++;
      } else if (peek() === '\r' && text[pos + 1] === '\n') {
        pos += 2;
        line++;
      } else return;
    }
  };
  const endOfLine = () => {
    skipSpaces();
    skipComment();
    if (pos >= text.length) return;
    if (peek() === '\r') pos++;
    if (peek() !== '\n') fail(`unexpected "${peek()}"`);
    pos++;
    line++;
  };

  const parseKey = () => {
    skipSpaces();
    if (peek() === '"' || peek() === "'") return parseString();
    const match = /^[A-Za-z0-9_-]+/.exec(text.slice(pos));
    if (!match) fail('expected a key');
    pos += match[0].length;
    return match[0];
  };
  const parseDottedKey = () => {
    const parts = [parseKey()];
    skipSpaces();
    while (peek() === '.') {
      pos++;
      parts.push(parseKey());
      skipSpaces();
    }
    return parts;
  };

  const parseString = () => {
    const quote = peek();
    if (text.startsWith(quote.repeat(3), pos)) fail('multi-line strings are not supported');
    pos++;
    let value = '';
    for (;;) {
      const c = text[pos];
      if (c === undefined || c === '\n') fail('unterminated string');
      pos++;
      if (c === quote) return value;
      if (c === '\\' && quote === '"') {
        const e = text[pos++];
        const simple = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };
        if (e in simple) value += simple[e];
        else if (e === 'u' || e === 'U') {
          const size = e === 'u' ? 4 : 8;
          const hex = text.slice(pos, pos + size);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== size) fail('bad unicode escape');
          value += String.fromCodePoint(parseInt(hex, 16));
          pos += size;
        } else fail(`bad escape "\\${e}"`);
      } else value += c;
    }
  };

  /** @returns {TomlValue} */
  const parseValue = () => {
    skipSpaces();
    const c = peek();
    if (c === '"' || c === "'") return parseString();
    if (c === '[') {
      pos++;
      /** @type {TomlValue[]} */
      const items = [];
      for (;;) {
        skipBlank();
        if (peek() === ']') {
          pos++;
          return items;
        }
        items.push(parseValue());
        skipBlank();
        if (peek() === ',') pos++;
        else if (peek() !== ']') fail('expected "," or "]" in an array');
      }
    }
    if (c === '{') {
      pos++;
      /** @type {Record<string, TomlValue>} */
      const inline = {};
      skipSpaces();
      if (peek() === '}') {
        pos++;
        return inline;
      }
      for (;;) {
        const key = parseDottedKey();
        if (key.length !== 1) fail('dotted keys in inline tables are not supported');
        if (peek() !== '=') fail('expected "="');
        pos++;
        if (Object.hasOwn(inline, key[0])) fail(`duplicate key "${key[0]}"`);
        inline[key[0]] = parseValue();
        skipSpaces();
        if (peek() === ',') {
          pos++;
          continue;
        }
        if (peek() === '}') {
          pos++;
          return inline;
        }
        fail('expected "," or "}" in an inline table');
      }
    }
    const scalar = /^(true|false|[-+]?\d+)(?=[\s,\]}#]|$)/.exec(text.slice(pos));
    if (scalar) {
      pos += scalar[0].length;
      if (scalar[0] === 'true' || scalar[0] === 'false') return scalar[0] === 'true';
      return Number(scalar[0]);
    }
    return fail(`unsupported value starting with "${c}"`);
  };

  const descend = (parts) => {
    let node = root;
    for (const part of parts) {
      if (!Object.hasOwn(node, part)) node[part] = {};
      const next = node[part];
      if (typeof next !== 'object' || Array.isArray(next)) fail(`"${parts.join('.')}" is not a table`);
      node = next;
    }
    return node;
  };

  for (;;) {
    skipBlank();
    if (pos >= text.length) return root;
    if (peek() === '[') {
      if (text[pos + 1] === '[') fail('arrays of tables are not supported');
      pos++;
      const parts = parseDottedKey();
      if (peek() !== ']') fail('expected "]"');
      pos++;
      table = descend(parts);
      endOfLine();
      continue;
    }
    const key = parseDottedKey();
    if (peek() !== '=') fail('expected "="');
    pos++;
    const value = parseValue();
    let target = table;
    for (const part of key.slice(0, -1)) {
      if (!Object.hasOwn(target, part)) target[part] = {};
      target = target[part];
      if (typeof target !== 'object' || Array.isArray(target)) fail(`"${key.join('.')}" is not a table`);
    }
    const last = key[key.length - 1];
    if (Object.hasOwn(target, last)) fail(`duplicate key "${key.join('.')}"`);
    target[last] = value;
    endOfLine();
  }
}
