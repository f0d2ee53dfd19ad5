/**
 * The audit: each package of each platform against an OSV database. PyPI packages are checked as
 * themselves; a conda package is checked under the PyPI names its channel's mapping gives it
 * (conda-forge's `jinja2` is PyPI's `Jinja2`), with its conda version read as PEP 440. OSV has no
 * conda ecosystem, so a conda package without a PyPI name is listed as not covered, with why:
 * never silently passed. Virtual packages (`__glibc`) are not packages and are left out.
 */
import type { PackageRecord } from '../../vocabulary/record.js';
import { normalizeName, type PypiMapping } from '../pypi-mapping/index.js';
import { affects, fixedVersions } from './affected.js';
import type { OsvDatabase } from './database.js';
import type { OsvRecord } from './osv.js';
import { severityOf, severityRank, SEVERITIES, type Severity } from './severity.js';

/** A PyPI distribution beside the conda records (a lock's `pypi:` / `manager: pip` entries). */
export interface AuditPypiPackage {
  readonly name: string;
  readonly version: string | null;
}

export interface AuditEnvironment {
  readonly platform: string;
  readonly records: readonly PackageRecord[];
  readonly pypi?: readonly AuditPypiPackage[];
}

export interface AuditFinding {
  readonly platform: string;
  readonly ecosystem: 'conda' | 'pypi';
  /** The package as the environment names it. */
  readonly name: string;
  readonly version: string;
  /** The file name, to find the package in a lock. */
  readonly file: string | null;
  /** The PyPI name it was checked under. */
  readonly pypiName: string;
  readonly id: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly details: string;
  readonly severity: Severity | null;
  /** CVSS v3 base score, when the record has a vector. */
  readonly score: number | null;
  readonly fixed: readonly string[];
  readonly url: string;
}

export interface NotCovered {
  readonly platform: string;
  readonly ecosystem: 'conda' | 'pypi';
  readonly name: string;
  readonly version: string;
  readonly reason: string;
}

export interface PlatformAudit {
  readonly platform: string;
  /** Packages audited (virtual packages left out). */
  readonly packages: number;
  /** Packages checked against the database (the rest are in notCovered). */
  readonly checked: number;
  /** Highest severity first, then by package name. */
  readonly findings: readonly AuditFinding[];
  readonly notCovered: readonly NotCovered[];
}

export interface AuditReport {
  readonly database: { readonly source: string; readonly records: number; readonly withdrawn: number };
  readonly mappings: readonly { readonly channel: string; readonly source: string; readonly date?: string }[];
  readonly platforms: readonly PlatformAudit[];
  readonly summary: {
    readonly findings: number;
    readonly bySeverity: Readonly<Record<Severity | 'UNKNOWN', number>>;
    readonly notCovered: number;
  };
}

/** One thing to look up: a PyPI name at a version (what an OSV API is asked). */
export interface AuditQuery {
  readonly ecosystem: 'PyPI';
  readonly name: string;
  readonly version: string;
}

interface Subject {
  readonly ecosystem: 'conda' | 'pypi';
  readonly name: string;
  readonly version: string;
  readonly file: string | null;
  /** The PyPI names to check, or why there are none. */
  readonly pypiNames: readonly string[] | string;
}

function isVirtual(record: PackageRecord): boolean {
  return record.name.startsWith('__') || record.channel === '@';
}

function subjects(environment: AuditEnvironment, mapping: PypiMapping): Subject[] {
  const conda = environment.records
    .filter((r) => !isVirtual(r))
    .map((record): Subject => {
      const answer = mapping.lookup(record.channel, record.name);
      const pypiNames =
        answer.kind === 'pypi'
          ? answer.names
          : answer.kind === 'none'
            ? `not a PyPI package in the ${record.channel} mapping, and OSV has no conda ecosystem`
            : answer.kind === 'unavailable'
              ? `the ${record.channel} PyPI mapping could not be had (${answer.reason}); give one with --pypi-mapping ${record.channel}=FILE`
              : `no conda-to-PyPI mapping for channel ${record.channel} (give one with --pypi-mapping)`;
      return { ecosystem: 'conda', name: record.name, version: record.version, file: record.fn || null, pypiNames };
    });
  const pypi = (environment.pypi ?? []).map(
    (dist): Subject => ({
      ecosystem: 'pypi',
      name: dist.name,
      version: dist.version ?? '',
      file: null,
      pypiNames: dist.version === null ? 'a source tree without a version' : [normalizeName(dist.name)],
    }),
  );
  return [...conda, ...pypi];
}

