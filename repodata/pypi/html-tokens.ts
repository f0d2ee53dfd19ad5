/**
 * A small HTML tokenizer that finds the tags a simple-repository page is made of (`<a>`, `<base>`,
 * `<meta>`) with their attributes and the anchors' text, and skips everything else: comments,
 * `<script>` and `<style>` bodies, doctypes, stray `<`. It never throws and never backtracks, so a
 * page of garbage costs one pass over its characters. Attribute values and text are HTML-unescaped
 * (the WHATWG named references a simple page meets, and every numeric one).
 */

export interface HtmlTag {
  /** Lower-case tag name. */
  readonly name: string;
  /** Lower-case attribute names -> unescaped values (`''` for a bare attribute); the first of a repeated name wins. */
  readonly attributes: ReadonlyMap<string, string>;
  /** For `<a>`: the unescaped text up to `</a>` (tags inside removed), trimmed. */
  readonly text: string;
}

export interface HtmlScan {
  /** The `<a>`, `<base>` and `<meta>` tags, in document order. */
  readonly tags: readonly HtmlTag[];
  /** Whether any element at all was seen (a page of plain text or binary has none). */
  readonly sawElement: boolean;
  /** Names of every element seen (lower case), to tell an index from a login form or an app shell. */
  readonly elementNames: ReadonlySet<string>;
}

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  equals: '=',
  excl: '!',
  num: '#',
  percnt: '%',
  plus: '+',
  comma: ',',
  period: '.',
  colon: ':',
  semi: ';',
  sol: '/',
  lowbar: '_',
  tilde: '~',
  ast: '*',
  lpar: '(',
  rpar: ')',
  lsqb: '[',
  rsqb: ']',
  verbar: '|',
};

/** Undo HTML character references (`&gt;=3.8` -> `>=3.8`); unknown ones are left as written. */
export function unescapeHtml(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});?/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
    }
    const named = NAMED[ref];
    return named !== undefined && whole.endsWith(';') ? named : named !== undefined && /^(amp|lt|gt|quot)$/.test(ref) ? named : whole;
  });
}

const KEPT = new Set(['a', 'base', 'meta']);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);
const NAME_CHAR = /[A-Za-z0-9:_-]/;

/** Scan `html` for the tags of a simple-repository page. */
export function scanHtml(html: string): HtmlScan {
  const tags: HtmlTag[] = [];
  const elementNames = new Set<string>();
  let open: { name: string; attributes: Map<string, string>; text: string[] } | null = null;
  const n = html.length;
  let i = 0;
  const closeAnchor = (): void => {
    if (open) tags.push({ name: 'a', attributes: open.attributes, text: unescapeHtml(open.text.join('')).replace(/\s+/g, ' ').trim() });
    open = null;
  };
  while (i < n) {
    const lt = html.indexOf('<', i);
    const textEnd = lt < 0 ? n : lt;
    if (open && textEnd > i) open.text.push(html.slice(i, textEnd));
    if (lt < 0) break;
    i = lt;
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    const next = html[i + 1] ?? '';
    if (next === '!' || next === '?') {
      // A doctype, CDATA or processing instruction: up to the next '>'.
      const end = html.indexOf('>', i + 2);
      i = end < 0 ? n : end + 1;
      continue;
    }
    const closing = next === '/';
    let j = i + (closing ? 2 : 1);
    const nameStart = j;
    if (!/[A-Za-z]/.test(html[j] ?? '')) {
      // A '<' that starts no tag is text.
      if (open) open.text.push('<');
      i += 1;
      continue;
    }
    while (j < n && NAME_CHAR.test(html[j]!)) j++;
    const name = html.slice(nameStart, j).toLowerCase();
    const attributes = new Map<string, string>();
    // Attributes, up to the '>' that is not inside quotes.
    for (;;) {
      while (j < n && /[\s/]/.test(html[j]!)) j++;
      if (j >= n || html[j] === '>') break;
      const attrStart = j;
      while (j < n && !/[\s/>=]/.test(html[j]!)) j++;
      const attrName = html.slice(attrStart, j).toLowerCase();
      while (j < n && /\s/.test(html[j]!)) j++;
      let value = '';
      if (html[j] === '=') {
        j++;
        while (j < n && /\s/.test(html[j]!)) j++;
        const quote = html[j];
        if (quote === '"' || quote === "'") {
          const end = html.indexOf(quote, j + 1);
          value = html.slice(j + 1, end < 0 ? n : end);
          j = end < 0 ? n : end + 1;
        } else {
          const valueStart = j;
          while (j < n && !/[\s>]/.test(html[j]!)) j++;
          value = html.slice(valueStart, j);
        }
      }
      if (attrName !== '' && !attributes.has(attrName)) attributes.set(attrName, unescapeHtml(value));
      if (j === attrStart) j++;
    }
    i = j + 1;
    elementNames.add(name);
    if (closing) {
      if (name === 'a') closeAnchor();
      continue;
    }
    if (name === 'a') {
      // An <a> inside an <a> ends the first (as browsers do).
      closeAnchor();
      open = { name, attributes, text: [] };
    } else if (KEPT.has(name)) tags.push({ name, attributes, text: '' });
    else if (RAW_TEXT.has(name)) {
      const closer = new RegExp(`</${name}`, 'gi');
      closer.lastIndex = i;
      const end = closer.exec(html);
      i = end === null ? n : end.index;
    }
  }
  closeAnchor();
  return { tags, sawElement: elementNames.size > 0, elementNames };
}
