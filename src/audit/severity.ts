/**
 * An advisory's severity in the four levels GitHub's advisories use (LOW, MODERATE, HIGH,
 * CRITICAL): from `database_specific.severity` when the database gives one, else from a CVSS v3
 * vector's base score (FIRST's CVSS v3.1 specification, section 7, with its Roundup), in the
 * qualitative ranges of its section 5. A CVSS v4 vector alone gives no level: the v4 score needs
 * FIRST's lookup tables, which we do not carry.
 */
import type { OsvAffected, OsvRecord, OsvSeverity } from './osv.js';

export const SEVERITIES = ['LOW', 'MODERATE', 'HIGH', 'CRITICAL'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function severityRank(severity: Severity | null): number {
  return severity === null ? -1 : SEVERITIES.indexOf(severity);
}

export function parseSeverity(text: string): Severity | undefined {
  const upper = text.trim().toUpperCase();
  if (upper === 'MEDIUM') return 'MODERATE';
  return (SEVERITIES as readonly string[]).includes(upper) ? (upper as Severity) : undefined;
}

const WEIGHTS: Record<string, Record<string, number>> = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  C: { H: 0.56, L: 0.22, N: 0 },
  I: { H: 0.56, L: 0.22, N: 0 },
  A: { H: 0.56, L: 0.22, N: 0 },
};

/** CVSS v3.1's Roundup: the smallest number with one decimal that is >= the input. */
function roundup(value: number): number {
  const scaled = Math.round(value * 100000);
  return scaled % 10000 === 0 ? scaled / 100000 : (Math.floor(scaled / 10000) + 1) / 10;
}

/** The base score of a `CVSS:3.x/...` vector, or undefined when it is not one. */
export function cvss3BaseScore(vector: string): number | undefined {
  const parts = vector.split('/');
  if (!/^CVSS:3\.[01]$/.test(parts[0] ?? '')) return undefined;
  const metrics = new Map(parts.slice(1).map((p) => p.split(':') as [string, string]));
  const scope = metrics.get('S');
  const pr = metrics.get('PR');
  const prWeight = pr === 'N' ? 0.85 : pr === 'L' ? (scope === 'C' ? 0.68 : 0.62) : pr === 'H' ? (scope === 'C' ? 0.5 : 0.27) : undefined;
  const w = (key: string) => WEIGHTS[key]![metrics.get(key) ?? ''];
  const [av, ac, ui, c, i, a] = ['AV', 'AC', 'UI', 'C', 'I', 'A'].map(w);
  if ([av, ac, ui, c, i, a, prWeight].some((x) => x === undefined) || (scope !== 'U' && scope !== 'C')) return undefined;
  const iss = 1 - (1 - c!) * (1 - i!) * (1 - a!);
  const impact = scope === 'U' ? 6.42 * iss : 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15;
  const exploitability = 8.22 * av! * ac! * prWeight! * ui!;
  if (impact <= 0) return 0;
  return scope === 'U' ? roundup(Math.min(impact + exploitability, 10)) : roundup(Math.min(1.08 * (impact + exploitability), 10));
}

export function severityOfScore(score: number): Severity | null {
  if (score >= 9) return 'CRITICAL';
  if (score >= 7) return 'HIGH';
  if (score >= 4) return 'MODERATE';
  if (score > 0) return 'LOW';
  return null;
}

function fromVectors(list: readonly OsvSeverity[] | undefined): { severity: Severity | null; score: number } | undefined {
  for (const entry of list ?? []) {
    const score = entry.type === 'CVSS_V3' ? cvss3BaseScore(entry.score) : undefined;
    if (score !== undefined) return { severity: severityOfScore(score), score };
  }
  return undefined;
}

/** The record's level (null when nothing says), and the CVSS v3 score when there is one. */
export function severityOf(record: OsvRecord, affected?: OsvAffected): { severity: Severity | null; score: number | null } {
  const vector = fromVectors(affected?.severity) ?? fromVectors(record.severity);
  const given = [affected?.database_specific?.severity, record.database_specific?.severity].find((s): s is string => typeof s === 'string');
  const named = given !== undefined ? parseSeverity(given) : undefined;
  if (named) return { severity: named, score: vector?.score ?? null };
  return vector ? { severity: vector.severity, score: vector.score } : { severity: null, score: null };
}
