/**
 * A YAML emitter for plain data that writes exactly the bytes ruamel.yaml writes with conda's
 * settings (`YAML(typ="rt")`, `indent(mapping=2, sequence=4, offset=2)`, width 80, block style).
 * conda and conda-lockfiles write environment.yml, conda-lock.yml and pixi.lock this way and users
 * diff our files against theirs, so folding, quoting and indentation must all match; no JavaScript
 * YAML library does, so this follows ruamel's `Emitter` closely (its state, `analyze_scalar` in
 * `scalars.ts`, `choose_scalar_style`, the scalar writers), for block mappings and sequences and
 * scalars only. Folding follows ruamel.yaml >= 0.17.22 (`longWordsOnOwnLine: false` gives <= 0.17.21);
 * columns are Unicode code points, as Python counts.
 */

import { YamlEmitError, isMapping, mappingEntries, type YamlScalar, type YamlValue } from './data.js';
import {
  analyzeScalar,
  escapeForDoubleQuotes,
  isLineBreak,
  needsDoubleQuoteEscape,
  piece,
  prepareScalar,
  type Chars,
  type PreparedScalar,
  type ScalarAnalysis,
} from './scalars.js';

export interface YamlEmitOptions {
  /** Preferred line width (ruamel's `width`); default 80. */
  readonly width?: number;
  /** ruamel >= 0.17.22 puts a word that does not fit on a line of its own (default true). */
  readonly longWordsOnOwnLine?: boolean;
}

// conda's indentation: mappings by 2, sequences by 4 with the dash 2 columns in.
const MAP_INDENT = 2;
const SEQUENCE_INDENT = 4;
const SEQUENCE_DASH_OFFSET = 2;
// ruamel writes a key as `key:` only when the key plus its tag (`!!str`, counted though never
// written) is shorter than this; longer keys use the explicit `? key` form.
const MAX_SIMPLE_KEY_LENGTH = 128;
const STR_TAG_LENGTH = '!!str'.length;

type ScalarStyle = '' | "'" | '"';

interface NodeContext {
  readonly root?: boolean;
  readonly sequence?: boolean;
  readonly mapping?: boolean;
  readonly simpleKey?: boolean;
}

/** Serialises `document` (a mapping or a sequence) as ruamel.yaml would, ending with one newline. */
export function emitYaml(document: YamlValue, options: YamlEmitOptions = {}): string {
  if (!isMapping(document) && !Array.isArray(document)) {
    throw new YamlEmitError('Cannot emit YAML: a document must be a mapping or a sequence');
  }
  const emitter = new RuamelEmitter(options);
  return emitter.emitDocument(document);
}

class RuamelEmitter {
  private readonly bestWidth: number;
  private readonly longWordsOnOwnLine: boolean;
  private out = '';

  // The emitter's position and the state ruamel keeps about the last thing written.
  private column = 0;
  private whitespace = true;
  private indention = true;
  private noNewline = false;
  private openEnded = false;

  private indent: number | null = null;
  /**
   * ruamel's `Indents`, as two parallel stacks (no allocation per node): the indent before each
   * increase (-1 for none), and whether that level is a sequence.
   */
  private readonly indentStack: number[] = [];
  private readonly sequenceStack: boolean[] = [];
  private flowLevel = 0;

  private rootContext = false;
  private sequenceContext = false;
  private simpleKeyContext = false;

  private readonly active = new Set<object>();

  constructor(options: YamlEmitOptions) {
    const width = options.width ?? 80;
    // ruamel ignores widths that are not more than twice the indent.
    this.bestWidth = width > 2 * MAP_INDENT ? width : 80;
    this.longWordsOnOwnLine = options.longWordsOnOwnLine ?? true;
  }

  emitDocument(root: YamlValue): string {
    this.expectNode(root, { root: true });
    // Document end: finish the last line.
    this.writeIndent();
    if (this.openEnded) {
      this.writeIndicator('...', true);
      this.writeIndent();
    }
    return this.out;
  }

  // ---- nodes -------------------------------------------------------------------------------

  private expectNode(value: YamlValue, context: NodeContext): void {
    this.rootContext = context.root === true;
    this.sequenceContext = context.sequence === true;
    this.simpleKeyContext = context.simpleKey === true;
    if (Array.isArray(value)) {
      this.enter(value);
      if (value.length === 0) this.expectEmptyFlowCollection('[', ']');
      else this.expectBlockSequence(value, context.mapping === true);
      this.active.delete(value);
    } else if (isMapping(value)) {
      this.enter(value);
      const entries = mappingEntries(value);
      if (entries.length === 0) this.expectEmptyFlowCollection('{', '}');
      else this.expectBlockMapping(entries);
      this.active.delete(value);
    } else {
      this.expectScalar(prepareScalar(value as YamlScalar));
    }
  }

  private enter(container: object): void {
    if (this.active.has(container)) throw new YamlEmitError('Cannot emit YAML: the data contains a cycle');
    this.active.add(container);
  }

