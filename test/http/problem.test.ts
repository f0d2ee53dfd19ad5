import { describe, expect, it } from 'vitest';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { inputProblem, problemForError } from '../../src/http/error-handler.js';
import { DEFINED_STATUSES, PROBLEM_KINDS, problemType } from '../../src/http/problem.js';
import { prepareRequest, type ResolveRequest } from '../../src/request.js';
import { PoolBusyError } from '../../src/solving/solve-pool.js';

/** The input error prepareRequest throws for a request. */
function refusal(request: ResolveRequest): CondaResolveError {
  try {
    prepareRequest(request, { env: {}, cwd: '/', hostPlatform: 'linux-64', defaultChannels: ['conda-forge'] });
  } catch (error) {
    if (error instanceof CondaResolveError) return error;
    throw error;
  }
  throw new Error('expected prepareRequest to refuse the request');
}

describe('problem details', () => {
  it('every kind has a distinct type URI and a defined status', () => {
    const types = Object.keys(PROBLEM_KINDS).map((kind) => problemType(kind as keyof typeof PROBLEM_KINDS));
    expect(new Set(types).size).toBe(types.length);
    for (const { status } of Object.values(PROBLEM_KINDS)) expect(DEFINED_STATUSES).toContain(status);
  });

  it('maps input error codes to kinds and fields', () => {
    expect(inputProblem(new CondaResolveError('CR_ERR_INPUT_PLATFORM', 'Cannot resolve for platform "x"'))).toMatchObject({
      kind: 'invalid-platform',
      field: 'platforms',
    });
    const file = { filename: 'environment.yml', content: 'dependencies:\n  - python\n  - ">=<"\n' };
    expect(inputProblem(refusal({ specs: ['python'], files: [file] }), { filename: 'environment.yml' })).toMatchObject({
      kind: 'invalid-spec',
      field: 'file',
    });
    expect(
      inputProblem(refusal({ specs: ['>=<'], files: [{ filename: 'environment.yml', content: 'dependencies:\n  - python\n' }] }), {
        filename: 'environment.yml',
      }),
    ).toMatchObject({ kind: 'invalid-spec', field: 'specs' });
    expect(
      inputProblem(refusal({ specs: [], files: [{ filename: 'environment.yml', content: 'dependencies: []\n' }] }), {
        filename: 'environment.yml',
      }),
    ).toMatchObject({ kind: 'no-specs', field: 'file' });
    expect(inputProblem(refusal({ specs: ['python'], channelPriority: 'loose' }))).toMatchObject({
      kind: 'invalid-option',
      field: 'channel_priority',
    });
    expect(inputProblem(refusal({ specs: ['python'], virtualPackages: ['__glibc=x=y=z'] }))).toMatchObject({
      kind: 'invalid-option',
      field: 'virtual_packages',
    });
    expect(inputProblem(new CondaResolveError('CR_ERR_SOLVE_UNSATISFIABLE', 'x'))).toBeUndefined();
  });

  it('answers a typed error that is not bad input by its registry entry', () => {
    const { problem, internal } = problemForError(new PoolBusyError(2), { bodyLimit: 1 });
    expect(internal).toBe(false);
    expect(problem).toMatchObject({
      status: 503,
      type: 'urn:conda-resolve:problem:overloaded',
      retry_after: 1,
      detail: 'Cannot start the solve: the solve queue is full (2 waiting)',
    });
    // A text not exposed to clients (a server setting) is never sent, whatever it says.
    const config = problemForError(new CondaResolveError('CR_ERR_CONFIG_VALUE', 'Cannot use --port "x" read from /etc/secret'), {
      bodyLimit: 1,
    });
    expect(config.problem).toMatchObject({ status: 500, detail: 'Internal error: the request failed unexpectedly' });
  });

  it('hides local paths and credentials in input problems', () => {
    const problem = inputProblem(
      new CondaResolveError('CR_ERR_INPUT_CHANNEL', 'Cannot use channel "/home/alice/chan" or https://u:secret@x.org/t/tok/c'),
    );
    expect(problem!.detail).not.toMatch(/alice|secret|tok\//);
  });

  it('an unexpected error is a generic 500 that says nothing of it', () => {
    const { problem, internal } = problemForError(
      new TypeError('Cannot read properties of undefined (reading "x") at /work/main/src/a.ts:1'),
      { bodyLimit: 1 },
    );
    expect(internal).toBe(true);
    expect(problem).toMatchObject({
      status: 500,
      type: 'urn:conda-resolve:problem:internal-error',
      detail: 'Internal error: the request failed unexpectedly',
    });
  });
});
