/**
 * How a long or repetitive explanation is laid out: at most MAX_EXPLANATION_LINES lines, cut
 * subtrees counted as "and N more lines", and siblings that differ only in one version merged.
 */
import { describe, expect, it } from 'vitest';
import { MAX_EXPLANATION_LINES, renderExplanation } from '../../solver/core/explain/render.js';
import type { CandidateGroup, Explanation, RequirementFailure } from '../../solver/core/explain/types.js';

const missing = (name: string, spec: string): RequirementFailure => ({
  kind: 'missing',
  spec,
  name,
  available: [{ kind: 'version', version: '1.0' }],
  excluded: [],
  note: null,
});

function group(version: string, dependency: string, failure: RequirementFailure): CandidateGroup {
  return {
    name: 'app',
    versions: [{ kind: 'version', version }],
    all: false,
    reason: { kind: 'requires', name: dependency, specs: [`${dependency} >=2`], versions: [], failure },
  };
}

function explanation(groups: CandidateGroup[]): Explanation {
  return {
    spec: 'app',
    specIndex: 0,
    earlierSpecs: [],
    failure: { kind: 'unsatisfiable', spec: 'app', name: 'app', groups },
    together: null,
    complete: true,
  };
}

describe('explanation layout', () => {
  it('merges siblings that differ in one version and keeps the others apart', () => {
    const text = renderExplanation(
      explanation([
        group('1.0', 'lib', missing('lib', 'lib >=2')),
        group('1.1', 'lib', missing('lib', 'lib >=2')),
        group('1.2', 'zlib', missing('zlib', 'zlib >=2')),
      ]),
    );
    expect(text).toBe(
      [
        'app cannot be installed because no app can be installed:',
        '├─ app 1.0, 1.1 requires lib >=2, but no lib matches (available: 1.0)',
        '└─ app 1.2 requires zlib >=2, but no zlib matches (available: 1.0)',
      ].join('\n'),
    );
  });

  it('cuts a tree wider than the limit and says how many lines it left out', () => {
    const groups = Array.from({ length: 40 }, (_, i) =>
      group(`${i}.0`, `dep${String.fromCharCode(97 + (i % 26))}${i}`, missing('x', 'x >=2')),
    );
    const lines = renderExplanation(explanation(groups)).split('\n');
    expect(lines).toHaveLength(MAX_EXPLANATION_LINES);
    expect(lines[lines.length - 1]).toBe('└─ and 17 more lines');
  });

  it('cuts a deep tree at the deepest level that fits, keeping every top branch', () => {
    const deep = (depth: number): RequirementFailure =>
      depth === 0
        ? missing('leaf', 'leaf >=2')
        : {
            kind: 'unsatisfiable',
            spec: `n${depth}`,
            name: `n${depth}`,
            groups: [group('1', `a${depth}`, deep(depth - 1)), group('2', `b${depth}`, deep(depth - 1))],
          };
    const text = renderExplanation(explanation([group('1.0', 'p', deep(4)), group('2.0', 'q', deep(4))]));
    const lines = text.split('\n');
    expect(lines.length).toBeLessThanOrEqual(MAX_EXPLANATION_LINES);
    expect(lines.filter((line) => /^[├└]─ app /.test(line))).toHaveLength(2);
    expect(text).toMatch(/and \d+ more lines/);
  });
});