  private expectScalar(scalar: PreparedScalar, analysis?: ScalarAnalysis): void {
    this.increaseIndent(true, null);
    this.processScalar(scalar, analysis ?? analyzeScalar(scalar.text));
    this.indent = this.popIndent();
  }

  /** `[]` and `{}`: ruamel writes every empty collection in flow style. */
  private expectEmptyFlowCollection(open: string, close: string): void {
    const align = this.seqFlowAlign(SEQUENCE_INDENT, this.column);
    this.writeIndicator(' '.repeat(Math.max(0, align)) + open, true, true);
    this.increaseIndent(true, open === '[');
    this.flowLevel++;
    this.indent = this.popIndent();
    this.flowLevel--;
    this.writeIndicator(close, false);
    if (this.flowLevel === 0) this.writeLineBreak();
  }

  private expectBlockSequence(items: readonly YamlValue[], mappingContext: boolean): void {
    // A sequence that is a mapping's value starts at the key's indent (the dash offset indents it).
    const indentless = mappingContext ? !this.indention : false;
    this.increaseIndent(false, true, indentless);
    for (const item of items) {
      const keepLine = this.column === 0 ? this.noNewline : false;
      this.writeIndent();
      this.writeIndicator(' '.repeat(SEQUENCE_DASH_OFFSET) + '-', true, false, true);
      if (keepLine || SEQUENCE_DASH_OFFSET + 2 > SEQUENCE_INDENT) this.noNewline = true;
      this.expectNode(item, { sequence: true });
    }
    this.indent = this.popIndent();
    this.noNewline = false;
  }

  private expectBlockMapping(entries: readonly [string, YamlValue][]): void {
    this.increaseIndent(false, false);
    for (const [key, value] of entries) {
      this.writeIndent();
      const keyScalar = prepareScalar(key);
      const keyAnalysis = analyzeScalar(keyScalar.text);
      if (keyAnalysis.chars.length + STR_TAG_LENGTH < MAX_SIMPLE_KEY_LENGTH && !keyAnalysis.multiline) {
        this.rootContext = false;
        this.sequenceContext = false;
        this.simpleKeyContext = true;
        this.expectScalar(keyScalar, keyAnalysis);
        this.writeIndicator(':', false);
        this.expectNode(value, { mapping: true });
      } else {
        this.writeIndicator('?', true, false, true);
        this.rootContext = false;
        this.sequenceContext = false;
        this.simpleKeyContext = false;
        this.expectScalar(keyScalar, keyAnalysis);
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
        this.expectNode(value, { mapping: true });
      }
    }
    this.indent = this.popIndent();
  }

  private increaseIndent(flow: boolean, sequence: boolean | null, indentless = false): void {
    this.indentStack.push(this.indent ?? -1);
    this.sequenceStack.push(sequence === true);
    if (this.indent === null) {
      // A flow collection at the top takes ruamel's requested indent, which conda leaves unset.
      this.indent = flow ? null : 0;
    } else if (!indentless) {
      this.indent += this.lastLevelIsSequence() ? SEQUENCE_INDENT : MAP_INDENT;
    }
  }

  /** ruamel's `Indents.last_seq`: whether the level that contains the new one is a sequence. */
  private lastLevelIsSequence(): boolean {
    const n = this.sequenceStack.length;
    return n >= 2 ? this.sequenceStack[n - 2] : false;
  }

  private popIndent(): number | null {
    this.sequenceStack.pop();
    const indent = this.indentStack.pop()!;
    return indent < 0 ? null : indent;
  }

  /** ruamel's `Indents.seq_flow_align` without comments: spaces before a flow collection in a sequence. */
  private seqFlowAlign(sequenceIndent: number, column: number): number {
    const n = this.sequenceStack.length;
    if (n < 2 || !this.sequenceStack[n - 1]) return 0;
    const base = Math.max(0, this.indentStack[n - 1]);
    return base + sequenceIndent - column - 1;
  }

  // ---- scalars -----------------------------------------------------------------------------

  private processScalar(scalar: PreparedScalar, analysis: ScalarAnalysis): void {
    const style = this.chooseScalarStyle(scalar, analysis);
    const split = !this.simpleKeyContext;
    if (this.sequenceContext && this.flowLevel === 0) this.writeIndent();
    if (style === '"') this.writeDoubleQuoted(analysis.chars, split);
    else if (style === "'") this.writeSingleQuoted(analysis.chars, split);
    else this.writePlain(analysis.chars, split, analysis.singleWord);
  }

  private chooseScalarStyle(scalar: PreparedScalar, analysis: ScalarAnalysis): ScalarStyle {
    if (scalar.plainKeepsType) {
      const plainAllowed = this.flowLevel > 0 ? analysis.allowFlowPlain : analysis.allowBlockPlain;
      if (!(this.simpleKeyContext && (analysis.empty || analysis.multiline)) && plainAllowed) return '';
    }
    if (analysis.allowDoubleQuoted && (scalar.text.includes("'") || scalar.text.includes('\n'))) return '"';
    if (analysis.allowSingleQuoted && !(this.simpleKeyContext && analysis.multiline)) return "'";
    return '"';
  }

