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
import { compactSpecs } from './spec-ranges.js';

interface TextNode {
  readonly text: string;
  readonly children: readonly TextNode[];
}

/** Lines an explanation has at most, its summary lines included: a person does not read further. */
export const MAX_EXPLANATION_LINES = 25;

export function renderExplanation(explanation: Explanation): string {
  const head = `${explanation.spec} cannot be installed because `;
  const { text, children } = explanation.together ? describeTogether(explanation.together) : describeFailure(explanation.failure);
  const notes = explanation.complete ? [] : ['(the explanation may be incomplete: the proof was too large to keep)'];
  const tree = layoutTree(mergeSiblings(children), MAX_EXPLANATION_LINES - 1 - notes.length);
  return [head + text, ...tree, ...notes].join('\n');
}

/**
 * The tree's lines, at most `max`. When the whole tree does not fit, it is cut at the deepest level
 * that fits, each cut subtree replaced by one "and N more" line, so every branch near the top (the
 * requested specs and what they need) stays in view; if even the first level does not fit, its
 * last branches are cut the same way.
 */
function layoutTree(children: readonly TextNode[], max: number): string[] {
  const total = children.reduce((sum, child) => sum + countLines(child), 0);
  if (total <= max) return drawTree(children, Infinity);
  for (let depth = maxDepth(children); depth >= 1; depth--) {
    const lines = drawTree(children, depth);
    if (lines.length <= max) return lines;
  }
  const kept: TextNode[] = [];
  let used = 1;
  for (const child of children) {
    const cost = drawTree([child], 1).length;
    if (used + cost > max) break;
    kept.push(child);
    used += cost;
  }
  const hidden = children.slice(kept.length).reduce((sum, child) => sum + countLines(child), 0);
  return [...drawTree(kept, 1, false), `└─ and ${hidden} more line${hidden === 1 ? '' : 's'}`];
}

/** Lines of `children` down to `depth` levels; below that, one "and N more" line per cut subtree. */
function drawTree(children: readonly TextNode[], depth: number, closes = true, indent = ''): string[] {
  const lines: string[] = [];
  children.forEach((child, i) => {
    const last = closes && i === children.length - 1;
    lines.push(`${indent}${last ? '└─ ' : '├─ '}${child.text}`);
    const inner = indent + (last ? '   ' : '│  ');
    if (child.children.length === 0) return;
    if (depth > 1) lines.push(...drawTree(child.children, depth - 1, true, inner));
    else lines.push(`${inner}└─ and ${countLines(child) - 1} more line${countLines(child) === 2 ? '' : 's'}`);
  });
  return lines;
}

function maxDepth(children: readonly TextNode[]): number {
  return children.reduce((depth, child) => Math.max(depth, 1 + maxDepth(child.children)), 0);
}

function countLines(node: TextNode): number {
  let count = 1;
  for (const child of node.children) count += countLines(child);
  return count;
}

/**
 * Siblings that say the same thing about different versions become one. Two nodes merge when their
 * texts, and their subtrees line by line, differ in at most one version each, and that version is
 * not the end of a `first .. last` run; the merged line lists each sibling's version there.
 */
function mergeSiblings(nodes: readonly TextNode[]): TextNode[] {
  const groups: TextNode[][] = [];
  for (const node of nodes) {
    // Pairwise, so that every member differs from the others at the same place.
    const group = groups.find((members) => members.every((member) => mergeable(member, node)));
    if (group) group.push(node);
    else groups.push([node]);
  }
  return groups.map((group) =>
    group.length === 1 ? { text: group[0].text, children: mergeSiblings(group[0].children) } : mergeGroup(group),
  );
}

/** Nodes that `mergeable` accepted (so their subtrees line up child by child) as one node. */
function mergeGroup(group: readonly TextNode[]): TextNode {
  const children = group[0].children.map((_, i) => mergeGroup(group.map((node) => node.children[i])));
  return { text: joinTexts(group.map((node) => node.text)), children: mergeSiblings(children) };
}

/** A version-like token: digits and dots, optionally with a pre-release style suffix. */
const VERSION_TOKEN = /\b\d+(?:\.\d+)*(?:[a-z]+\d*)?\b/g;

function mergeable(a: TextNode, b: TextNode): boolean {
  if (a.children.length !== b.children.length || differingToken(a.text, b.text) === null) return false;
  return a.children.every((child, i) => mergeable(child, b.children[i]));
}

/**
 * Where two texts differ, when they differ in exactly one version token outside a run (-1 when
 * they are equal); null when they differ otherwise.
 */
function differingToken(a: string, b: string): number | null {
  if (a === b) return -1;
  const partsA = a.split(VERSION_TOKEN);
  const partsB = b.split(VERSION_TOKEN);
  if (partsA.length !== partsB.length || partsA.some((part, i) => part !== partsB[i])) return null;
  const tokensA = a.match(VERSION_TOKEN) ?? [];
  const tokensB = b.match(VERSION_TOKEN) ?? [];
  const differing = tokensA.flatMap((token, i) => (token === tokensB[i] ? [] : [i]));
  if (differing.length !== 1) return null;
  const at = differing[0];
  const inRun =
    partsA[at].endsWith(' .. ') || partsA[at + 1].startsWith(' .. ') || partsA[at + 1].startsWith(', ') || partsA[at].endsWith(', ');
  return inRun ? null : at;
}

/** Texts that differ in one version token (see `differingToken`), as one listing every value there. */
function joinTexts(texts: readonly string[]): string {
  const at = texts
    .slice(1)
    .map((text) => differingToken(texts[0], text))
    .find((i) => i !== null && i >= 0);
  if (at === undefined || at === null) return texts[0];
  const parts = texts[0].split(VERSION_TOKEN);
  const tokens = texts[0].match(VERSION_TOKEN) ?? [];
  const values = [...new Set(texts.map((text) => (text.match(VERSION_TOKEN) ?? [])[at]))];
  return parts.map((part, i) => part + (i < tokens.length ? (i === at ? values.join(', ') : tokens[i]) : '')).join('');
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
      const wanted = wantedSpecs(reason);
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
      const specs =
        reason.specs.length <= 2
          ? reason.specs.join(' or ')
          : `${reason.specs[0]} (or one of ${reason.specs.length - 1} similar constraints)`;
      if (requirer.kind === 'requested')
        return { text: `constrains ${specs}, which conflicts with the requested ${requirer.spec}`, children: [] };
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

/**
 * What a `requires` reason asks for: one or two specs as written; more, as the versions they allow,
 * or when none of those exists, as the specs themselves in short (never an empty version list).
 */
function wantedSpecs(reason: Extract<CandidateReason, { kind: 'requires' }>): string {
  if (reason.specs.length === 1) return reason.specs[0];
  if (reason.versions.length === 0) return compactSpecs(reason.name, reason.specs) ?? reason.specs.join(' or ');
  if (reason.specs.length === 2) return reason.specs.join(' or ');
  return `${reason.name} ${versions(reason.versions)}`;
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
    text = none
      ? `${who} is needed: ${needer}, which nothing else matches`
      : `${who} is needed: ${needer}, whose other candidates are ruled out:`;
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
