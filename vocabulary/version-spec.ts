/**
 * conda's version specs (`conda.models.version.VersionSpec`): `,` (and) binds tighter than `|`
 * (or), parentheses group, and each leaf is one of
 *
 * - `*` (any version), `^...$` (a regular expression over the version string),
 * - an operator and a version: `==1.2` `!=1.2` `<1.2` `<=1.2` `>1.2` `>=1.2` `~=1.2` (compatible
 *   release) and `=1.2` (starts with); `!=1.2.*` means "does not start with 1.2",
 * - `1.2.*` or `1.2*` (starts with `1.2`), a glob with `*` elsewhere (`1.*.3`, a regex over the string),
 * - a bare version `1.2` (exactly equal, trailing zeros ignored).
 */
import { CondaResolveError } from './errors.js';
import { InvalidVersionError, parseVersion, parseVersionTransient, tryParseVersion, type Version } from './version.js';

/**
 * Bounds on one spec, so that no input can keep a thread busy or hold much memory. conda's own
 * specs are short: in the conda-forge and defaults snapshots the longest `depends` entry has 61
 * characters and the most constraints in one version spec is 5. The limits leave an order of
 * magnitude of room or more while keeping one parse well under a millisecond, and a request of 200
 * specs at the constraint limit validating in ~30 ms (at 256 constraints it held the event loop
 * 90-220 ms).
 */
/** Characters in one match spec or version spec. */
export const MAX_SPEC_LENGTH = 4096;
/** Leaves (`>=1.2`, `1.7.*`, `^...$`) joined by `,` and `|` in one version spec. */
export const MAX_VERSION_CONSTRAINTS = 64;
/** Parentheses nested in one version spec (the parse and the compiled tree recurse this deep). */
export const MAX_VERSION_SPEC_DEPTH = 32;

/**
 * @internal Input as an error message shows it: cut to its start when long, so a refused 200 KB
 * spec does not make a 200 KB message.
 */
export function clipForMessage(text: string, max = 100): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** @internal `clipForMessage`, JSON-quoted. */
export function quoteForMessage(text: string, max = 100): string {
  return JSON.stringify(clipForMessage(text, max));
}

/** A version spec conda cannot parse. `position` is a 0-based index into `input`. */
export class InvalidVersionSpecError extends CondaResolveError {
  readonly input: string;
  readonly position: number;
  readonly reason: string;
  /** The bound the spec exceeds (`MAX_SPEC_LENGTH`, ...), or null when it is a syntax error. */
  readonly limit: number | null;

