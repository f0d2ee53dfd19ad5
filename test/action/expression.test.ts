import { describe, expect, it } from 'vitest';
import {
  evaluateCondition,
  evaluateExpression,
  interpolate,
  looseEquals,
  UnsupportedExpressionError,
  type ExpressionContext,
} from './expression.js';

function context(overrides: Partial<ExpressionContext> = {}): ExpressionContext {
  return {
    inputs: { mode: 'local', format: '', specs: 'numpy' },
    runner: { os: 'Linux', arch: 'X64', temp: '/tmp/r' },
    github: { action_path: '/a', workspace: '/w' },
    stepIds: new Set(['local', 'remote']),
    steps: { local: { outputs: { response: '/tmp/x' }, outcome: 'success', conclusion: 'success' } },
    failed: false,
    ...overrides,
  };
}

describe('GitHub expressions (the subset action.yml uses)', () => {
  it.each([
    ["inputs.mode == 'local'", true],
    ["inputs.mode == 'LOCAL'", true], // GitHub compares strings ignoring case
    ["inputs.mode != 'local'", false],
    ["inputs.mode == 'remote'", false],
    ["inputs.mode == 'local' && runner.os != 'Windows'", true],
    ["inputs.mode == 'remote' || runner.os == 'linux'", true],
    ["!(inputs.mode == 'local')", false],
    ['!inputs.format', true],
    ["(inputs.mode == 'remote' || inputs.mode == 'local') && !inputs.format", true],
    ["inputs.format == ''", true],
    ['inputs.format == 0', true], // '' coerces to 0
    ['inputs.specs == 0', false], // 'numpy' is NaN as a number
    ["steps.local.outputs.response == '/tmp/x'", true],
    ["steps.remote.outputs.response == ''", true], // a step that has not run: null, '' as a string
    ["steps.local.outcome == 'success'", true],
    ["'it''s' == 'IT''S'", true],
    ['true && null', null],
    ["'' || 'fallback'", 'fallback'],
  ])('%s → %s', (source, expected) => {
    expect(evaluateExpression(source, context())).toBe(expected);
  });

  it('follows GitHub loose equality across types', () => {
    expect(looseEquals(null, 0)).toBe(true);
    expect(looseEquals(true, 1)).toBe(true);
    expect(looseEquals('1', 1)).toBe(true);
    expect(looseEquals('abc', 'ABC')).toBe(true);
    expect(looseEquals(Number.NaN, Number.NaN)).toBe(false);
    expect(looseEquals('x', 0)).toBe(false);
  });

  describe('conditions', () => {
    it('adds an implicit success() when no status function is named', () => {
      expect(evaluateCondition("inputs.mode == 'local'", context())).toBe(true);
      expect(evaluateCondition("inputs.mode == 'local'", context({ failed: true }))).toBe(false);
      expect(evaluateCondition(undefined, context({ failed: true }))).toBe(false);
    });

    it('runs always() and failure() steps after a failure', () => {
      expect(evaluateCondition('always()', context({ failed: true }))).toBe(true);
      expect(evaluateCondition('failure()', context({ failed: true }))).toBe(true);
      expect(evaluateCondition('failure()', context())).toBe(false);
      expect(evaluateCondition("${{ always() && inputs.mode == 'remote' }}", context({ failed: true }))).toBe(false);
      expect(evaluateCondition('${{ success() }}', context())).toBe(true);
      expect(evaluateCondition('cancelled()', context())).toBe(false);
    });
  });

  it('interpolates ${{ }} in values', () => {
    expect(interpolate('${{ inputs.mode }}', context())).toBe('local');
    expect(interpolate('x-${{ inputs.specs }}-${{ runner.os }}', context())).toBe('x-numpy-Linux');
    expect(interpolate('${{ steps.remote.outputs.response }}', context())).toBe('');
    expect(interpolate('${{ inputs.mode == 1 }}', context())).toBe('false');
  });

  it.each([
    ["contains(inputs.mode, 'l')", /unsupported function "contains\(\)"/],
    ["inputs['mode']", /unsupported character "\["/],
    ['inputs.nope', /declares no input "nope"/],
    ['steps.ghost.outputs.x', /no step with id "ghost"/],
    ['env.HOME', /unsupported context "env"/],
    ['github.token', /unsupported property "github.token"/],
    ["inputs.mode < 'x'", /unsupported character "<"/],
    ["inputs.mode == 'x", /unterminated string/],
    ['(inputs.mode', /missing "\)"/],
    ["inputs.mode 'x'", /unexpected "x" after the expression/],
  ])('fails loudly on %s', (source, message) => {
    expect(() => evaluateExpression(source, context())).toThrow(UnsupportedExpressionError);
    expect(() => evaluateExpression(source, context())).toThrow(message);
  });

  it('refuses a condition that mixes text and ${{ }}', () => {
    expect(() => evaluateCondition("x ${{ inputs.mode == 'local' }}", context())).toThrow(UnsupportedExpressionError);
  });
});
