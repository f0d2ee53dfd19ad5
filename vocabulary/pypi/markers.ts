/**
 * PEP 508 environment markers (`python_version >= "3.8" and sys_platform != "win32"`), parsed to
 * plain data and evaluated against a marker environment.
 *
 * Evaluation follows `packaging.markers` (26): for `python_version`, `python_full_version`,
 * `implementation_version` and `platform_release` an operator and value that form a PEP 440
 * specifier compare as versions (pre-releases included); anything else compares as strings, where
 * `in`/`not in` test substrings, `==`/`<=`/`>=` equality, `!=` inequality, `<`/`>` are false and
 * `~=`/`===` are undefined (an error). `extra` compares PEP 685-normalised names; the set-valued
 * `extras` and `dependency_groups` (PEP 751) allow only `in`/`not in`. `and` binds before `or`.
 */
import { InvalidPypiSyntaxError, PypiMarkerEvaluationError } from './errors.js';
import { normalizePypiName } from './name.js';
import { parsePypiSpecifierSet, PypiSpecifierSet } from './specifier.js';
import { Tokenizer, TokenizerError } from './tokenizer.js';

/** The PEP 508 variables (their PEP 345 and setuptools spellings are read as these). */
export const MARKER_VARIABLES = [
  'implementation_name',
  'implementation_version',
  'os_name',
  'platform_machine',
  'platform_release',
  'platform_system',
  'platform_version',
  'python_full_version',
  'platform_python_implementation',
  'python_version',
  'sys_platform',
  'extra',
  'extras',
  'dependency_groups',
] as const;
export type MarkerVariable = (typeof MARKER_VARIABLES)[number];

/** The variables of a target environment (PEP 508's table), each a string. */
export type MarkerEnvironment = { readonly [K in Exclude<MarkerVariable, 'extra' | 'extras' | 'dependency_groups'>]: string };

export type MarkerOperator = '===' | '==' | '~=' | '!=' | '<=' | '>=' | '<' | '>' | 'in' | 'not in';

export type MarkerOperand = { readonly variable: MarkerVariable } | { readonly value: string };

/** A marker as data: one comparison, or `and`/`or` over two or more markers. */
export type MarkerNode =
  | { readonly kind: 'compare'; readonly left: MarkerOperand; readonly op: MarkerOperator; readonly right: MarkerOperand }
  | { readonly kind: 'and' | 'or'; readonly items: readonly MarkerNode[]; readonly parenthesized?: boolean };

const VERSION_VARIABLES: ReadonlySet<MarkerVariable> = new Set([
  'implementation_version',
  'platform_release',
  'python_full_version',
  'python_version',
]);
const SET_VARIABLES: ReadonlySet<MarkerVariable> = new Set(['extras', 'dependency_groups']);

/** A marker that is not valid PEP 508 (`CR_ERR_PYPI_MARKER_INVALID`). */
export class InvalidPypiMarkerError extends InvalidPypiSyntaxError {
  constructor(input: string, reason: string, position?: number) {
    super('CR_ERR_PYPI_MARKER_INVALID', 'environment marker', input, reason, position);
  }
}

/** What a marker is evaluated with besides the environment. */
export interface MarkerEvaluationOptions {
  /**
   * The extras asked for. `extra == "x"` holds when any of them is `x` (pip evaluates a
   * dependency's marker once per extra); with none, `extra` is `""`. Also the value of `extras`.
   */
  readonly extras?: Iterable<string>;
  /** The value of `dependency_groups` (PEP 751); empty unless given. */
  readonly dependencyGroups?: Iterable<string>;
}

export class PypiMarker {
  readonly node: MarkerNode;

  constructor(node: MarkerNode) {
    this.node = node;
  }

  /** Whether the marker holds in `environment` (see `evaluateMarker`). */
  evaluate(environment: MarkerEnvironment, options: MarkerEvaluationOptions = {}): boolean {
    return evaluateMarker(this, environment, options);
  }

  /** packaging's form: variables bare, values in double quotes, parentheses where they were. */
  toString(): string {
    return formatNode(this.node, true);
  }

  toJSON(): string {
    return this.toString();
  }
}

function formatOperand(operand: MarkerOperand): string {
  if ('variable' in operand) return operand.variable;
  const value = operand.value;
  if (!value.includes('"')) return `"${value}"`;
  if (!value.includes("'")) return `'${value}'`;
  return `"${value.replaceAll('"', '\\x22')}"`;
}

function formatNode(node: MarkerNode, top: boolean): string {
  if (node.kind === 'compare') return `${formatOperand(node.left)} ${node.op} ${formatOperand(node.right)}`;
  const text = node.items.map((item) => formatNode(item, false)).join(` ${node.kind} `);
  // A group the author wrote stays one; an `or` under an `and` needs its parentheses anyway.
  return top || !(node.parenthesized || node.kind === 'or') ? text : `(${text})`;
}

// ---- parsing -------------------------------------------------------------------------------

