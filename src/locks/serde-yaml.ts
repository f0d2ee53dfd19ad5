/**
 * A YAML emitter that writes what Rust's serde_yaml 0.9 writes (pixi and rattler write pixi.lock
 * with it, `LockFile::render_to_string`), for plain data: block mappings and sequences, strings,
 * integers, booleans, null. serde_yaml drives libyaml's emitter with indent 2, no line width
 * (`yaml_emitter_set_width(-1)`: long scalars are never folded) and unicode allowed, so:
 *
 * - a sequence that is a mapping's value is not indented (`platforms:` then `- name: ...`);
 * - a string is single-quoted when plain text would read back as another type (null, a boolean,
 *   an integer, a float, or digits with a leading zero: serde_yaml's `InferScalarStyle`);
 *   otherwise plain when libyaml's `yaml_emitter_analyze_scalar` allows a plain block scalar,
 *   else single-quoted, else double-quoted with escapes;
 * - an empty mapping or sequence is `{}` or `[]`.
 *
 * The ruamel-compatible emitter in `src/exporters/yaml/` writes what conda writes instead; the two
 * differ in sequence indentation, folding and some quoting, so each format uses its writer's.
 */
import { isMapping } from '../exporters/yaml/data.js';
import { YamlEmitError, type YamlValue } from '../exporters/yaml/index.js';

/** The document as serde_yaml writes it, ending in one newline. */
export function emitSerdeYaml(document: YamlValue): string {
  const lines: string[] = [];
  if (isMapping(document)) writeMapping(lines, entriesOf(document), 0, '');
  else if (Array.isArray(document)) writeSequence(lines, document, 0, '');
  else lines.push(scalar(document, false));
  return `${lines.join('\n')}\n`;
}

function entriesOf(mapping: YamlValue): [string, YamlValue][] {
  if (mapping instanceof Map) return [...(mapping as ReadonlyMap<string, YamlValue>).entries()];
  return Object.entries(mapping as Record<string, YamlValue | undefined>).filter((e): e is [string, YamlValue] => e[1] !== undefined);
}

/** Whether the value is written on the line of its key or dash (a scalar or an empty collection). */
function inline(value: YamlValue): string | undefined {
  if (Array.isArray(value)) return value.length === 0 ? '[]' : undefined;
  if (isMapping(value)) return entriesOf(value).length === 0 ? '{}' : undefined;
  return scalar(value, false);
}

/** Block mapping entries at `indent`; the first line starts with `first` instead of spaces (a dash). */
function writeMapping(lines: string[], entries: [string, YamlValue][], indent: number, first: string): void {
  entries.forEach(([key, value], i) => {
    const lead = i === 0 && first !== '' ? first : ' '.repeat(indent);
    const head = `${lead}${scalar(key, true)}:`;
    const text = inline(value);
    if (text !== undefined) lines.push(`${head} ${text}`);
    else if (Array.isArray(value)) {
      lines.push(head);
      writeSequence(lines, value, indent, '');
    } else {
      lines.push(head);
      writeMapping(lines, entriesOf(value), indent + 2, '');
    }
  });
}

function writeSequence(lines: string[], items: readonly YamlValue[], indent: number, first: string): void {
  items.forEach((item, i) => {
    const dash = `${i === 0 && first !== '' ? first : ' '.repeat(indent)}- `;
    const text = inline(item);
    if (text !== undefined) lines.push(`${dash}${text}`);
    else if (Array.isArray(item)) writeSequence(lines, item, indent + 2, dash);
    else writeMapping(lines, entriesOf(item), indent + 2, dash);
  });
}

