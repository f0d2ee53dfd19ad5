/**
 * PEP 508 dependency specifiers: `name[extra1,extra2] (>=1.0,<2) ; marker` or
 * `name[extra] @ https://host/file.whl ; marker`, read with packaging's grammar (`_parser.py`).
 */
import { InvalidPypiSyntaxError } from './errors.js';
import { parseMarkerExpression, PypiMarker } from './markers.js';
import { normalizePypiName, type NormalizedPypiName } from './name.js';
import { parsePypiSpecifierSet, type PypiSpecifierSet } from './specifier.js';
import { Tokenizer, TokenizerError } from './tokenizer.js';

/** A requirement that is not valid PEP 508 (`CR_ERR_PYPI_REQUIREMENT_INVALID`). */
export class InvalidPypiRequirementError extends InvalidPypiSyntaxError {
  constructor(input: string, reason: string, position?: number) {
    super('CR_ERR_PYPI_REQUIREMENT_INVALID', 'Python requirement', input, reason, position);
  }
}

export class PypiRequirement {
  /** The project name as written. */
  readonly name: string;
  /** The extras as written, each once, sorted. */
  readonly extras: readonly string[];
  /** The version specifiers; empty for a URL requirement or none given. */
  readonly specifier: PypiSpecifierSet;
  /** The URL of `name @ URL`. */
  readonly url: string | undefined;
  readonly marker: PypiMarker | undefined;

  constructor(parts: {
    name: string;
    extras: readonly string[];
    specifier: PypiSpecifierSet;
    url: string | undefined;
    marker: PypiMarker | undefined;
  }) {
    this.name = parts.name;
    this.extras = [...new Set(parts.extras)].sort();
    this.specifier = parts.specifier;
    this.url = parts.url;
    this.marker = parts.marker;
  }

  /** The PEP 503 normalised name. */
  get normalizedName(): NormalizedPypiName {
    return normalizePypiName(this.name);
  }

  /** packaging's form: `name[a,b]>=1,<2 ; marker` without spaces in the specifier, `name @ URL ; marker`. */
  toString(): string {
    let text = this.name;
    if (this.extras.length > 0) text += `[${this.extras.join(',')}]`;
    if (!this.specifier.isEmpty) text += String(this.specifier);
    if (this.url !== undefined) text += ` @ ${this.url}${this.marker ? ' ' : ''}`;
    if (this.marker) text += `; ${this.marker}`;
    return text;
  }

  toJSON(): string {
    return this.toString();
  }
}

function parseExtras(t: Tokenizer): string[] {
  if (t.peek('LEFT_BRACKET') === undefined) return [];
  return t.enclosed('LEFT_BRACKET', 'RIGHT_BRACKET', 'extras', () => {
    t.take('WS');
    const extras: string[] = [];
    const first = t.take('IDENTIFIER');
    if (first !== undefined) {
      extras.push(first);
      for (;;) {
        t.take('WS');
        if (t.peek('IDENTIFIER') !== undefined) throw t.error('Expected comma between extra names');
        if (t.take('COMMA') === undefined) break;
        t.take('WS');
        extras.push(t.expect('IDENTIFIER', 'extra name after comma'));
      }
    }
    t.take('WS');
    return extras;
  });
}

function parseSpecifiers(t: Tokenizer): string {
  return t.enclosed('LEFT_PARENTHESIS', 'RIGHT_PARENTHESIS', 'version specifier', () => {
    t.take('WS');
    let text = '';
    for (let spec = t.take('SPECIFIER'); spec !== undefined; spec = t.take('SPECIFIER')) {
      text += spec;
      if (t.peek('VERSION_PREFIX_TRAIL') !== undefined) {
        throw t.error(
          /^(?:!=|==(?!=))/.test(spec)
            ? '.* suffix cannot be used with pre-release, post-release, dev or local versions'
            : '.* suffix can only be used with `==` or `!=` operators',
        );
      }
      if (t.peek('VERSION_LOCAL_LABEL_TRAIL') !== undefined)
        throw t.error('Local version label can only be used with `==` or `!=` operators');
      t.take('WS');
      if (t.take('COMMA') === undefined) break;
      text += ',';
      t.take('WS');
    }
    t.take('WS');
    return text;
  });
}

function parseRequirementMarker(t: Tokenizer, expected: string): PypiMarker {
  if (t.take('SEMICOLON') === undefined) throw t.error(`Expected ${expected} or end`);
  const marker = new PypiMarker(parseMarkerExpression(t));
  t.take('WS');
  return marker;
}

function parse(t: Tokenizer): PypiRequirement {
  t.take('WS');
  const name = t.expect('IDENTIFIER', 'package name at the start of dependency specifier');
  t.take('WS');
  const extras = parseExtras(t);
  t.take('WS');
  let specifierText = '';
  let url: string | undefined;
  let marker: PypiMarker | undefined;
  if (t.take('AT') !== undefined) {
    t.take('WS');
    url = t.expect('URL', 'URL after @');
    if (t.peek('END') === undefined) {
      t.expect('WS', 'whitespace after URL');
      if (t.peek('END') === undefined) marker = parseRequirementMarker(t, 'semicolon (after URL and whitespace)');
    }
  } else {
    specifierText = parseSpecifiers(t);
    t.take('WS');
    if (t.peek('END') === undefined) {
      const expected = specifierText
        ? 'comma (within version specifier), semicolon (after version specifier)'
        : 'semicolon (after name with no version specifier)';
      marker = parseRequirementMarker(t, expected);
    }
  }
  t.expect('END', 'end of dependency specifier');
  return new PypiRequirement({ name, extras, specifier: parsePypiSpecifierSet(specifierText), url, marker });
}

/** Parses a PEP 508 requirement; throws `InvalidPypiRequirementError` naming the text, the problem and where. */
export function parseRequirement(text: string): PypiRequirement {
  try {
    return parse(new Tokenizer(text));
  } catch (error) {
    if (error instanceof TokenizerError) throw new InvalidPypiRequirementError(text, error.message, error.position);
    if (error instanceof InvalidPypiSyntaxError) throw new InvalidPypiRequirementError(text, error.reason, error.position);
    throw error;
  }
}

/** Parses a requirement, or `undefined` when it is not valid. */
export function tryParseRequirement(text: string): PypiRequirement | undefined {
  try {
    return parseRequirement(text);
  } catch (error) {
    if (error instanceof InvalidPypiRequirementError) return undefined;
    throw error;
  }
}