const VARIABLE_ALIASES: Readonly<Record<string, MarkerVariable>> = {
  'os.name': 'os_name',
  'sys.platform': 'sys_platform',
  'platform.version': 'platform_version',
  'platform.machine': 'platform_machine',
  'platform.python_implementation': 'platform_python_implementation',
  python_implementation: 'platform_python_implementation',
};

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\n': '',
};

/** The value of a quoted string as Python's `ast.literal_eval` reads it; undefined when Python refuses it. */
export function decodePythonString(quoted: string): string | undefined {
  const body = quoted.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\n' || c === '\r' || c === '\0') return undefined; // a line break ends a one-line literal
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return undefined; // the backslash escapes the closing quote
    if (e === '\r') {
      i += body[i + 2] === '\n' ? 2 : 1; // a backslash before a line break continues the line
    } else if (e in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[e];
      i++;
    } else if (/[0-7]/.test(e)) {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i + 1))![0];
      out += String.fromCharCode(parseInt(digits, 8));
      i += digits.length;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const length = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + length);
      if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(hex)) return undefined;
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) return undefined;
      out += String.fromCodePoint(code);
      i += 1 + length;
    } else if (e === 'N') {
      return undefined; // \N{NAME}: no Unicode name table here
    } else {
      out += c; // an unknown escape stays as written
    }
  }
  return out;
}

function parseOperand(t: Tokenizer): MarkerOperand {
  const variable = t.take('VARIABLE');
  if (variable !== undefined) return { variable: VARIABLE_ALIASES[variable] ?? (variable.replace('.', '_') as MarkerVariable) };
  const quoted = t.take('QUOTED_STRING');
  if (quoted !== undefined) {
    const value = decodePythonString(quoted);
    if (value === undefined) throw t.error('Invalid quoted string');
    return { value };
  }
  throw t.error('Expected a marker variable or quoted string');
}

function parseOperator(t: Tokenizer): MarkerOperator {
  if (t.take('IN') !== undefined) return 'in';
  if (t.take('NOT') !== undefined) {
    t.expect('WS', "whitespace after 'not'");
    t.expect('IN', "'in' after 'not'");
    return 'not in';
  }
  const op = t.take('OP');
  if (op === undefined) throw t.error('Expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in');
  return op as MarkerOperator;
}

/** `extra == "Foo_Bar"` compares normalised names: the value is normalised once, here. */
function normalizeExtra(left: MarkerOperand, right: MarkerOperand): [MarkerOperand, MarkerOperand] {
  if ('variable' in left && left.variable === 'extra' && 'value' in right) return [left, { value: normalizePypiName(right.value) }];
  if ('variable' in right && right.variable === 'extra' && 'value' in left) return [{ value: normalizePypiName(left.value) }, right];
  return [left, right];
}

function parseAtom(t: Tokenizer): MarkerNode {
  t.take('WS');
  let node: MarkerNode;
  if (t.peek('LEFT_PARENTHESIS') !== undefined) {
    node = t.enclosed('LEFT_PARENTHESIS', 'RIGHT_PARENTHESIS', 'marker expression', () => {
      t.take('WS');
      const inner = parseMarkerExpression(t);
      t.take('WS');
      return inner.kind === 'compare' ? inner : { ...inner, parenthesized: true };
    });
  } else {
    t.take('WS');
    const left = parseOperand(t);
    t.take('WS');
    const op = parseOperator(t);
    t.take('WS');
    const right = parseOperand(t);
    t.take('WS');
    const [l, r] = normalizeExtra(left, right);
    node = { kind: 'compare', left: l, op, right: r };
  }
  t.take('WS');
  return node;
}

/** `atom (and|or atom)*`, `and` binding first: an `or` of `and` chains. */
export function parseMarkerExpression(t: Tokenizer): MarkerNode {
  const groups: MarkerNode[][] = [[parseAtom(t)]];
  for (let op = t.take('BOOLOP'); op !== undefined; op = t.take('BOOLOP')) {
    if (op === 'or') groups.push([]);
    groups.at(-1)!.push(parseAtom(t));
  }
  const ands = groups.map((items): MarkerNode => (items.length === 1 ? items[0]! : { kind: 'and', items }));
  return ands.length === 1 ? ands[0]! : { kind: 'or', items: ands };
}

/** Parses a marker; throws `InvalidPypiMarkerError` naming the marker, the problem and where. */
export function parseMarker(text: string): PypiMarker {
  const t = new Tokenizer(text);
  try {
    const node = parseMarkerExpression(t);
    t.expect('END', 'end of marker expression');
    return new PypiMarker(node);
  } catch (error) {
    if (error instanceof TokenizerError) throw new InvalidPypiMarkerError(text, error.message, error.position);
    throw error;
  }
}

/** Parses a marker, or `undefined` when it is not valid. */
export function tryParseMarker(text: string): PypiMarker | undefined {
  try {
    return parseMarker(text);
  } catch (error) {
    if (error instanceof InvalidPypiMarkerError) return undefined;
    throw error;
  }
}

// ---- evaluation ----------------------------------------------------------------------------