function scalar(value: YamlValue, key: boolean): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new YamlEmitError(`Cannot emit YAML: ${value} is not a finite number`);
    return String(value);
  }
  if (typeof value !== 'string') throw new YamlEmitError(`Cannot emit YAML: unsupported value of type ${typeof value}`);
  const analysis = analyze(value);
  // serde_yaml asks for a literal block for text with a line break; libyaml refuses one for a key
  // or text with trailing spaces, and gives double quotes. Locks hold no such text, so double
  // quotes (which read back the same) are written for all of it.
  if (value.includes('\n')) return doubleQuoted(value);
  if (readsAsOtherType(value)) return analysis.single ? singleQuoted(value) : doubleQuoted(value);
  if (analysis.plain && !(key && value === '')) return value;
  return analysis.single ? singleQuoted(value) : doubleQuoted(value);
}

/** serde_yaml's `InferScalarStyle`: text plain YAML would read as null, a boolean, an integer or a float. */
function readsAsOtherType(text: string): boolean {
  if (text === '' || text === '~' || /^(null|Null|NULL|true|True|TRUE|false|False|FALSE)$/.test(text)) return true;
  // Digits with a leading zero are text in YAML 1.2, but serde_yaml quotes them all the same.
  if (/^[-+]?0\d+$/.test(text)) return true;
  if (/^\+?(0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+)$/.test(text) || /^-(0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+)$/.test(text)) return true;
  if (/^[-+]?\d+$/.test(text)) return true;
  if (/^[-+]?(\.inf|\.Inf|\.INF)$/.test(text) || /^(\.nan|\.NaN|\.NAN)$/.test(text)) return true;
  // Rust's f64 grammar, finite values only (`inf` and `nan` parse but are not finite).
  return /^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$/.test(text);
}

/** libyaml's `yaml_emitter_analyze_scalar` for block context, with unicode allowed. */
function analyze(text: string): { plain: boolean; single: boolean } {
  if (text === '') return { plain: false, single: true };
  const chars = Array.from(text);
  let blockIndicators = text.startsWith('---') || text.startsWith('...');
  let special = false;
  let lineBreaks = false;
  let leadingSpace = false;
  let trailingSpace = false;
  let leadingBreak = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  const blank = (ch: string | undefined) => ch === undefined || ch === ' ' || ch === '\t' || isBreak(ch);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const followedByWhitespace = blank(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true;
      if ((ch === '?' || ch === ':') && followedByWhitespace) blockIndicators = true;
      if (ch === '-' && followedByWhitespace) blockIndicators = true;
    } else {
      if (ch === ':' && followedByWhitespace) blockIndicators = true;
      if (ch === '#' && precededByWhitespace) blockIndicators = true;
    }
    if (!isPrintable(ch)) special = true;
    if (isBreak(ch)) lineBreaks = true;
    if (ch === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(ch)) {
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = blank(ch);
  }
  let plain = !(leadingSpace || leadingBreak || trailingSpace || trailingBreak || lineBreaks || blockIndicators);
  let single = true;
  if (breakSpace || spaceBreak || special) {
    plain = false;
    single = false;
  }
  return { plain, single };
}

function isBreak(ch: string): boolean {
  return ch === '\n' || ch === '\r' || ch === '\x85' || ch === '\u2028' || ch === '\u2029';
}

/** libyaml's `IS_PRINTABLE` (tab is not). */
function isPrintable(ch: string): boolean {
  const code = ch.codePointAt(0)!;
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    code === 0x85 ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff) ||
    code >= 0x10000
  );
}

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\0': '0',
  '\x07': 'a',
  '\b': 'b',
  '\t': 't',
  '\n': 'n',
  '\v': 'v',
  '\f': 'f',
  '\r': 'r',
  '\x1b': 'e',
  '"': '"',
  '\\': '\\',
  '\x85': 'N',
  '\xa0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

/** libyaml's `yaml_emitter_write_double_quoted_scalar` without line breaks (no width). */
function doubleQuoted(text: string): string {
  let out = '"';
  for (const ch of text) {
    const short = ESCAPES[ch];
    if (short !== undefined) out += `\\${short}`;
    else if (!isPrintable(ch) || ch === '\ufeff') {
      const code = ch.codePointAt(0)!;
      const hex = code.toString(16).toUpperCase();
      out += code <= 0xff ? `\\x${hex.padStart(2, '0')}` : code <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\U${hex.padStart(8, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}
