/**
 * GitHub Actions expressions, the subset `action.yml` uses: `inputs.x == 'y'`, `!=`, `&&`, `||`, `!`,
 * parentheses, string/number/boolean/null literals, `runner.os`, `steps.<id>.outputs.<name>`,
 * `steps.<id>.outcome|conclusion`, `github.action_path|workspace`, and the status functions
 * `success()`, `failure()`, `always()`, `cancelled()`.
 *
 * Anything else (other operators, functions, index access, unknown contexts or names) throws
 * `UnsupportedExpressionError`, so the test runner never silently evaluates an expression differently
 * from GitHub. Semantics follow GitHub's documentation: `==` compares strings ignoring case and
 * coerces mismatched types to numbers; `&&`/`||` return an operand, not a boolean.
 */

export type ExpressionValue = string | number | boolean | null;

export class UnsupportedExpressionError extends Error {
  constructor(expression: string, why: string) {
    super(`Cannot evaluate expression "${expression}": ${why}`);
    this.name = 'UnsupportedExpressionError';
  }
}

/** What an expression can see. Lookups throw for names the action does not declare. */
export interface ExpressionContext {
  /** Declared inputs, defaults applied. */
  inputs: Readonly<Record<string, string>>;
  runner: { os: string; arch: string; temp: string };
  github: { action_path: string; workspace: string };
  /** Ids the action declares, whether or not the step ran yet. */
  stepIds: ReadonlySet<string>;
  steps: Readonly<Record<string, { outputs: Readonly<Record<string, string>>; outcome: string; conclusion: string }>>;
  /** True once an earlier step of the action failed. */
  failed: boolean;
}

type Token =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'ident'; value: string }
  | { kind: 'op'; value: '==' | '!=' | '&&' | '||' | '!' | '(' | ')' | '.' | ',' };

type Node =
  | { kind: 'literal'; value: ExpressionValue }
  | { kind: 'path'; parts: string[] }
  | { kind: 'call'; name: string }
  | { kind: 'not'; operand: Node }
  | { kind: 'binary'; op: '==' | '!=' | '&&' | '||'; left: Node; right: Node };

