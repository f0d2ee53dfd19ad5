import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepodataStore } from '../../repodata/store.js';
import { main } from '../../src/cli/main.js';
import { EXIT_FAILED, EXIT_USAGE } from '../../src/cli/io.js';
import { CondaResolveError, ERROR_CODES, ERRORS, exitStatusOf, type ErrorCode } from '../../src/errors.js';
import { EXPORTER_ERROR_CODES } from '../../src/exporters/types.js';
import { loadConfig } from '../../src/http/config.js';
import { problemForError } from '../../src/http/error-handler.js';
import { PROBLEM_KINDS, problemType } from '../../src/http/problem.js';
import { InProcessSolver } from '../../src/solving/platform-runner.js';
import { prepareRequest } from '../../src/request.js';
import { PoolBusyError } from '../../src/solving/solve-pool.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { buildTestApp, DEMO_CHANNEL, DEMO_CHANNEL_DIR, type ProblemBody } from '../http/helpers/test-server.js';

/** Every `.ts` file under a folder of the project. */
function sources(folder: string): string[] {
  const dir = join(PROJECT_ROOT, folder);
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(join(folder, name));
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The complete `CR_ERR_*` literals of a file (a quoted code, not a prefix such as `CR_ERR_HTTP_${...}`). */
function codeLiterals(path: string): string[] {
  return [...readFileSync(path, 'utf8').matchAll(/['"`](CR_ERR_[A-Z_]+)['"`]/g)].map((match) => match[1]!);
}

describe('the error registry', () => {
  const registered = new Set<string>(Object.keys(ERRORS));

  it('has every code thrown or compared in src/, solver/, repodata/ and vocabulary/', () => {
    const missing: string[] = [];
    for (const folder of ['src', 'solver', 'repodata', 'vocabulary']) {
      for (const path of sources(folder)) {
        for (const code of codeLiterals(path)) if (!registered.has(code)) missing.push(`${code} (${path.slice(PROJECT_ROOT.length + 1)})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('lists no code that nothing throws (problems thrown from routes are named after their kind)', () => {
    const used = new Set(['src', 'solver', 'repodata', 'vocabulary'].flatMap((folder) => sources(folder)).flatMap(codeLiterals));
    const unused = [...registered].filter((code) => !used.has(code) && !code.startsWith('CR_ERR_HTTP_'));
    expect(unused).toEqual([]);
  });

  it('gives every code a description, a problem kind, an exit status and a field only for refusals', () => {
    expect(Object.keys(ERROR_CODES).sort()).toEqual([...registered].sort());
    for (const [code, spec] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^CR_ERR_[A-Z]+(_[A-Z]+)*$/);
      expect(spec.description.length).toBeGreaterThan(10);
      expect(PROBLEM_KINDS[spec.problem]).toBeDefined();
      expect([EXIT_FAILED, EXIT_USAGE]).toContain(spec.exit);
      if (spec.field !== undefined) expect(PROBLEM_KINDS[spec.problem].status).toBe(400);
      if (spec.fileField !== undefined) expect(spec.field).toBeDefined();
    }
  });

  it('an error keeps the code it was thrown with', () => {
    expect(new PoolBusyError(1).code).toBe('CR_ERR_POOL_BUSY');
    expect(ERRORS.CR_ERR_POOL_BUSY.problem).toBe('overloaded');
  });

  it('calls exactly the old usage codes (CR_ERR_INPUT_*, CR_ERR_FORMAT_*, the server settings and configuration files) usage errors', () => {
    const usage = Object.entries(ERRORS)
      .filter(([, spec]) => spec.exit === EXIT_USAGE)
      .map(([code]) => code);
    expect(
      usage.every((code) => /^CR_ERR_(INPUT|FORMAT)_/.test(code) || code === 'CR_ERR_CONFIG_VALUE' || code === 'CR_ERR_CONFIG_FILE'),
    ).toBe(true);
    expect(
      Object.keys(ERRORS)
        .filter((code) => /^CR_ERR_(INPUT|FORMAT)_/.test(code))
        .every((code) => ERRORS[code as ErrorCode].exit === EXIT_USAGE),
    ).toBe(true);
    expect(exitStatusOf(new TypeError('x'))).toBe(EXIT_FAILED);
  });
});

describe('exporter error codes', () => {
  it("every CR_ERR_* code used in src/exporters (and the lock writers' export codes in src/locks) is listed and described, and every listed code is used", () => {
    const used = new Set<string>();
    for (const [folder, pattern] of [
      ['src/exporters', /'(CR_ERR_[A-Z_]+)'/g],
      ['src/locks', /'(CR_ERR_(?:FORMAT|EXPORT)_[A-Z_]+)'/g],
    ] as const) {
      const dir = join(PROJECT_ROOT, folder);
      for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && f !== 'types.ts')) {
        for (const match of readFileSync(join(dir, file), 'utf8').matchAll(pattern)) used.add(match[1]!);
      }
    }
    expect([...used].sort()).toEqual(Object.keys(EXPORTER_ERROR_CODES).sort());
    for (const [code, meaning] of Object.entries(EXPORTER_ERROR_CODES)) {
      expect(code).toMatch(/^CR_ERR_(FORMAT|EXPORT)_[A-Z_]+$/);
      expect(meaning.length).toBeGreaterThan(10);
    }
  });
});

/** Runs the CLI in this process; its exit status and standard error. */
async function runMain(argv: readonly string[]): Promise<{ status: number; stderr: string }> {
  let stderr = '';
  const sink = (onChunk: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        onChunk(chunk.toString('utf8'));
        callback();
      },
    });
  const status = await main(argv, { stdout: sink(() => {}), stderr: sink((text) => (stderr += text)), env: {}, cwd: PROJECT_ROOT });
  return { status, stderr };
}

/** The error a call throws. */
function thrown(fn: () => unknown): CondaResolveError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CondaResolveError) return error;
    throw error;
  }
  throw new Error('expected a CondaResolveError');
}

/**
 * One representative error per class of code, through the real CLI and HTTP layers (the inputs of
 * test/cli/cli.test.ts and test/http/routes.test.ts): what they answer is what the registry says.
 */
describe('the registry matches what the CLI and the HTTP layer do', () => {
  let app: FastifyInstance;
  let cacheDir: string;
  let base: string;

  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'cr-registry-'));
    const config = loadConfig(
      {},
      { 'rate-limit': '0', 'allow-local-channels': true, 'default-channel': [DEMO_CHANNEL], 'cache-dir': cacheDir },
    );
    app = await buildTestApp(config, {
      store: new RepodataStore({ cacheDir, offline: true, refresh: false }),
      solver: new InProcessSolver(),
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await app.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  function expectRegistry(code: ErrorCode, answer: { status: number; type: string }, cliStatus?: number): void {
    const spec = ERRORS[code];
    expect({ status: answer.status, type: answer.type }).toEqual({
      status: PROBLEM_KINDS[spec.problem].status,
      type: problemType(spec.problem),
    });
    if (cliStatus !== undefined) expect(cliStatus).toBe(spec.exit);
  }

  // Over a socket: a resolve whose request has no socket reads as a client that went away.
  async function ask(method: 'GET' | 'POST', url: string, body?: object): Promise<ProblemBody> {
    const response = await fetch(`${base}${url}`, {
      method,
      ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
    return (await response.json()) as ProblemBody;
  }

  const cli = (args: readonly string[]) => runMain([...args, '-q', '--cache-dir', cacheDir, '-c', DEMO_CHANNEL_DIR]);

  it('bad input: a 400 of its kind, exit 2', async () => {
    const error = thrown(() =>
      prepareRequest(
        { specs: ['python'], platforms: ['bogus'] },
        { env: {}, cwd: PROJECT_ROOT, hostPlatform: 'linux-64', defaultChannels: ['conda-forge'] },
      ),
    );
    expect(error.code).toBe('CR_ERR_INPUT_PLATFORM');
    const problem = await ask('GET', '/resolve?spec=python&platform=bogus');
    expect(problem.field).toBe(ERRORS.CR_ERR_INPUT_PLATFORM.field);
    expectRegistry(error.code, problem, (await cli(['python', '-p', 'bogus'])).status);
  });

  it('an unknown format: a 400 unknown-format, exit 2', async () => {
    const problem = await ask('GET', `/resolve?spec=python&format=nope&channel=${encodeURIComponent(DEMO_CHANNEL)}`);
    expectRegistry('CR_ERR_FORMAT_UNKNOWN', problem, (await cli(['python', '--format', 'nope'])).status);
  });

  it('a failed solve: a 500 solve-failed when a format is asked for, exit 1', async () => {
    const problem = await ask('POST', '/resolve?format=explicit', {
      specs: ['linux-only-tool'],
      platforms: ['osx-arm64'],
      channels: [DEMO_CHANNEL],
    });
    expect(problem.platforms?.[0]?.code).toBe('CR_ERR_SOLVE_UNSATISFIABLE');
    expectRegistry(
      'CR_ERR_SOLVE_UNSATISFIABLE',
      problem,
      (await cli(['linux-only-tool', '-p', 'osx-arm64', '--format', 'explicit'])).status,
    );
  });

  it('a failed export: a 500 export-failed, exit 1', async () => {
    const problem = await ask('POST', '/resolve?format=requirements', {
      specs: ['python=3.11'],
      platforms: ['linux-64'],
      channels: [DEMO_CHANNEL],
    });
    const { status, stderr } = await cli(['python=3.11', '-p', 'linux-64', '--format', 'requirements']);
    expect(stderr).toContain('requirements');
    expectRegistry('CR_ERR_EXPORT_REQUIREMENTS_NO_SPECS', problem, status);
  });

  it('an overloaded pool: a 503 that says when to retry', () => {
    const { problem } = problemForError(new PoolBusyError(4), { bodyLimit: 1 });
    expect(problem.retry_after).toBe(1);
    expectRegistry('CR_ERR_POOL_BUSY', problem);
  });

  it('an internal failure: a generic 500', () => {
    const { problem, internal } = problemForError(new CondaResolveError('CR_ERR_INTERNAL', 'Internal error: the solver worker stopped'), {
      bodyLimit: 1,
    });
    expect(internal).toBe(true);
    expect(problem.detail).toBe('Internal error: the request failed unexpectedly');
    expectRegistry('CR_ERR_INTERNAL', problem);
  });
});