/** The PyPI names and versions an audit of these environments looks up, once each. */
export function auditQueries(environments: readonly AuditEnvironment[], mapping: PypiMapping): AuditQuery[] {
  const seen = new Map<string, AuditQuery>();
  for (const environment of environments) {
    for (const subject of subjects(environment, mapping)) {
      if (typeof subject.pypiNames === 'string') continue;
      for (const name of subject.pypiNames) seen.set(`${name}\0${subject.version}`, { ecosystem: 'PyPI', name, version: subject.version });
    }
  }
  return [...seen.values()];
}

function advisoryUrl(record: OsvRecord): string {
  const advisory =
    record.references?.find((r) => r.type === 'ADVISORY' && /^https:\/\//.test(r.url)) ??
    record.references?.find((r) => /^https:\/\//.test(r.url));
  return advisory?.url ?? `https://osv.dev/vulnerability/${encodeURIComponent(record.id)}`;
}

export function auditEnvironments(environments: readonly AuditEnvironment[], database: OsvDatabase, mapping: PypiMapping): AuditReport {
  const platforms = environments.map((environment): PlatformAudit => {
    const findings: AuditFinding[] = [];
    const notCovered: NotCovered[] = [];
    const all = subjects(environment, mapping);
    for (const subject of all) {
      const base = { platform: environment.platform, ecosystem: subject.ecosystem, name: subject.name, version: subject.version };
      if (typeof subject.pypiNames === 'string') {
        notCovered.push({ ...base, reason: subject.pypiNames });
        continue;
      }
      let unreadable = false;
      const seen = new Set<string>();
      for (const pypiName of subject.pypiNames) {
        for (const record of database.advisories('PyPI', pypiName)) {
          for (const entry of record.affected ?? []) {
            if (entry.package?.ecosystem !== 'PyPI' || normalizeName(entry.package.name) !== pypiName) continue;
            const answer = affects(entry, subject.version);
            if (answer === 'unknown') unreadable = true;
            if (answer !== 'affected' || seen.has(record.id)) continue;
            seen.add(record.id);
            const { severity, score } = severityOf(record, entry);
            findings.push({
              ...base,
              file: subject.file,
              pypiName,
              id: record.id,
              aliases: record.aliases ?? [],
              summary: record.summary ?? firstLine(record.details) ?? record.id,
              details: record.details ?? record.summary ?? '',
              severity,
              score,
              fixed: fixedVersions(entry),
              url: advisoryUrl(record),
            });
          }
        }
      }
      if (unreadable)
        notCovered.push({ ...base, reason: `version ${subject.version} cannot be compared as a PEP 440 version with some advisories` });
    }
    findings.sort(
      (a, b) => severityRank(b.severity) - severityRank(a.severity) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
    );
    notCovered.sort((a, b) => a.name.localeCompare(b.name));
    return { platform: environment.platform, packages: all.length, checked: all.length - notCovered.length, findings, notCovered };
  });
  const bySeverity = Object.fromEntries([...SEVERITIES, 'UNKNOWN'].map((s) => [s, 0])) as Record<Severity | 'UNKNOWN', number>;
  for (const platform of platforms) for (const finding of platform.findings) bySeverity[finding.severity ?? 'UNKNOWN']++;
  return {
    database: { source: database.source, records: database.records, withdrawn: database.withdrawn },
    mappings: mapping.sources.map(({ channel, source, date }) => ({ channel, source, ...(date ? { date } : {}) })),
    platforms,
    summary: {
      findings: platforms.reduce((n, p) => n + p.findings.length, 0),
      bySeverity,
      notCovered: platforms.reduce((n, p) => n + p.notCovered.length, 0),
    },
  };
}

function firstLine(text: string | undefined): string | undefined {
  return text
    ?.split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
}

/**
 * Whether any finding is at or above `threshold` (`--fail-on`); a finding of unknown severity counts
 * as CRITICAL: it cannot be shown to be below.
 */
export function failsAt(report: AuditReport, threshold: Severity): boolean {
  const floor = severityRank(threshold);
  return report.platforms.some((p) => p.findings.some((f) => (f.severity === null ? true : severityRank(f.severity) >= floor)));
}
