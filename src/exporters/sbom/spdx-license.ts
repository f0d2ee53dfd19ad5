/**
 * Is a record's `license` an SPDX license expression (SPDX 2.3 Annex D)? conda recipes write
 * `BSD-3-Clause`, `MIT OR Apache-2.0` or `GPL-2.0-or-later WITH GCC-exception-3.1`, and also free
 * text (`BSD`, `Python Software Foundation`). An expression comes back in canonical case; free text
 * gives undefined, and the SBOMs carry it as a license name instead.
 */
import { SPDX_LICENSE_IDS } from './spdx-license-ids.js';

let canonical: Map<string, string> | undefined;

/** Identifiers match case-insensitively (Annex D.2); this gives each one its listed spelling. */
function canonicalId(id: string): string | undefined {
  canonical ??= new Map(SPDX_LICENSE_IDS.map((entry) => [entry.toLowerCase(), entry]));
  if (/^(DocumentRef-[A-Za-z0-9.-]+:)?LicenseRef-[A-Za-z0-9.-]+$/.test(id)) return id;
  return canonical.get(id.toLowerCase());
}

/** The expression in canonical form, or undefined when the text is not one. */
export function spdxExpression(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  const tokens = text.trim().match(/\(|\)|[^\s()]+/g);
  if (!tokens || tokens.length === 0) return undefined;
  let at = 0;
  const out: string[] = [];
  // expression := term (("AND" | "OR") term)*; operators are case-sensitive (Annex D.4).
  const expression = (): boolean => {
    if (!term()) return false;
    while (tokens[at] === 'AND' || tokens[at] === 'OR') {
      out.push(tokens[at++]!);
      if (!term()) return false;
    }
    return true;
  };
  // term := "(" expression ")" | id ["+"] ["WITH" exception]
  const term = (): boolean => {
    const token = tokens[at];
    if (token === undefined) return false;
    if (token === '(') {
      at++;
      out.push('(');
      if (!expression() || tokens[at] !== ')') return false;
      at++;
      out.push(')');
      return true;
    }
    const plus = token.endsWith('+') && token.length > 1;
    const id = canonicalId(plus ? token.slice(0, -1) : token);
    if (!id) return false;
    at++;
    out.push(plus ? `${id}+` : id);
    if (tokens[at] === 'WITH') {
      const exception = tokens[at + 1] !== undefined ? canonicalId(tokens[at + 1]!) : undefined;
      if (!exception) return false;
      out.push('WITH', exception);
      at += 2;
    }
    return true;
  };
  if (!expression() || at !== tokens.length) return undefined;
  return out.join(' ').replace(/\( /g, '(').replace(/ \)/g, ')');
}