  constructor(input: string, reason: string, position: number, options?: { cause?: unknown; limit?: number }) {
    super(
      'CR_ERR_VERSION_SPEC_INVALID',
      `Cannot parse version spec ${quoteForMessage(input)}: ${reason} at position ${position}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.input = input;
    this.reason = reason;
    this.position = position;
    this.limit = options?.limit ?? null;
  }
}

export type VersionOperator = '==' | '!=' | '<' | '<=' | '>' | '>=' | '=' | '!=startswith' | '~=';

/** A compiled node. `raw` is the version string; `v` its parse, or null when it does not parse. */
interface Node {
  readonly text: string;
  readonly needsVersion: boolean;
  test(raw: string, v: Version | null): boolean;
}

class AnyNode implements Node {
  readonly text = '*';
  readonly needsVersion = false;
  test(): boolean {
    return true;
  }
}

class RegexNode implements Node {
  readonly needsVersion = false;
  constructor(
    readonly text: string,
    private readonly re: RegExp,
  ) {}
  test(raw: string): boolean {
    return this.re.test(raw);
  }
}

class GlobNode implements Node {
  readonly needsVersion = false;
  readonly #glob: Glob;
  constructor(readonly text: string) {
    this.#glob = new Glob(text);
  }
  test(raw: string): boolean {
    return this.#glob.test(raw);
  }
}

class ExactStringNode implements Node {
  readonly needsVersion = false;
  constructor(readonly text: string) {}
  test(raw: string): boolean {
    return raw === this.text;
  }
}

class OperatorNode implements Node {
  readonly needsVersion = true;
  constructor(
    readonly text: string,
    readonly operator: VersionOperator,
    readonly operand: Version,
    /** For `~=`: the operand without its last component. */
    private readonly prefix: Version | null,
  ) {}
  test(_raw: string, v: Version | null): boolean {
    if (v === null) return false;
    switch (this.operator) {
      case '==':
        return v.compare(this.operand) === 0;
      case '!=':
        return v.compare(this.operand) !== 0;
      case '<':
        return v.compare(this.operand) < 0;
      case '<=':
        return v.compare(this.operand) <= 0;
      case '>':
        return v.compare(this.operand) > 0;
      case '>=':
        return v.compare(this.operand) >= 0;
      case '=':
        return v.startsWith(this.operand);
      case '!=startswith':
        return !v.startsWith(this.operand);
      case '~=':
        return v.compare(this.operand) >= 0 && v.startsWith(this.prefix!);
    }
  }
}

class GroupNode implements Node {
  readonly needsVersion: boolean;
  readonly text: string;
  constructor(
    readonly op: ',' | '|',
    readonly children: readonly Node[],
  ) {
    this.needsVersion = children.some((c) => c.needsVersion);
    // conda's untreeify, except that an `|` group inside a `,` group keeps its parentheses:
    // conda drops them, which changes the meaning when the string is parsed again.
    this.text = children.map((c) => (op === ',' && c instanceof GroupNode && c.op === '|' ? `(${c.text})` : c.text)).join(op);
  }
  test(raw: string, v: Version | null): boolean {
    const children = this.children;
    if (this.op === ',') {
      for (let i = 0; i < children.length; i++) if (!children[i]!.test(raw, v)) return false;
      return true;
    }
    for (let i = 0; i < children.length; i++) if (children[i]!.test(raw, v)) return true;
    return false;
  }
}

export class VersionSpec {
  /** The spec as given. */
  readonly source: string;
  /** conda's canonical string (`str(VersionSpec)`): `1.7*` becomes `1.7.*`, spaces go. */
  readonly text: string;
  /** True for `==1.2` and a bare `1.2`: exactly one version (up to trailing zeros) matches. */
  readonly isExact: boolean;
  /** True for `*`: every version matches. */
  readonly matchesAll: boolean;
  readonly #root: Node;

  /** @internal Use `parseVersionSpec`. */
  constructor(source: string, root: Node, isExact: boolean) {
    this.source = source;
    this.text = root.text;
    this.#root = root;
    this.isExact = isExact;
    this.matchesAll = root instanceof AnyNode;
  }

  /** Whether `version` (a parsed Version or a version string) satisfies this spec. */
  matches(version: Version | string): boolean {
    const root = this.#root;
    if (typeof version === 'string') return root.test(version, root.needsVersion ? tryParseVersion(version) : null);
    return root.test(version.source, version);
  }

  toString(): string {
    return this.text;
  }

  toJSON(): string {
    return this.text;
  }
}

/** What a regex `.` does not match: a glob's `*` (once `.*`) does not span these either. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * @internal A glob where only `*` is special (conda's `1.*.3`, `py*`, `*_cpython`), matched without
 * a regular expression: a regex `^a.*a.*a.*b$` backtracks polynomially in the number of stars,
 * while matching the literal pieces left to right (greedy is optimal when `*` is the only
 * wildcard) costs at most the value's length times the pattern's. It matches what the regex
 * `^(?:...)$` with each `*` as `.*` matched, including that `*` spans no line terminator.
 */
export class Glob {
  readonly #pieces: readonly string[];
  /** The regex, for the odd pattern with a line terminator in it, where greedy is not enough. */
  readonly #re: RegExp | null;

  constructor(readonly text: string) {
    this.#pieces = text.split('*');
    this.#re = LINE_TERMINATOR.test(text)
      ? new RegExp(`^(?:${text.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&').replaceAll('*', '.*')})$`)
      : null;
  }

  test(value: string): boolean {
    if (this.#re !== null) return this.#re.test(value);
    const pieces = this.#pieces;
    const last = pieces.length - 1;
    if (last === 0) return value === pieces[0];
    // No piece has a line terminator and no `*` spans one, so a value with one cannot match.
    if (LINE_TERMINATOR.test(value)) return false;
    const head = pieces[0]!;
    const tail = pieces[last]!;
    if (value.length < head.length + tail.length || !value.startsWith(head) || !value.endsWith(tail)) return false;
    let at = head.length;
    const end = value.length - tail.length;
    for (let i = 1; i < last; i++) {
      const piece = pieces[i]!;
      if (piece === '') continue;
      const found = value.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  }
}

/**
 * Quantifiers (`*`, `+`, `?`, `{m,n}`) one `^...$` pattern may use. Each one multiplies the ways
 * a backtracking match can split a failing string: against 256 digits, `^[0-9]*[0-9]*[0-9]*x$`
 * takes 20 ms and `^[0-9]*[0-9]*[0-9]*[0-9]*x$` 1.5 s. conda's regex specs use one or two
 * (`^1\.(2|3)\..*$`, `^py3[0-9]+_.*$`); three still allow `^[0-9]+\.[0-9]+\.[0-9]+$`.
 */
export const MAX_REGEX_QUANTIFIERS = 3;

/**
 * @internal Why a `^...$` pattern could take exponential (or high-degree polynomial) time to
 * match, or null. JavaScript's regexes (like Python's, which conda uses) backtrack, so `^(a+)+$`,
 * `^(a|a)*$` or `^(a?a?)*$` against a 30-character version or build string runs for minutes.
 * conda's own regex specs (`^1\.(2|3)\..*$`, `^py3[0-9]+_.*$`) never repeat a group that itself
 * has a quantifier or an alternative, and use at most a few quantifiers, so refusing those shapes
 * (more than `MAX_REGEX_QUANTIFIERS` quantifiers, and backreferences) costs no real spec.
 */
export function regexHazard(source: string): string | null {
  interface Group {
    /** Something inside can match in more than one way: a quantifier, or a group that alternates or varies. */
    varies: boolean;
    /** The group itself has a `|`. */
    alternates: boolean;
  }
  const stack: Group[] = [{ varies: false, alternates: false }];
  let quantifiers = 0;
  // The quantifier at `i`, if any: its length and whether it repeats (`?` and `{0,1}` do not).
  const quantifier = (i: number): { length: number; repeats: boolean } | null => {
    const c = source[i];
    if (c === '*' || c === '+') return { length: source[i + 1] === '?' ? 2 : 1, repeats: true };
    if (c === '?') return { length: source[i + 1] === '?' ? 2 : 1, repeats: false };
    if (c === '{') {
      const m = /^\{(\d*)(,?)(\d*)\}\??/.exec(source.slice(i, i + 32));
      if (m === null || m[1] === '') return null; // `{`, `{,3}`: literal characters
      const upper = m[2] === '' ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
      return { length: m[0].length, repeats: upper > 1 };
    }
    return null;
  };
  const tooMany = `more than ${MAX_REGEX_QUANTIFIERS} quantifiers (the limit)`;
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    const top = stack[stack.length - 1]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'backreferences are not supported';
      i += 2;
    } else if (c === '[') {
      // A character class: skip to its closing "]" (a "]" right after "[" or "[^" is literal).
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      i = j + 1;
    } else if (c === '(') {
      stack.push({ varies: false, alternates: false });
      i++;
      // `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`: the `?` is not a quantifier.
      if (source[i] === '?') {
        i++;
        if (source[i] === '<' && source[i + 1] !== '=' && source[i + 1] !== '!') {
          const close = source.indexOf('>', i);
          i = close < 0 ? source.length : close + 1;
        } else i += source[i] === '<' ? 2 : 1;
      }
      continue;
    } else if (c === ')') {
      if (stack.length === 1) return null; // unbalanced: the RegExp constructor reports it
      const group = stack.pop()!;
      const parent = stack[stack.length - 1]!;
      const q = quantifier(i + 1);
      if (q !== null) {
        if (q.repeats && (group.varies || group.alternates)) return 'a repeated group must not contain a quantifier or "|"';
        if (++quantifiers > MAX_REGEX_QUANTIFIERS) return tooMany;
      }
      parent.varies ||= group.varies || group.alternates || q !== null;
      i += 1 + (q?.length ?? 0);
      continue;
    } else if (c === '|') {
      top.alternates = true;
      i++;
      continue;
    } else {
      i++;
    }
    const q = quantifier(i);
    if (q !== null) {
      if (++quantifiers > MAX_REGEX_QUANTIFIERS) return tooMany;
      top.varies = true;
      i += q.length;
    }
  }
  return null;
}

// Token grammar of conda's treeify: a regex `^...$` (which may contain `|` and `,`), a
// parenthesis or operator, or any run of other characters. Read by hand rather than with
// `/\s*\^[^$]*[$]|\s*[()|,]|[^()|,]+/g`, whose regex alternative rescans to the end of the input
// for every `^` that has no `$` after it.
const RELATION = /^(=|==|!=|<=|>=|<|>|~=)(?![=<>!~])(\S+)$/;
const OPERATOR_START = new Set(['=', '<', '>', '!', '~']);
const WHITESPACE = /\s/;

interface Token {
  /** The token without surrounding whitespace. */
  readonly text: string;
  /** Where `text` starts in the input. */
  readonly at: number;
}

function* tokens(input: string): Generator<Token> {
  const n = input.length;
  // Index of the first `$` at or after the last position asked; n when there is none.
  let dollar = -1;
  let i = 0;
  while (i < n) {
    let w = i;
    while (w < n && WHITESPACE.test(input[w]!)) w++;
    const c = input[w];
    if (c === '^') {
      if (dollar <= w) {
        const found = input.indexOf('$', w + 1);
        dollar = found < 0 ? n : found;
      }
      if (dollar < n) {
        yield { text: input.slice(w, dollar + 1), at: w };
        i = dollar + 1;
        continue;
      }
    } else if (c === '(' || c === ')' || c === '|' || c === ',') {
      yield { text: c, at: w };
      i = w + 1;
      continue;
    }
    // Any other run up to the next parenthesis or operator, trimmed (it may be all whitespace).
    let end = i;
    while (end < n && !'()|,'.includes(input[end]!)) end++;
    const raw = input.slice(i, end);
    const text = raw.trim();
    if (text !== '') yield { text, at: i + (raw.length - raw.trimStart().length) };
    i = end;
  }
}

interface Leaf {
  readonly text: string;
  readonly at: number;
}
/** `items` of a group built here are owned by it, so the parse appends to them in place. */
type Tree = Leaf | { readonly op: ',' | '|'; readonly items: Tree[] };

function isLeaf(t: Tree): t is Leaf {
  return (t as Leaf).text !== undefined;
}

/**
 * conda's treeify: a shunting-yard over `,` `|` and parentheses, keeping token positions. The
 * operand/operator alternation is checked token by token so errors point at the right place.
 * Linear in the input: a run `a,b,c,...` extends one group in place rather than copying it at
 * every `,`, and the number of leaves and the nesting depth are bounded.
 */
function treeify(input: string): Tree {
  const output: Tree[] = [];
  // The bottom entry stands for conda's implicit outer parentheses.
  const stack: { op: string; at: number }[] = [{ op: '(', at: -1 }];
  let prev: 'start' | 'open' | 'op' | 'operand' | 'close' = 'start';
  let prevOp = '';
  let leaves = 0;
  let depth = 0;
  const fail = (reason: string, at: number, limit?: number): never => {
    throw new InvalidVersionSpecError(input, reason, Math.max(0, Math.min(input.length, at)), limit === undefined ? undefined : { limit });
  };
  const applyOps = (stop: string) => {
    while (!stop.includes(stack[stack.length - 1]!.op)) {
      const op = stack.pop()!.op as ',' | '|';
      const right = output.pop()!;
      const left = output.pop()!;
      let group: { op: ',' | '|'; items: Tree[] };
      if (!isLeaf(left) && left.op === op) group = left;
      else group = { op, items: [left] };
      if (!isLeaf(right) && right.op === op) for (const item of right.items) group.items.push(item);
      else group.items.push(right);
      output.push(group);
    }
  };
  for (const { text: item, at } of tokens(input)) {
    if (item === '|' || item === ',') {
      if (prev !== 'operand' && prev !== 'close') fail(`expected a version before "${item}"`, at);
      applyOps(item === '|' ? '(' : '|(');
      stack.push({ op: item, at });
      prev = 'op';
      prevOp = item;
    } else if (item === '(') {
      if (prev === 'operand' || prev === 'close') fail('expected "," or "|" before "("', at);
      if (++depth > MAX_VERSION_SPEC_DEPTH)
        fail(`more than ${MAX_VERSION_SPEC_DEPTH} nested parentheses (the limit)`, at, MAX_VERSION_SPEC_DEPTH);
      stack.push({ op: '(', at });
      prev = 'open';
    } else if (item === ')') {
      if (prev === 'op') fail(`expected a version after "${prevOp}"`, at);
      if (prev === 'open') fail('empty parentheses', at);
      applyOps('(');
      if (stack.length === 1) fail('unmatched ")"', at);
      stack.pop();
      depth--;
      prev = 'close';
    } else {
      if (prev === 'operand' || prev === 'close') fail(`expected "," or "|" before ${quoteForMessage(item, 40)}`, at);
      if (++leaves > MAX_VERSION_CONSTRAINTS)
        fail(`more than ${MAX_VERSION_CONSTRAINTS} version constraints (the limit)`, at, MAX_VERSION_CONSTRAINTS);
      output.push({ text: item, at });
      prev = 'operand';
    }
  }
  if (prev === 'op') fail(`expected a version after "${prevOp}"`, input.length);
  if (prev === 'start') fail('no version given', 0);
  applyOps('(');
  if (stack.length > 1) fail('unmatched "("', stack[stack.length - 1]!.at);
  return output[0]!;
}

/** `text` without the trailing run of `ch` (a loop: `/\*+$/` rescans the run from every `*`). */
function trimEnd(text: string, ch: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === ch) end--;
  return text.slice(0, end);
}

function compileLeaf(input: string, leaf: Leaf): { node: Node; exact: boolean } {
  const text = leaf.text;
  const fail = (reason: string, offset = 0, cause?: unknown): never => {
    throw new InvalidVersionSpecError(input, reason, Math.max(0, Math.min(input.length, leaf.at + offset)), { cause });
  };
  // A spec too long to be cached does not cache its operands either.
  const parse = input.length > CACHE_MAX_LENGTH ? parseVersionTransient : parseVersion;
  const version = (s: string, offset: number): Version => {
    try {
      return parse(s);
    } catch (error) {
      if (error instanceof InvalidVersionError)
        return fail(`invalid version "${clipForMessage(s, 60)}": ${error.reason}`, offset + error.position, error);
      throw error;
    }
  };

  if (text === '') return fail('empty version');
  if (text.startsWith('^') || text.endsWith('$')) {
    if (!text.startsWith('^') || !text.endsWith('$')) return fail('a regex spec must start with "^" and end with "$"');
    let re: RegExp;
    try {
      re = new RegExp(text);
    } catch (error) {
      return fail('invalid regular expression', 0, error);
    }
    const hazard = regexHazard(text);
    if (hazard !== null) return fail(`unsupported regular expression: ${hazard}`);
    return { node: new RegexNode(text, re), exact: false };
  }
  if (OPERATOR_START.has(text[0]!)) {
    const m = RELATION.exec(text);
    if (m === null) {
      const opLength = /^[=<>!~]*/.exec(text)![0].length;
      return fail(opLength === text.length ? `expected a version after "${text}"` : `invalid operator "${text.slice(0, opLength)}"`, 0);
    }
    let operator = m[1] as VersionOperator;
    let operand = m[2]!;
    if (operand.endsWith('.*')) {
      if (operator === '~=') return fail('"~=" cannot be combined with ".*"', operator.length);
      if (operator === '!=') operator = '!=startswith';
      // For `=` and `>=` the `.*` is redundant; conda also ignores it (with a warning) after
      // `==`, `<`, `<=` and `>`.
      operand = operand.slice(0, -2);
    }
    const v = version(operand, m[1]!.length);
    let prefix: Version | null = null;
    if (operator === '~=') {
      const parts = v.normalized.split('.');
      if (parts.length < 2) return fail('"~=" needs a version with at least two components', 2);
      prefix = version(parts.slice(0, -1).join('.'), 2);
    }
    return { node: new OperatorNode(text, operator, v, prefix), exact: operator === '==' };
  }
  if (text === '*') return { node: new AnyNode(), exact: false };
  if (trimEnd(text, '*').includes('*')) return { node: new GlobNode(text), exact: false };
  if (text.endsWith('*')) {
    const canonical = text.endsWith('.*') ? text : `${text.slice(0, -1)}.*`;
    const operand = trimEnd(trimEnd(canonical, '*'), '.');
    return { node: new OperatorNode(canonical, '=', version(operand, 0), null), exact: false };
  }
  if (!text.includes('@')) return { node: new OperatorNode(text, '==', version(text, 0), null), exact: true };
  return { node: new ExactStringNode(text), exact: true };
}

function compile(input: string, tree: Tree): { node: Node; exact: boolean } {
  if (isLeaf(tree)) return compileLeaf(input, tree);
  return {
    node: new GroupNode(
      tree.op,
      tree.items.map((t) => compile(input, t).node),
    ),
    exact: false,
  };
}

const CACHE_LIMIT = 50_000;
const cache = new Map<string, VersionSpec>();

/**
 * Specs longer than this are parsed every time rather than cached: the cache is for the short
 * strings records repeat, and 50,000 entries of a few KB each would hold hundreds of MB.
 */
const CACHE_MAX_LENGTH = 256;

/**
 * Parse a conda version spec (cached). Throws `InvalidVersionSpecError`, also when the spec is
 * longer than `MAX_SPEC_LENGTH`, has more than `MAX_VERSION_CONSTRAINTS` constraints or more than
 * `MAX_VERSION_SPEC_DEPTH` nested parentheses.
 */
export function parseVersionSpec(input: string): VersionSpec {
  const hit = cache.get(input);
  if (hit !== undefined) return hit;
  if (typeof input !== 'string') throw new InvalidVersionSpecError(String(input), 'not a string', 0);
  if (input.length > MAX_SPEC_LENGTH) {
    throw new InvalidVersionSpecError(input, `longer than ${MAX_SPEC_LENGTH} characters (the limit)`, MAX_SPEC_LENGTH, {
      limit: MAX_SPEC_LENGTH,
    });
  }
  const { node, exact } = compile(input, treeify(input));
  const spec = new VersionSpec(input, node, exact);
  if (input.length <= CACHE_MAX_LENGTH) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(input, spec);
  }
  return spec;
}

/** Parse a conda version spec, or return null when it is not one. */
export function tryParseVersionSpec(input: string): VersionSpec | null {
  try {
    return parseVersionSpec(input);
  } catch (error) {
    if (error instanceof InvalidVersionSpecError) return null;
    throw error;
  }
}
