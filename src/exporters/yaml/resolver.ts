/**
 * Which strings a YAML 1.2 reader would take for something other than a string.
 *
 * These are ruamel.yaml's implicit resolvers for YAML 1.2 (the version conda's dumper uses), in the
 * same form: a regular expression per type, tried only when the value's first character is one the
 * type can start with. ruamel quotes a string exactly when it would resolve to another type, so
 * this decides `version: '3.13'` against `version: 1.0.8`. YAML 1.1's extra booleans (`yes`, `on`)
 * and sexagesimals are not in YAML 1.2, so ruamel writes them plain, and so do we.
 */

interface ImplicitResolver {
  readonly tag: string;
  readonly pattern: RegExp;
  /** First characters that select this resolver (`''` stands for the empty string). */
  readonly first: readonly string[];
}

// Python's `re.match(...$)` also matches before one trailing newline; `\n?` keeps that behaviour.
const RESOLVERS: readonly ImplicitResolver[] = [
  { tag: 'bool', pattern: /^(?:true|True|TRUE|false|False|FALSE)\n?$/, first: [...'tTfF'] },
  {
    tag: 'float',
    pattern:
      /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)|[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\n?$/,
    first: [...'-+0123456789.'],
  },
  {
    tag: 'int',
    pattern: /^(?:[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+)\n?$/,
    first: [...'-+0123456789'],
  },
  { tag: 'merge', pattern: /^(?:<<)\n?$/, first: ['<'] },
  { tag: 'null', pattern: /^(?:~|null|Null|NULL|)\n?$/, first: ['~', 'n', 'N', ''] },
  {
    tag: 'timestamp',
    pattern:
      /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)\n?$/,
    first: [...'0123456789'],
  },
  { tag: 'value', pattern: /^(?:=)\n?$/, first: ['='] },
  { tag: 'yaml', pattern: /^(?:!|&|\*)\n?$/, first: [...'!&*'] },
];

const BY_FIRST = new Map<string, ImplicitResolver[]>();
for (const resolver of RESOLVERS) {
  for (const ch of resolver.first) {
    const list = BY_FIRST.get(ch) ?? [];
    list.push(resolver);
    BY_FIRST.set(ch, list);
  }
}

/**
 * The YAML 1.2 type a plain scalar with this text would be read as: `str`, or one of `bool`,
 * `float`, `int`, `merge`, `null`, `timestamp`, `value`, `yaml`.
 */
export function resolvePlainScalar(text: string): string {
  const first = text === '' ? '' : String.fromCodePoint(text.codePointAt(0)!);
  for (const resolver of BY_FIRST.get(first) ?? []) {
    if (resolver.pattern.test(text)) return resolver.tag;
  }
  return 'str';
}
