/**
 * A YAML emitter that writes what Rust's serde_yaml 0.9 writes (pixi and rattler write pixi.lock with
 * it, `LockFile::render_to_string`), for plain data. The ruamel-compatible emitter in
 * `src/exporters/yaml/` writes what conda writes instead; the two differ in sequence indentation,
 * folding and some quoting, so each format uses its writer's. The rules are on `emitSerdeYaml`.
 */
import { isMapping } from '../exporters/yaml/data.js';
import { YamlEmitError, type YamlValue } from '../exporters/yaml/index.js';
import { analyzeScalar, escapeForDoubleQuotes, needsDoubleQuoteEscape } from '../exporters/yaml/scalars.js';

/**
 * The document as serde_yaml writes it, ending in one newline.
 *
 * integers, booleans, null. serde_yaml drives libyaml's emitter with indent 2, no line width
 * (`yaml_emitter_set_width(-1)`: long scalars are never folded) and unicode allowed, so:
 *
 * - a sequence that is a mapping's value is not indented (`platforms:` then `- name: ...`);
 * - a string is single-quoted when plain text would read back as another type (null, a boolean,
 *   an integer, a float, or digits with a leading zero: serde_yaml's `InferScalarStyle`);
 *   otherwise plain when libyaml's `yaml_emitter_analyze_scalar` allows a plain block scalar,
 *   else single-quoted, else double-quoted with escapes;
 * - an empty mapping or sequence is `{}` or `[]`.
 */
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
  // libyaml's `yaml_emitter_analyze_scalar` in block context, with unicode allowed, answers as
  // ruamel's port of it does.
  const analysis = analyzeScalar(value);
  // serde_yaml asks for a literal block for text with a line break; libyaml refuses one for a key
  // or text with trailing spaces, and gives double quotes. Locks hold no such text, so double
  // quotes (which read back the same) are written for all of it.
  if (value.includes('\n')) return doubleQuoted(value);
  if (readsAsOtherType(value)) return analysis.allowSingleQuoted ? singleQuoted(value) : doubleQuoted(value);
  if (analysis.allowBlockPlain && !analysis.empty && !(key && value === '')) return value;
  return analysis.allowSingleQuoted ? singleQuoted(value) : doubleQuoted(value);
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

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** libyaml's `yaml_emitter_write_double_quoted_scalar` without line breaks (no width); its escapes are ruamel's. */
function doubleQuoted(text: string): string {
  let out = '"';
  for (const ch of text) out += needsDoubleQuoteEscape(ch) ? escapeForDoubleQuotes(ch) : ch;
  return `${out}"`;
}
