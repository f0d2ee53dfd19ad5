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
import { InvalidVersionError, parseVersion, tryParseVersion, type Version } from './version.js';

/** A version spec conda cannot parse. `position` is a 0-based index into `input`. */
export class InvalidVersionSpecError extends CondaResolveError {
  readonly input: string;
  readonly position: number;
  readonly reason: string;

  constructor(input: string, reason: string, position: number, options?: { cause?: unknown }) {
    super(
      'CR_ERR_VERSION_SPEC_INVALID',
      `Cannot parse version spec ${JSON.stringify(input)}: ${reason} at position ${position}`,
      options,
    );
    this.input = input;
    this.reason = reason;
    this.position = position;
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
    this.text = children
      .map((c) => (op === ',' && c instanceof GroupNode && c.op === '|' ? `(${c.text})` : c.text))
      .join(op);
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

// Token grammar of conda's treeify: a regex `^...$` (which may contain `|` and `,`), a
// parenthesis or operator, or any run of other characters.
const TOKENS = /\s*\^[^$]*[$]|\s*[()|,]|[^()|,]+/g;
const RELATION = /^(=|==|!=|<=|>=|<|>|~=)(?![=<>!~])(\S+)$/;
const OPERATOR_START = new Set(['=', '<', '>', '!', '~']);

interface Leaf {
  readonly text: string;
  readonly at: number;
}
type Tree = Leaf | { readonly op: ',' | '|'; readonly items: Tree[] };

function isLeaf(t: Tree): t is Leaf {
  return (t as Leaf).text !== undefined;
}

/**
 * conda's treeify: a shunting-yard over `,` `|` and parentheses, keeping token positions. The
 * operand/operator alternation is checked token by token so errors point at the right place.
 */
function treeify(input: string): Tree {
  const output: Tree[] = [];
  // The bottom entry stands for conda's implicit outer parentheses.
  const stack: { op: string; at: number }[] = [{ op: '(', at: -1 }];
  let prev: 'start' | 'open' | 'op' | 'operand' | 'close' = 'start';
  let prevOp = '';
  const fail = (reason: string, at: number): never => {
    throw new InvalidVersionSpecError(input, reason, Math.max(0, Math.min(input.length, at)));
  };
  const applyOps = (stop: string) => {
    while (!stop.includes(stack[stack.length - 1]!.op)) {
      const op = stack.pop()!.op as ',' | '|';
      const right = output.pop()!;
      const left = output.pop()!;
      const items: Tree[] = [];
      for (const side of [left, right]) {
        if (!isLeaf(side) && side.op === op) items.push(...side.items);
        else items.push(side);
      }
      output.push({ op, items });
    }
  };
  for (const match of input.matchAll(TOKENS)) {
    const raw = match[0];
    const item = raw.trim();
    if (item === '') continue;
    const at = match.index + (raw.length - raw.trimStart().length);
    if (item === '|' || item === ',') {
      if (prev !== 'operand' && prev !== 'close') fail(`expected a version before "${item}"`, at);
      applyOps(item === '|' ? '(' : '|(');
      stack.push({ op: item, at });
      prev = 'op';
      prevOp = item;
    } else if (item === '(') {
      if (prev === 'operand' || prev === 'close') fail('expected "," or "|" before "("', at);
      stack.push({ op: '(', at });
      prev = 'open';
    } else if (item === ')') {
      if (prev === 'op') fail(`expected a version after "${prevOp}"`, at);
      if (prev === 'open') fail('empty parentheses', at);
      applyOps('(');
      if (stack.length === 1) fail('unmatched ")"', at);
      stack.pop();
      prev = 'close';
    } else {
      if (prev === 'operand' || prev === 'close') fail(`expected "," or "|" before ${JSON.stringify(item)}`, at);
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

/** Escape everything but `*`, which becomes `.*`. */
function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&').replaceAll('*', '.*');
  return new RegExp(`^(?:${body})$`);
}

function compileLeaf(input: string, leaf: Leaf): { node: Node; exact: boolean } {
  const text = leaf.text;
  const fail = (reason: string, offset = 0, cause?: unknown): never => {
    throw new InvalidVersionSpecError(input, reason, Math.max(0, Math.min(input.length, leaf.at + offset)), { cause });
  };
  const version = (s: string, offset: number): Version => {
    try {
      return parseVersion(s);
    } catch (error) {
      if (error instanceof InvalidVersionError) return fail(`invalid version "${s}": ${error.reason}`, offset + error.position, error);
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
  const withoutTrailingStars = text.replace(/\*+$/, '');
  if (withoutTrailingStars.includes('*')) {
    return { node: new RegexNode(text, globToRegExp(text)), exact: false };
  }
  if (text.endsWith('*')) {
    const canonical = text.endsWith('.*') ? text : `${text.slice(0, -1)}.*`;
    const operand = canonical.replace(/\*+$/, '').replace(/\.+$/, '');
    return { node: new OperatorNode(canonical, '=', version(operand, 0), null), exact: false };
  }
  if (!text.includes('@')) return { node: new OperatorNode(text, '==', version(text, 0), null), exact: true };
  return { node: new ExactStringNode(text), exact: true };
}

function compile(input: string, tree: Tree): { node: Node; exact: boolean } {
  if (isLeaf(tree)) return compileLeaf(input, tree);
  return { node: new GroupNode(tree.op, tree.items.map((t) => compile(input, t).node)), exact: false };
}

const CACHE_LIMIT = 50_000;
const cache = new Map<string, VersionSpec>();

/** Parse a conda version spec (cached). Throws `InvalidVersionSpecError`. */
export function parseVersionSpec(input: string): VersionSpec {
  const hit = cache.get(input);
  if (hit !== undefined) return hit;
  if (typeof input !== 'string') throw new InvalidVersionSpecError(String(input), 'not a string', 0);
  const { node, exact } = compile(input, treeify(input));
  const spec = new VersionSpec(input, node, exact);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(input, spec);
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
