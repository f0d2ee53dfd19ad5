/**
 * Scalars: how ruamel.yaml reads a string's characters before writing it. `analyzeScalar` is
 * ruamel's `analyze_scalar` (which styles, plain, single- or double-quoted, can hold the text),
 * `prepareScalar` turns a value into text and says whether plain text would read back as the same
 * type (the resolver's question), and the double-quote escapes are `write_double_quoted`'s.
 * Which allowed style is used depends on where the scalar stands, so that choice is the emitter's.
 */
import { YamlEmitError, type YamlScalar } from './data.js';
import { resolvePlainScalar } from './resolver.js';

const LEADING_INDICATORS = new Set([...'#,[]{}&*!|>\'"%@`']);
const FLOW_INDICATORS = new Set([...',[]{}']);

/** ruamel's line breaks (YAML 1.1's, which it also writes). */
export function isLineBreak(ch: string): boolean {
  return ch === '\n' || ch === '\x85' || ch === '\u2028' || ch === '\u2029';
}

/** What ruamel counts as whitespace after an indicator (`'\0 \t\r\n\x85\u2028\u2029'`). */
function isWhitespaceAfter(ch: string): boolean {
  return ch === ' ' || ch === '\0' || ch === '\t' || ch === '\r' || isLineBreak(ch);
}

/**
 * A scalar's characters, indexable by code point (ruamel counts columns in code points): the
 * string itself when it has no surrogate pairs (each UTF-16 unit is then one code point),
 * otherwise an array of code points.
 */
export type Chars = string | readonly string[];

function toChars(text: string): Chars {
  return /[\uD800-\uDFFF]/.test(text) ? Array.from(text) : text;
}

export function piece(chars: Chars, start: number, end: number): string {
  return typeof chars === 'string' ? chars.slice(start, end) : chars.slice(start, end).join('');
}

// Text that analyses as a plain word with nothing to quote: a letter, digit or `_` first, then
// none of space, flow indicators or line breaks, and `:` never last (`a:` reads as a key).
const PLAIN_WORD = /^[A-Za-z0-9_](?:[A-Za-z0-9_./+=~<>!*&|@%^$()-]|[:#](?!$))*$/;

export interface ScalarAnalysis {
  readonly chars: Chars;
  /** No spaces and no line breaks: the plain writer has one word to place. */
  readonly singleWord: boolean;
  readonly empty: boolean;
  readonly multiline: boolean;
  readonly allowFlowPlain: boolean;
  readonly allowBlockPlain: boolean;
  readonly allowSingleQuoted: boolean;
  readonly allowDoubleQuoted: boolean;
}

/** A scalar ready to write: its text and whether a plain rendering would read back as the same type. */
export interface PreparedScalar {
  readonly text: string;
  readonly plainKeepsType: boolean;
}

/** null as empty text, booleans as `true`/`false`, safe integers in decimal; anything else throws. */
export function prepareScalar(value: YamlScalar): PreparedScalar {
  if (value === null) return { text: '', plainKeepsType: true };
  if (typeof value === 'boolean') return { text: value ? 'true' : 'false', plainKeepsType: true };
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new YamlEmitError(`Cannot emit YAML: ${value} is not an integer (only integers are supported)`);
    }
    return { text: String(value), plainKeepsType: true };
  }
  if (typeof value === 'string') return { text: value, plainKeepsType: resolvePlainScalar(value) === 'str' };
  throw new YamlEmitError(`Cannot emit YAML: unsupported value of type ${typeof value}`);
}

