/**
 * The tokens of PEP 508 dependency specifiers and markers, read one at a time at a position, as
 * packaging's `_tokenizer.py` reads them (its rules, its word boundaries, its messages).
 */
import { SPECIFIER_PATTERN } from './specifier.js';

// Python's `\b` on str patterns is Unicode-aware: a word character is a letter, a number or `_`.
const W = '[\\p{L}\\p{N}_]';
const B = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;

const RULES = {
  LEFT_PARENTHESIS: /\(/y,
  RIGHT_PARENTHESIS: /\)/y,
  LEFT_BRACKET: /\[/y,
  RIGHT_BRACKET: /\]/y,
  SEMICOLON: /;/y,
  COMMA: /,/y,
  QUOTED_STRING: /'[^']*'|"[^"]*"/y,
  OP: /===|==|~=|!=|<=|>=|<|>/y,
  BOOLOP: new RegExp(`${B}(?:or|and)${B}`, 'uy'),
  IN: new RegExp(`${B}in${B}`, 'uy'),
  NOT: new RegExp(`${B}not${B}`, 'uy'),
  VARIABLE: new RegExp(
    `${B}(?:python_version|python_full_version|os[._]name|sys[._]platform|platform_(?:release|system)` +
      `|platform[._](?:version|machine|python_implementation)|python_implementation|implementation_(?:name|version)` +
      `|extras?|dependency_groups)${B}`,
    'uy',
  ),
  SPECIFIER: new RegExp(SPECIFIER_PATTERN, 'iy'),
  AT: /@/y,
  URL: /[^ \t]+/y,
  IDENTIFIER: new RegExp(`${B}[a-zA-Z0-9][a-zA-Z0-9._-]*${B}`, 'uy'),
  VERSION_PREFIX_TRAIL: /\.\*/y,
  VERSION_LOCAL_LABEL_TRAIL: /\+[a-z0-9]+(?:[-_.][a-z0-9]+)*/y,
  WS: /[ \t]+/y,
} as const;

export type TokenName = keyof typeof RULES | 'END';

/** A syntax error where reading stopped (`position`), in packaging's words ("Expected ..."). */
export class TokenizerError extends Error {
  readonly position: number;
  constructor(message: string, position: number) {
    super(message);
    this.position = position;
  }
}

export class Tokenizer {
  readonly source: string;
  position = 0;

  constructor(source: string) {
    this.source = source;
  }

  /** The text of token `name` at the current position, without reading it; undefined when absent. */
  peek(name: TokenName): string | undefined {
    if (name === 'END') return this.position === this.source.length ? '' : undefined;
    const re = RULES[name];
    re.lastIndex = this.position;
    return re.exec(this.source)?.[0];
  }

  /** Reads token `name` when it is next; returns its text, or undefined. */
  take(name: TokenName): string | undefined {
    const text = this.peek(name);
    if (text !== undefined) this.position += text.length;
    return text;
  }

  /** Reads token `name`, or fails with "Expected <expected>". */
  expect(name: TokenName, expected: string): string {
    const text = this.take(name);
    if (text === undefined) throw this.error(`Expected ${expected}`);
    return text;
  }

  error(message: string): TokenizerError {
    return new TokenizerError(message, this.position);
  }

  /** Runs `body` inside an optional `open` ... `close` pair (a parenthesised specifier or marker). */
  enclosed<T>(open: TokenName, close: TokenName, around: string, body: () => T): T {
    const openPosition = this.peek(open) === undefined ? undefined : this.position;
    if (openPosition !== undefined) this.take(open);
    const value = body();
    if (openPosition !== undefined && this.take(close) === undefined) {
      throw this.error(`Expected matching ${close} for ${open}, after ${around}`);
    }
    return value;
  }
}