const STATUS_FUNCTIONS = new Set(['success', 'failure', 'always', 'cancelled']);

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new UnsupportedExpressionError(source, `${why} at position ${i}`);
  };
  while (i < source.length) {
    const c = source[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= source.length) fail('unterminated string');
        if (source[i] === "'") {
          if (source[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += source[i++];
      }
      tokens.push({ kind: 'string', value });
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === '==' || two === '!=' || two === '&&' || two === '||') {
      tokens.push({ kind: 'op', value: two });
      i += 2;
      continue;
    }
    if (c === '!' || c === '(' || c === ')' || c === '.' || c === ',') {
      tokens.push({ kind: 'op', value: c });
      i++;
      continue;
    }
    const number = /^-?\d+(\.\d+)?/.exec(source.slice(i));
    if (number && (c === '-' || /\d/.test(c))) {
      tokens.push({ kind: 'number', value: Number(number[0]) });
      i += number[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(source.slice(i));
    if (ident) {
      tokens.push({ kind: 'ident', value: ident[0] });
      i += ident[0].length;
      continue;
    }
    fail(`unsupported character "${c}"`);
  }
  return tokens;
}

function parse(source: string): Node {
  const tokens = tokenize(source);
  let pos = 0;
  const fail = (why: string): never => {
    throw new UnsupportedExpressionError(source, why);
  };
  const peekOp = (value: string): boolean => {
    const t = tokens[pos];
    return t !== undefined && t.kind === 'op' && t.value === value;
  };

  function parseOr(): Node {
    let left = parseAnd();
    while (peekOp('||')) {
      pos++;
      left = { kind: 'binary', op: '||', left, right: parseAnd() };
    }
    return left;
  }
  function parseAnd(): Node {
    let left = parseEquality();
    while (peekOp('&&')) {
      pos++;
      left = { kind: 'binary', op: '&&', left, right: parseEquality() };
    }
    return left;
  }
  function parseEquality(): Node {
    let left = parseUnary();
    while (peekOp('==') || peekOp('!=')) {
      const op = (tokens[pos] as { value: '==' | '!=' }).value;
      pos++;
      left = { kind: 'binary', op, left, right: parseUnary() };
    }
    return left;
  }
  function parseUnary(): Node {
    if (peekOp('!')) {
      pos++;
      return { kind: 'not', operand: parseUnary() };
    }
    return parsePrimary();
  }
  function parsePrimary(): Node {
    const t = tokens[pos];
    if (t === undefined) return fail('unexpected end of expression');
    if (t.kind === 'op' && t.value === '(') {
      pos++;
      const inner = parseOr();
      if (!peekOp(')')) fail('missing ")"');
      pos++;
      return inner;
    }
    if (t.kind === 'string' || t.kind === 'number') {
      pos++;
      return { kind: 'literal', value: t.value };
    }
    if (t.kind === 'ident') {
      pos++;
      if (t.value === 'true' || t.value === 'false') return { kind: 'literal', value: t.value === 'true' };
      if (t.value === 'null') return { kind: 'literal', value: null };
      if (peekOp('(')) {
        if (!STATUS_FUNCTIONS.has(t.value)) fail(`unsupported function "${t.value}()"`);
        pos++;
        if (!peekOp(')')) fail(`function "${t.value}" takes no arguments`);
        pos++;
        return { kind: 'call', name: t.value };
      }
      const parts = [t.value];
      while (peekOp('.')) {
        pos++;
        const next = tokens[pos];
        if (next === undefined || next.kind !== 'ident') return fail('expected a property name after "."');
        parts.push(next.value);
        pos++;
      }
      return { kind: 'path', parts };
    }
    return fail(`unexpected "${String(t.value)}"`);
  }

  const node = parseOr();
  if (pos !== tokens.length) fail(`unexpected "${String(tokens[pos]?.value)}" after the expression`);
  return node;
}

function usesStatusFunction(node: Node): boolean {
  switch (node.kind) {
    case 'call':
      return true;
    case 'not':
      return usesStatusFunction(node.operand);
    case 'binary':
      return usesStatusFunction(node.left) || usesStatusFunction(node.right);
    default:
      return false;
  }
}

export function truthy(value: ExpressionValue): boolean {
  if (value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  return value.length > 0;
}

function toNumber(value: ExpressionValue): number {
  if (value === null) return 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  const trimmed = value.trim();
  if (trimmed === '') return 0;
  return /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$|^0x[0-9a-fA-F]+$/.test(trimmed) ? Number(trimmed) : NaN;
}

/** GitHub's loose equality: strings ignore case; differing types compare as numbers. */
export function looseEquals(a: ExpressionValue, b: ExpressionValue): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toUpperCase() === b.toUpperCase();
  if (a === null && b === null) return true;
  if (typeof a === typeof b && typeof a !== 'string') return a === b;
  const x = toNumber(a);
  const y = toNumber(b);
  return !Number.isNaN(x) && !Number.isNaN(y) && x === y;
}

function lookup(source: string, parts: string[], context: ExpressionContext): ExpressionValue {
  const fail = (why: string): never => {
    throw new UnsupportedExpressionError(source, why);
  };
  const [root, ...rest] = parts;
  const dotted = parts.join('.');
  switch (root) {
    case 'inputs': {
      if (rest.length !== 1) return fail(`"${dotted}" is not an input reference`);
      if (!Object.hasOwn(context.inputs, rest[0])) return fail(`the action declares no input "${rest[0]}"`);
      return context.inputs[rest[0]];
    }
    case 'runner': {
      if (rest.length !== 1 || !['os', 'arch', 'temp'].includes(rest[0])) return fail(`unsupported property "${dotted}"`);
      return context.runner[rest[0] as 'os' | 'arch' | 'temp'];
    }
    case 'github': {
      if (rest.length !== 1 || !['action_path', 'workspace'].includes(rest[0])) return fail(`unsupported property "${dotted}"`);
      return context.github[rest[0] as 'action_path' | 'workspace'];
    }
    case 'steps': {
      const [id, field, name] = rest;
      if (id === undefined || !context.stepIds.has(id)) return fail(`the action declares no step with id "${id ?? ''}"`);
      const step = context.steps[id];
      if (field === 'outputs' && name !== undefined && rest.length === 3) return step?.outputs[name] ?? null;
      if ((field === 'outcome' || field === 'conclusion') && rest.length === 2) return step?.[field] ?? null;
      return fail(`unsupported property "${dotted}"`);
    }
    default:
      return fail(`unsupported context "${root}"`);
  }
}

function evaluateNode(source: string, node: Node, context: ExpressionContext): ExpressionValue {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'path':
      return lookup(source, node.parts, context);
    case 'call':
      switch (node.name) {
        case 'success':
          return !context.failed;
        case 'failure':
          return context.failed;
        case 'always':
          return true;
        default:
          return false; // cancelled(): the runner never cancels
      }
    case 'not':
      return !truthy(evaluateNode(source, node.operand, context));
    case 'binary': {
      const left = evaluateNode(source, node.left, context);
      if (node.op === '&&') return truthy(left) ? evaluateNode(source, node.right, context) : left;
      if (node.op === '||') return truthy(left) ? left : evaluateNode(source, node.right, context);
      const equal = looseEquals(left, evaluateNode(source, node.right, context));
      return node.op === '==' ? equal : !equal;
    }
  }
}

/** Evaluates a bare expression (no `${{ }}`). */
export function evaluateExpression(source: string, context: ExpressionContext): ExpressionValue {
  return evaluateNode(source, parse(source), context);
}

function stripWrapper(condition: string): string {
  const trimmed = condition.trim();
  const wrapped = /^\$\{\{([\s\S]*)\}\}$/.exec(trimmed);
  if (wrapped && !wrapped[1].includes('}}')) return wrapped[1].trim();
  if (trimmed.includes('${{')) throw new UnsupportedExpressionError(condition, 'an if condition must be one expression');
  return trimmed;
}

/**
 * A step's `if:`. As on GitHub, a condition without a status function means
 * `success() && (condition)`; a missing condition means `success()`.
 */
export function evaluateCondition(condition: string | undefined, context: ExpressionContext): boolean {
  if (condition === undefined || condition.trim() === '') return !context.failed;
  const source = stripWrapper(condition);
  const node = parse(source);
  const value = evaluateNode(source, node, context);
  return usesStatusFunction(node) ? truthy(value) : !context.failed && truthy(value);
}

function stringify(value: ExpressionValue): string {
  if (value === null) return '';
  return String(value);
}

/** Replaces every `${{ expr }}` in a value (env, with, outputs) by the expression's string form. */
export function interpolate(template: string, context: ExpressionContext): string {
  return template.replace(/\$\{\{([\s\S]*?)\}\}/g, (_match, inner: string) => stringify(evaluateExpression(inner.trim(), context)));
}