  private writePlain(chars: Chars, split: boolean, singleWord: boolean): void {
    if (this.rootContext) this.openEnded = true;
    if (chars.length === 0) return;
    if (!this.whitespace) this.write(' ', 1);
    this.whitespace = false;
    this.indention = false;
    if (singleWord) {
      // The loop below reduced to its one word (most scalars: names, versions, URLs, hashes).
      if (this.longWordsOnOwnLine && chars.length + this.column > this.bestWidth && this.indent !== null && this.column > this.indent) {
        this.writeIndent();
      }
      this.writeChars(chars, 0, chars.length);
      return;
    }
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : null;
      if (spaces) {
        if (ch !== ' ') {
          if (start + 1 === end && this.column > this.bestWidth && split) {
            this.writeIndent();
            this.whitespace = false;
            this.indention = false;
          } else {
            this.writeChars(chars, start, end);
          }
          start = end;
        }
      } else if (breaks) {
        // Unreachable for the data we write (text with line breaks is never plain), kept as ruamel has it.
        if (ch === null || !isLineBreak(ch)) {
          if (chars[start] === '\n') this.writeLineBreak();
          for (let i = start; i < end; i++) this.writeLineBreak(chars[i]);
          this.writeIndent();
          this.whitespace = false;
          this.indention = false;
          start = end;
        }
      } else if (ch === null || ch === ' ' || isLineBreak(ch)) {
        if (this.longWordsOnOwnLine && end - start + this.column > this.bestWidth && this.indent !== null && this.column > this.indent) {
          // ruamel >= 0.17.22: a word that does not fit gets a line of its own.
          this.writeIndent();
        }
        this.writeChars(chars, start, end);
        start = end;
      }
      if (ch !== null) {
        spaces = ch === ' ';
        breaks = isLineBreak(ch);
      }
    }
  }

  private writeSingleQuoted(chars: Chars, split: boolean): void {
    this.writeIndicator("'", true);
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : null;
      if (spaces) {
        if (ch === null || ch !== ' ') {
          if (start + 1 === end && this.column > this.bestWidth && split && start !== 0 && end !== chars.length) {
            this.writeIndent();
          } else {
            this.writeChars(chars, start, end);
          }
          start = end;
        }
      } else if (breaks) {
        if (ch === null || !isLineBreak(ch)) {
          if (chars[start] === '\n') this.writeLineBreak();
          for (let i = start; i < end; i++) this.writeLineBreak(chars[i]);
          this.writeIndent();
          start = end;
        }
      } else if (ch === null || ch === ' ' || ch === "'" || isLineBreak(ch)) {
        if (start < end) {
          this.writeChars(chars, start, end);
          start = end;
        }
      }
      if (ch === "'") {
        this.write("''", 2);
        start = end + 1;
      }
      if (ch !== null) {
        spaces = ch === ' ';
        breaks = isLineBreak(ch);
      }
    }
    this.writeIndicator("'", false);
  }

  private writeDoubleQuoted(chars: Chars, split: boolean): void {
    this.writeIndicator('"', true);
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : null;
      if (ch === null || needsDoubleQuoteEscape(ch)) {
        if (start < end) {
          this.writeChars(chars, start, end);
          start = end;
        }
        if (ch !== null) {
          const escaped = escapeForDoubleQuotes(ch);
          this.write(escaped, escaped.length);
          start = end + 1;
        }
      }
      if (end > 0 && end < chars.length - 1 && (ch === ' ' || start >= end) && this.column + (end - start) > this.bestWidth && split) {
        // Fold: end the line with `\` and continue on the next one.
        const text = piece(chars, start, end) + '\\';
        const width = end - start + 1;
        if (start < end) start = end;
        this.write(text, width);
        this.writeIndent();
        this.whitespace = false;
        this.indention = false;
        if (chars[start] === ' ') this.write('\\', 1);
      }
    }
    this.writeIndicator('"', false);
  }

  // ---- output primitives (ruamel's write_indicator, write_indent, write_line_break) ---------

  private write(text: string, width: number): void {
    this.out += text;
    this.column += width;
  }

  private writeChars(chars: Chars, start: number, end: number): void {
    if (end > start) this.write(piece(chars, start, end), end - start);
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, whitespace = false, indention = false): void {
    const text = this.whitespace || !needWhitespace ? indicator : ' ' + indicator;
    this.whitespace = whitespace;
    this.indention = this.indention && indention;
    this.openEnded = false;
    this.write(text, countCodePoints(text));
  }

  private writeIndent(): void {
    const indent = this.indent ?? 0;
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) {
      if (this.noNewline) this.noNewline = false;
      else this.writeLineBreak();
    }
    if (this.column < indent) {
      this.whitespace = true;
      this.write(' '.repeat(indent - this.column), indent - this.column);
    }
  }

  private writeLineBreak(text = '\n'): void {
    this.whitespace = true;
    this.indention = true;
    this.out += text;
    this.column = 0;
  }
}

function countCodePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