interface Context {
  readonly environment: MarkerEnvironment;
  readonly extra: string;
  readonly extras: ReadonlySet<string>;
  readonly dependencyGroups: ReadonlySet<string>;
  readonly marker: PypiMarker;
}

function variableValue(variable: MarkerVariable, context: Context): string | ReadonlySet<string> {
  if (variable === 'extra') return context.extra;
  if (variable === 'extras') return context.extras;
  if (variable === 'dependency_groups') return context.dependencyGroups;
  const value = (context.environment as Readonly<Record<string, unknown>>)[variable];
  if (typeof value !== 'string') throw new PypiMarkerEvaluationError(context.marker.toString(), `the environment has no ${variable}`);
  return value;
}

const specifierCache = new Map<string, PypiSpecifierSet | null>();

/** `op + value` as one PEP 440 specifier, or null when it is none. */
function versionSpecifier(op: MarkerOperator, value: string): PypiSpecifierSet | null {
  const text = op + value;
  let cached = specifierCache.get(text);
  if (cached === undefined) {
    cached = op === 'in' || op === 'not in' || value.includes(',') ? null : (tryParseOne(text) ?? null);
    if (specifierCache.size > 4096) specifierCache.clear();
    specifierCache.set(text, cached);
  }
  return cached;
}

function tryParseOne(text: string): PypiSpecifierSet | undefined {
  try {
    const set = parsePypiSpecifierSet(text, { prereleases: true });
    return set.specifiers.length === 1 ? set : undefined;
  } catch {
    return undefined;
  }
}

function compare(node: Extract<MarkerNode, { kind: 'compare' }>, context: Context): boolean {
  const { left, op, right } = node;
  const key = 'variable' in left ? left.variable : 'variable' in right ? right.variable : undefined;
  if (key === undefined) {
    // Two strings: packaging reads the left one as a variable name and finds none.
    throw new PypiMarkerEvaluationError(context.marker.toString(), `${formatOperand(right)} is not a marker variable`);
  }
  let lhs = 'variable' in left ? variableValue(left.variable, context) : left.value;
  let rhs = 'variable' in right ? variableValue(right.variable, context) : right.value;
  if (typeof lhs !== 'string') {
    throw new PypiMarkerEvaluationError(context.marker.toString(), `${key} is a set: it goes only on the right of "in" or "not in"`);
  }
  if (SET_VARIABLES.has(key)) {
    if (op !== 'in' && op !== 'not in') {
      throw new PypiMarkerEvaluationError(context.marker.toString(), `${key} is a set: it goes only on the right of "in" or "not in"`);
    }
    lhs = normalizePypiName(lhs);
    rhs = typeof rhs === 'string' ? normalizePypiName(rhs) : new Set([...rhs].map(normalizePypiName));
  }
  if (VERSION_VARIABLES.has(key) && typeof rhs === 'string') {
    const specifier = versionSpecifier(op, rhs);
    if (specifier) return specifier.contains(lhs);
  }
  switch (op) {
    case 'in':
      return typeof rhs === 'string' ? rhs.includes(lhs) : rhs.has(lhs);
    case 'not in':
      return typeof rhs === 'string' ? !rhs.includes(lhs) : !rhs.has(lhs);
    case '<':
    case '>':
      return false;
    case '==':
    case '<=':
    case '>=':
      return lhs === rhs;
    case '!=':
      return lhs !== rhs;
    default:
      throw new PypiMarkerEvaluationError(
        context.marker.toString(),
        `${op} compares versions, and ${JSON.stringify(lhs)} ${op} ${JSON.stringify(rhs)} is not a version comparison`,
      );
  }
}

/** Every comparison is evaluated, none skipped (as packaging does), so an undefined one always fails. */
function evaluateNode(node: MarkerNode, context: Context): boolean {
  if (node.kind === 'compare') return compare(node, context);
  const results = node.items.map((item) => evaluateNode(item, context));
  return node.kind === 'and' ? results.every(Boolean) : results.some(Boolean);
}

/**
 * Whether `marker` holds in `environment`. With extras asked for, `extra == "x"` holds when one of
 * them is `x` (the marker is evaluated once per extra, as pip does); with none, `extra` is `""`.
 * Throws `PypiMarkerEvaluationError` (`CR_ERR_PYPI_MARKER_EVALUATION`) for a comparison PEP 508
 * leaves undefined (`os_name ~= "posix"`) or a variable the environment lacks.
 */
export function evaluateMarker(
  marker: PypiMarker | string,
  environment: MarkerEnvironment,
  options: MarkerEvaluationOptions = {},
): boolean {
  const parsed = typeof marker === 'string' ? parseMarker(marker) : marker;
  const extras = [...(options.extras ?? [])].map(normalizePypiName);
  const base = { environment, marker: parsed, extras: new Set(extras), dependencyGroups: new Set([...(options.dependencyGroups ?? [])]) };
  if (extras.length === 0) return evaluateNode(parsed.node, { ...base, extra: '' });
  return extras.some((extra) => evaluateNode(parsed.node, { ...base, extra }));
}
