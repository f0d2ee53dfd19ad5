/**
 * Renders an `Explanation` as a short tree a person can act on. Pure function of the data: the
 * wording lives here, the walk that chose what to say lives in `explain.ts`.
 *
 *   numpy >=2 cannot be installed because every numpy >=2 (2.0.0 .. 2.1.3) requires
 *   python >=3.10, which conflicts with the requested python 3.9.*
 *
 * (one line in the output). When candidates fail for different reasons, each group gets a branch.
 */
import type { CandidateGroup, CandidateReason, Explanation, Necessity, RequirementFailure, VersionList } from './types.js';

interface TextNode {
  readonly text: string;
  readonly children: readonly TextNode[];
}

/** Lines of tree shown at most; a person does not read further, and hard problems have huge trees. */
export const MAX_EXPLANATION_LINES = 80;

export function renderExplanation(explanation: Explanation): string {
  const head = `${explanation.spec} cannot be installed because `;
  const { text, children } = explanation.together ? describeTogether(explanation.together) : describeFailure(explanation.failure);
  const lines = [head + text];
  const omitted = appendChildren(lines, children, '', MAX_EXPLANATION_LINES);
  if (omitted > 0) lines.push(`... (${omitted} more line${omitted === 1 ? '' : 's'} of explanation not shown)`);
  if (!explanation.complete) lines.push('(the explanation may be incomplete: the proof was too large to keep)');
  return lines.join('\n');
}

/** Appends the tree until `max` lines; returns how many lines did not fit (counted, not built). */
function appendChildren(lines: string[], children: readonly TextNode[], indent: string, max: number): number {
  let omitted = 0;
  children.forEach((child, i) => {
    if (lines.length >= max) {
      omitted += countLines(child);
      return;
    }
    const last = i === children.length - 1;
    lines.push(`${indent}${last ? '└─ ' : '├─ '}${child.text}`);
    omitted += appendChildren(lines, child.children, indent + (last ? '   ' : '│  '), max);
  });
  return omitted;
}

function countLines(node: TextNode): number {
  let count = 1;
  for (const child of node.children) count += countLines(child);
  return count;
}

/** "1.0, 1.2 .. 1.5": runs as `first .. last`. */
function versions(list: VersionList): string {
  return list.map((span) => (span.kind === 'run' ? `${span.first} .. ${span.last}` : span.version)).join(', ');
}

/** Why a requirement cannot be met, as the rest of a sentence about it. */
function describeFailure(failure: RequirementFailure): { text: string; children: TextNode[] } {
  switch (failure.kind) {
    case 'missing':
      return { text: describeMissing(failure), children: [] };
    case 'cycle':
      return { text: `it depends on ${failure.spec} again`, children: [] };
    case 'unsatisfiable': {
      if (failure.groups.length === 1) {
        const group = failure.groups[0];
        const reason = describeReason(group.reason);
        return { text: `${subject(failure.spec, group)} ${reason.text}`, children: reason.children };
      }
      return { text: `no ${failure.spec} can be installed:`, children: failure.groups.map(groupNode) };
    }
  }
}

/** "every python 3.9.* (...) requires openssl 1.1.1h .. 3.3.0, which conflicts with the requested openssl 1.0.*" */
function describeTogether(together: NonNullable<Explanation['together']>): { text: string; children: TextNode[] } {
  const failure = together.failure;
  if (failure.kind === 'unsatisfiable' && failure.groups.length > 1) {
    return { text: `no ${together.spec} can be installed with it:`, children: failure.groups.map(groupNode) };
  }
  return describeFailure(failure);
}

function describeMissing(failure: Extract<RequirementFailure, { kind: 'missing' }>): string {
  if (failure.excluded.length > 0) {
    const parts = failure.excluded.map((entry) => `${failure.name} ${versions(entry.versions)} ${entry.reason}`);
    return `every match is excluded: ${parts.join('; ')}`;
  }
  const note = failure.note ? ` (${failure.note})` : '';
  if (failure.available.length === 0) return `nothing provides ${failure.name}${note}`;
  return `no ${failure.name} matches (available: ${versions(failure.available)})${note}`;
}

