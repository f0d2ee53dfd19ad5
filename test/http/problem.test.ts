import { describe, expect, it } from 'vitest';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { inputProblem, problemForError } from '../../src/http/error-handler.js';
import { DEFINED_STATUSES, PROBLEM_KINDS, problemType } from '../../src/http/problem.js';

describe('problem details', () => {
  it('every kind has a distinct type URI and a defined status', () => {
    const types = Object.keys(PROBLEM_KINDS).map((kind) => problemType(kind as keyof typeof PROBLEM_KINDS));
    expect(new Set(types).size).toBe(types.length);
    for (const { status } of Object.values(PROBLEM_KINDS)) expect(DEFINED_STATUSES).toContain(status);
  });

  it('maps input error codes to kinds and fields', () => {
    expect(inputProblem(new CondaResolveError('CR_ERR_INPUT_PLATFORM', 'Cannot resolve for platform "x"'))).toMatchObject({ kind: 'invalid-platform', field: 'platforms' });
    expect(inputProblem(new CondaResolveError('CR_ERR_INPUT_SPEC', 'environment.yml, line 3: Cannot parse'), { filename: 'environment.yml' })).toMatchObject({ kind: 'invalid-spec', field: 'file' });
    expect(inputProblem(new CondaResolveError('CR_ERR_INPUT_SPEC', 'Cannot parse match spec'), { filename: 'environment.yml' })).toMatchObject({ field: 'specs' });
    expect(inputProblem(new CondaResolveError('CR_ERR_INPUT_OPTION', 'Cannot use channel priority "x"'))).toMatchObject({ field: 'channel_priority' });
    expect(inputProblem(new CondaResolveError('CR_ERR_SOLVE_UNSATISFIABLE', 'x'))).toBeUndefined();
  });

  it('hides local paths and credentials in input problems', () => {
    const problem = inputProblem(new CondaResolveError('CR_ERR_INPUT_CHANNEL', 'Cannot use channel "/home/alice/chan" or https://u:secret@x.org/t/tok/c'));
    expect(problem!.detail).not.toMatch(/alice|secret|tok\//);
  });

  it('an unexpected error is a generic 500 that says nothing of it', () => {
    const { problem, internal } = problemForError(new TypeError('Cannot read properties of undefined (reading "x") at /work/main/src/a.ts:1'), { bodyLimit: 1 });
    expect(internal).toBe(true);
    expect(problem).toMatchObject({ status: 500, type: 'urn:conda-resolve:problem:internal-error', detail: 'Internal error: the request failed unexpectedly' });
  });
});
