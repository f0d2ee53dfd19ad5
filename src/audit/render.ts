/**
 * An audit report for people (a table per platform) and for code scanning (SARIF 2.1.0, OASIS
 * `sarif-schema-2.1.0.json`): one rule per advisory, one result per vulnerable package and
 * platform, located in the lock or environment file when one was given, with GitHub's
 * `security-severity` property so code scanning ranks it.
 */
import type { AuditFinding, AuditReport } from './audit.js';
import type { Severity } from './severity.js';

export function renderAuditTable(report: AuditReport): string {
  const lines: string[] = [];
  const { database } = report;
  lines.push(`OSV database: ${database.source} (${database.records} records, ${database.withdrawn} withdrawn, ignored)`);
  for (const mapping of report.mappings)
    lines.push(`PyPI names for ${mapping.channel}: ${mapping.source}${mapping.date ? ` (${mapping.date})` : ''}`);
  for (const platform of report.platforms) {
    lines.push('');
    const vulnerable = new Set(platform.findings.map((f) => f.name)).size;
    lines.push(
      `${platform.platform}: ${platform.checked} of ${platform.packages} packages checked, ` +
        (platform.findings.length === 0
          ? 'no known vulnerabilities'
          : `${platform.findings.length} ${plural(platform.findings.length, 'advisory', 'advisories')} for ${vulnerable} ${plural(vulnerable, 'package', 'packages')}`),
    );
    const rows = platform.findings.map((f) => [
      f.severity ?? 'UNKNOWN',
      `${f.name} ${f.version}`,
      f.id,
      f.fixed.length > 0 ? `fixed in ${f.fixed.join(', ')}` : 'no fix',
      f.summary,
    ]);
    const width = [0, 1, 2, 3].map((i) => Math.max(0, ...rows.map((row) => row[i]!.length)));
    for (const row of rows)
      lines.push(
        `  ${row
          .slice(0, 4)
          .map((cell, i) => cell.padEnd(width[i]!))
          .join('  ')}  ${row[4]}`.trimEnd(),
      );
    if (platform.notCovered.length > 0) {
      lines.push(`  not covered (${platform.notCovered.length}):`);
      const byReason = new Map<string, string[]>();
      for (const item of platform.notCovered) {
        let list = byReason.get(item.reason);
        if (!list) byReason.set(item.reason, (list = []));
        list.push(`${item.name} ${item.version}`);
      }
      for (const [reason, names] of byReason) lines.push(`    ${reason}: ${names.join(', ')}`);
    }
  }
  const { summary } = report;
  const counts = (['CRITICAL', 'HIGH', 'MODERATE', 'LOW', 'UNKNOWN'] as const)
    .filter((s) => summary.bySeverity[s] > 0)
    .map((s) => `${summary.bySeverity[s]} ${s}`);
  lines.push('');
  lines.push(
    `${summary.findings} ${plural(summary.findings, 'finding', 'findings')}${counts.length > 0 ? ` (${counts.join(', ')})` : ''}; ${summary.notCovered} not covered`,
  );
  return `${lines.join('\n')}\n`;
}

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/** Where results point: the file the packages came from, with its text to find each package's line. */
export interface SarifArtifact {
  /** Relative to the repository root, with `/` (what code scanning expects). */
  readonly uri: string;
  readonly text?: string;
}

export interface SarifTool {
  readonly name: string;
  readonly version: string;
}

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { CRITICAL: 'error', HIGH: 'error', MODERATE: 'warning', LOW: 'note' };
/** GitHub's `security-severity` when no CVSS score is known: the middle of each level's range. */
const SCORE: Record<Severity, number> = { CRITICAL: 9.5, HIGH: 8.0, MODERATE: 5.5, LOW: 2.0 };

function lineOf(text: string | undefined, finding: AuditFinding): number {
  if (!text) return 1;
  const needles = [finding.file, `${finding.name}-${finding.version}`, finding.name].filter((n): n is string => !!n);
  const lines = text.split('\n');
  for (const needle of needles) {
    const at = lines.findIndex((line) => line.includes(needle));
    if (at >= 0) return at + 1;
  }
  return 1;
}

export function renderSarif(report: AuditReport, tool: SarifTool, artifact: SarifArtifact = { uri: 'environment' }): object {
  const findings = report.platforms.flatMap((p) => p.findings);
  const rules = new Map<string, object>();
  for (const f of findings) {
    if (rules.has(f.id)) continue;
    rules.set(f.id, {
      id: f.id,
      name: f.id.replace(/[^A-Za-z0-9]/g, ''),
      shortDescription: { text: f.summary },
      fullDescription: { text: f.details || f.summary },
      helpUri: f.url,
      help: {
        text: `${f.summary}\n\n${[f.id, ...f.aliases].join(', ')}: ${f.url}`,
        markdown: `**${f.summary}**\n\n${[f.id, ...f.aliases].join(', ')}: [${f.url}](${f.url})`,
      },
      defaultConfiguration: { level: f.severity ? LEVEL[f.severity] : 'warning' },
      properties: {
        tags: ['security', 'vulnerability', f.ecosystem === 'pypi' ? 'pypi' : 'conda'],
        'security-severity': (f.score ?? (f.severity ? SCORE[f.severity] : 5.5)).toFixed(1),
        ...(f.severity ? { severity: f.severity } : {}),
      },
    });
  }
  const ruleIndex = new Map([...rules.keys()].map((id, i) => [id, i]));
  const results = findings.map((f) => ({
    ruleId: f.id,
    ruleIndex: ruleIndex.get(f.id)!,
    level: f.severity ? LEVEL[f.severity] : 'warning',
    message: {
      text: `${f.name} ${f.version} (${f.platform}${f.ecosystem === 'conda' && f.pypiName !== f.name ? `, PyPI ${f.pypiName}` : ''}) is affected by ${f.id}${f.aliases.length > 0 ? ` (${f.aliases.join(', ')})` : ''}: ${f.summary}. ${f.fixed.length > 0 ? `Fixed in ${f.fixed.join(', ')}.` : 'No fixed version is known.'}`,
    },
    locations: [{ physicalLocation: { artifactLocation: { uri: artifact.uri }, region: { startLine: lineOf(artifact.text, f) } } }],
    partialFingerprints: { 'conda-resolve/v1': `${f.id}/${f.platform}/${f.ecosystem}/${f.name}/${f.version}` },
  }));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: tool.name, version: tool.version, informationUri: 'https://osv.dev', rules: [...rules.values()] } },
        results,
        properties: { database: report.database, notCovered: report.summary.notCovered },
      },
    ],
  };
}