/** "every numpy >=2 (2.0.0 .. 2.1.3)" or, for a single candidate, "numpy 2.0.0". */
function subject(spec: string, group: CandidateGroup): string {
  const [only, ...others] = group.versions;
  if (only?.kind === 'version' && others.length === 0) return `${group.name} ${only.version}`;
  return `every ${spec} (${versions(group.versions)})`;
}

function groupNode(group: CandidateGroup): TextNode {
  const reason = describeReason(group.reason);
  return { text: `${group.name} ${versions(group.versions)} ${reason.text}`, children: reason.children };
}

function describeReason(reason: CandidateReason): { text: string; children: TextNode[] } {
  switch (reason.kind) {
    case 'requires': {
      const wanted = reason.specs.length <= 2 ? reason.specs.join(' or ') : `${reason.name} ${versions(reason.versions)}`;
      const tail = describeDependencyFailure(reason.failure);
      return { text: `requires ${wanted}${tail.text}`, children: tail.children };
    }
    case 'conflicts': {
      const requirer = reason.requirer;
      if (requirer.kind === 'requested') return { text: `conflicts with the requested ${requirer.spec}`, children: [] };
      return {
        text: `conflicts with ${requirer.spec} required by ${requirer.name} ${versions(requirer.versions)}`,
        children: requirer.necessity ? [necessityNode(requirer.name, requirer.versions, requirer.necessity)] : [],
      };
    }
    case 'constrained':
      return {
        text: `is ruled out by ${reason.by} ${versions(reason.byVersions)}, which constrains ${reason.spec}`,
        children: reason.necessity ? [necessityNode(reason.by, reason.byVersions, reason.necessity)] : [],
      };
    case 'constrains': {
      const requirer = reason.requirer;
      const specs = reason.specs.length <= 2 ? reason.specs.join(' or ') : `${reason.specs[0]} (or one of ${reason.specs.length - 1} similar constraints)`;
      if (requirer.kind === 'requested') return { text: `constrains ${specs}, which conflicts with the requested ${requirer.spec}`, children: [] };
      return {
        text: `constrains ${specs}, which conflicts with ${requirer.spec} required by ${requirer.name} ${versions(requirer.versions)}`,
        children: requirer.necessity ? [necessityNode(requirer.name, requirer.versions, requirer.necessity)] : [],
      };
    }
    case 'unusable':
      return { text: `cannot be used: ${reason.reason}`, children: [] };
    case 'combination':
      return { text: 'cannot be installed together with the other requirements', children: [] };
  }
}

/** "dropdown 18 is needed: menu 10 requires dropdown >=10,<20, and no other dropdown fits", with the others' reasons below. */
function necessityNode(name: string, shown: VersionList, necessity: Necessity): TextNode {
  const who = `${name} ${versions(shown)}`;
  const by = necessity.requiredBy;
  const none = necessity.alternatives.length === 0;
  let text: string;
  if (by.kind === 'requested') {
    text = none
      ? `${who} is the only candidate for the requested ${by.spec}`
      : `${who} is needed for the requested ${by.spec}, whose other candidates are ruled out:`;
  } else {
    const needer = `${by.name} ${versions(by.versions)} requires ${necessity.spec}`;
    text = none ? `${who} is needed: ${needer}, which nothing else matches` : `${who} is needed: ${needer}, whose other candidates are ruled out:`;
  }
  const children: TextNode[] = necessity.alternatives.map(groupNode);
  if (by.kind === 'package' && by.necessity) children.push(necessityNode(by.name, by.versions, by.necessity));
  return { text, children };
}

/** The rest of "... requires X" saying why X cannot be met. */
function describeDependencyFailure(failure: RequirementFailure): { text: string; children: TextNode[] } {
  switch (failure.kind) {
    case 'missing': {
      if (failure.excluded.length > 0) return { text: `, but ${describeMissing(failure)}`, children: [] };
      const note = failure.note ? ` (${failure.note})` : '';
      if (failure.available.length === 0) return { text: `, which nothing provides${note}`, children: [] };
      return { text: `, but no ${failure.name} matches (available: ${versions(failure.available)})${note}`, children: [] };
    }
    case 'cycle':
      return { text: '', children: [] };
    case 'unsatisfiable': {
      if (failure.groups.length === 1) {
        const reason = describeReason(failure.groups[0].reason);
        return { text: `, which ${reason.text}`, children: reason.children };
      }
      return { text: ', which cannot be installed:', children: failure.groups.map(groupNode) };
    }
  }
}