const DOUBLE_QUOTE_ESCAPES: Readonly<Record<string, string>> = {
  '\0': '0',
  '\x07': 'a',
  '\x08': 'b',
  '\x09': 't',
  '\x0A': 'n',
  '\x0B': 'v',
  '\x0C': 'f',
  '\x0D': 'r',
  '\x1B': 'e',
  '"': '"',
  '\\': '\\',
  '\x85': 'N',
  '\xA0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

function isPrintableForDoubleQuotes(ch: string): boolean {
  return (ch >= '\x20' && ch <= '\x7E') || (ch >= '\xA0' && ch <= '\uD7FF') || (ch >= '\uE000' && ch <= '\uFFFD');
}

/** Whether `write_double_quoted` writes this character as an escape. */
export function needsDoubleQuoteEscape(ch: string): boolean {
  return (
    ch === '"' || ch === '\\' || ch === '\x85' || ch === '\u2028' || ch === '\u2029' || ch === '\uFEFF' || !isPrintableForDoubleQuotes(ch)
  );
}

/** The escape `write_double_quoted` writes: a short one (`\n`) where YAML has it, else `\x`, `\u` or `\U` and hex. */
export function escapeForDoubleQuotes(ch: string): string {
  const short = DOUBLE_QUOTE_ESCAPES[ch];
  if (short !== undefined) return '\\' + short;
  const code = ch.codePointAt(0)!;
  const hex = code.toString(16).toUpperCase();
  if (code <= 0xff) return '\\x' + hex.padStart(2, '0');
  if (code <= 0xffff) return '\\u' + hex.padStart(4, '0');
  return '\\U' + hex.padStart(8, '0');
}

/** Characters that may appear in a plain or single-quoted scalar with `allow_unicode` on. */
function isAllowedUnicode(ch: string): boolean {
  if (ch === '\uFEFF') return false;
  return (
    ch === '\x85' ||
    (ch >= '\xA0' && ch <= '\uD7FF') ||
    (ch >= '\uE000' && ch <= '\uFFFD') ||
    (ch.length === 2 && ch.codePointAt(0)! >= 0x10000)
  );
}

/** ruamel's `analyze_scalar` (YAML 1.2 rules for `?` and `:`), with unicode allowed. */
export function analyzeScalar(text: string): ScalarAnalysis {
  if (PLAIN_WORD.test(text)) {
    return {
      chars: text,
      singleWord: true,
      empty: false,
      multiline: false,
      allowFlowPlain: true,
      allowBlockPlain: true,
      allowSingleQuoted: true,
      allowDoubleQuoted: true,
    };
  }
  const chars = toChars(text);
  if (chars.length === 0) {
    return {
      chars,
      singleWord: true,
      empty: true,
      multiline: false,
      allowFlowPlain: false,
      allowBlockPlain: true,
      allowSingleQuoted: true,
      allowDoubleQuoted: true,
    };
  }
  let blockIndicators = false;
  let flowIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;

  if (text.startsWith('---') || text.startsWith('...')) {
    blockIndicators = true;
    flowIndicators = true;
  }
  let precededByWhitespace = true;
  let followedByWhitespace = chars.length === 1 || isWhitespaceAfter(chars[1]);
  let previousSpace = false;
  let previousBreak = false;
  let anySpace = false;

  for (let index = 0; index < chars.length; index++) {
    const ch = chars[index];
    if (index === 0) {
      if (LEADING_INDICATORS.has(ch)) {
        flowIndicators = true;
        blockIndicators = true;
      }
      if (ch === '?' || ch === ':') {
        if (chars.length === 1) flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      }
      if (ch === '-' && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    } else {
      if (FLOW_INDICATORS.has(ch)) flowIndicators = true;
      if (ch === ':' && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
      if (ch === '#' && precededByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    }

    if (isLineBreak(ch)) lineBreaks = true;
    if (!(ch === '\n' || (ch >= '\x20' && ch <= '\x7E'))) {
      // With unicode allowed, printable non-ASCII characters are fine; everything else needs escapes.
      if (!isAllowedUnicode(ch)) specialCharacters = true;
    }

    if (ch === ' ') {
      anySpace = true;
      if (index === 0) leadingSpace = true;
      if (index === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isLineBreak(ch)) {
      if (index === 0) leadingBreak = true;
      if (index === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }

    precededByWhitespace = isWhitespaceAfter(ch);
    followedByWhitespace = index + 2 >= chars.length || isWhitespaceAfter(chars[index + 2]);
  }

  let allowFlowPlain = true;
  let allowBlockPlain = true;
  let allowSingleQuoted = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    allowFlowPlain = allowBlockPlain = false;
  }
  if (breakSpace) allowFlowPlain = allowBlockPlain = allowSingleQuoted = false;
  if (specialCharacters || spaceBreak) allowFlowPlain = allowBlockPlain = allowSingleQuoted = false;
  if (lineBreaks) allowFlowPlain = allowBlockPlain = false;
  if (flowIndicators) allowFlowPlain = false;
  if (blockIndicators) allowBlockPlain = false;

  return {
    chars,
    singleWord: !anySpace && !lineBreaks,
    empty: false,
    multiline: lineBreaks,
    allowFlowPlain,
    allowBlockPlain,
    allowSingleQuoted,
    allowDoubleQuoted: true,
  };
}
