/**
 * The library entry checks its arguments at run time, as a JavaScript caller (or one with `any`)
 * gets no help from the types: a typed error naming the argument, never a TypeError from inside or
 * a string read letter by letter; and an aborted `signal` rejects with the abort error at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  CondaResolveError,
  InvalidArgumentError,
  ResolveAbortedError,
  exportResolution,
  registerBuiltinExporters,
  resolveEnvironments,
  type Resolution,
} from '../../src/index.js';

const DEMO = resolve(import.meta.dirname, '../../fixtures/channels/demo');
const cacheDir = mkdtempSync(join(tmpdir(), 'cr-library-args-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));
const options = { cacheDir, env: {} };
const good = { specs: ['python=3.12'], channels: [DEMO], platforms: ['linux-64'] };

/** Calls with what the types would refuse. */
const resolveAny = resolveEnvironments as (request: unknown, options?: unknown) => Promise<Resolution>;
const exportAny = exportResolution as (resolution: unknown, format: unknown, options?: unknown) => string;

async function rejection(promise: Promise<unknown>): Promise<CondaResolveError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CondaResolveError);
  return error as CondaResolveError;
}

describe('resolveEnvironments checks its request', () => {
  it('refuses specs given as a string instead of reading its letters as six specs', async () => {
    const error = await rejection(resolveAny({ ...good, specs: 'python' }, options));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({
      code: 'CR_ERR_INPUT_SPEC',
      argument: 'request.specs',
      message:
        'Invalid argument request.specs: expected an array of strings such as ["python=3.12", "numpy"], not the string "python"; write specs: ["python"]',
    });
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'python'],
    ['an array', ['python']],
  ])('refuses %s as the request with a typed error, not a TypeError', async (_, request) => {
    const error = await rejection(resolveAny(request, options));
    expect(error).toMatchObject({ code: 'CR_ERR_INPUT_OPTION', argument: 'request' });
    expect(error.message).toMatch(/^Invalid argument request: expected an object such as/);
  });

  it.each([
    [{ channels: [42] }, 'CR_ERR_INPUT_CHANNEL', 'request.channels[0]', 'expected a string, not the number 42'],
    [{ channels: DEMO }, 'CR_ERR_INPUT_CHANNEL', 'request.channels', 'expected an array of strings'],
    [{ platforms: 'linux-64' }, 'CR_ERR_INPUT_PLATFORM', 'request.platforms', 'write platforms: ["linux-64"]'],
    [{ platforms: [null] }, 'CR_ERR_INPUT_PLATFORM', 'request.platforms[0]', 'not null'],
    [{ specs: ['python', 3] }, 'CR_ERR_INPUT_SPEC', 'request.specs[1]', 'not the number 3'],
    [{ virtualPackages: '__glibc=2.17' }, 'CR_ERR_INPUT_OPTION', 'request.virtualPackages', 'expected an array of strings'],
    [{ channelPriority: 1 }, 'CR_ERR_INPUT_OPTION', 'request.channelPriority', 'not the number 1'],
    [{ excludeNewer: new Date(0) }, 'CR_ERR_INPUT_DATE', 'request.excludeNewer', 'not a Date; use date.toISOString()'],
    [
      { files: { filename: 'environment.yml', content: '' } },
      'CR_ERR_INPUT_OPTION',
      'request.files',
      'expected an array of { filename, content }',
    ],
    [
      { files: [{ filename: 'environment.yml' }] },
      'CR_ERR_INPUT_OPTION',
      'request.files[0].content',
      "expected the file's text, a string, not undefined",
    ],
    [{ platform: ['linux-64'] }, 'CR_ERR_INPUT_OPTION', 'request.platform', 'unknown field "platform" (did you mean "platforms"?)'],
    [{ pypi: 'rich' }, 'CR_ERR_INPUT_SPEC', 'request.pypi', 'write pypi: ["rich"]'],
    [
      { files: [{ filename: 'environment.yml', content: '', encoding: 'utf8' }] },
      'CR_ERR_INPUT_OPTION',
      'request.files[0].encoding',
      'Invalid argument request.files[0]: unknown field "encoding"',
    ],
    [
      { files: [{ filename: '', content: '' }] },
      'CR_ERR_INPUT_OPTION',
      'request.files[0].filename',
      'expected a file name such as "environment.yml", not the string ""',
    ],
    [
      { lock: { filename: 'pixi.lock' } },
      'CR_ERR_INPUT_OPTION',
      'request.lock',
      'expected a lock file { filename: "pixi.lock", content }, not an object',
    ],
    [{ pypiOptions: { findLinks: './wheels' } }, 'CR_ERR_INPUT_OPTION', 'request.pypiOptions.findLinks', 'write findLinks: ["./wheels"]'],
    [
      { pypiOptions: { prerelease: true } },
      'CR_ERR_INPUT_OPTION',
      'request.pypiOptions.prerelease',
      'expected a string, not the boolean true',
    ],
    [
      { pypiOptions: { indexURL: 'https://example.org/simple' } },
      'CR_ERR_INPUT_OPTION',
      'request.pypiOptions.indexURL',
      'unknown field "indexURL" (did you mean "indexUrl"?)',
    ],
    [{ condaPypiMap: [] }, 'CR_ERR_INPUT_OPTION', 'request.condaPypiMap', 'not an array'],
    [{ environment: 7 }, 'CR_ERR_INPUT_OPTION', 'request.environment', 'expected an environment name such as "default", not the number 7'],
  ])('refuses %j with %s naming %s', async (change, code, argument, text) => {
    const error = await rejection(resolveAny({ ...good, ...change }, options));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ code, argument });
    expect(error.message).toContain(text);
  });

  it('an unknown platform name is a typed CR_ERR_INPUT_PLATFORM naming it', async () => {
    const error = await rejection(resolveAny({ ...good, platforms: ['linux-65'] }, options));
    expect(error).toMatchObject({ code: 'CR_ERR_INPUT_PLATFORM' });
    expect(error.message).toMatch(/^Cannot resolve for platform "linux-65": unknown platform/);
  });
});

describe('resolveEnvironments checks its options', () => {
  it('takes null options as no options', async () => {
    const resolution = await resolveAny(good, null);
    expect(resolution.platforms.map((p) => p.error)).toEqual([null]);
  });

  it.each([
    ['a string', 'options', 'expected an object with the fields'],
    [{ timeoutMs: '30' }, 'options.timeoutMs', 'expected a number of milliseconds above 0, not the string "30"'],
    [{ timeoutMs: -1 }, 'options.timeoutMs', 'not the number -1'],
    [{ timeoutMs: Number.NaN }, 'options.timeoutMs', 'not the number NaN'],
    [{ signal: {} }, 'options.signal', 'expected an AbortSignal, not an object'],
    [{ offline: 'yes' }, 'options.offline', 'expected true or false'],
    [{ cacheDir: 7 }, 'options.cacheDir', 'expected a directory path, not the number 7'],
    [{ store: {} }, 'options.store', 'expected a RepodataStore'],
    [{ solver: {} }, 'options.solver', 'expected a PlatformSolver'],
    [{ env: { CONDA_OVERRIDE_GLIBC: 2.17 } }, 'options.env', 'expected an object of string values'],
    [{ defaultChannels: 'conda-forge' }, 'options.defaultChannels', 'write defaultChannels: ["conda-forge"]'],
    [{ timeout: 30 }, 'options.timeout', 'unknown field "timeout" (did you mean "timeoutMs"?)'],
    [{ timeoutMs: Number.POSITIVE_INFINITY }, 'options.timeoutMs', 'not the number Infinity'],
    [{ cwd: '' }, 'options.cwd', 'expected a directory path, not the string ""'],
    [{ defaultChannels: ['conda-forge', null] }, 'options.defaultChannels[1]', 'expected a string, not null'],
  ])('refuses options %j naming %s', async (given, argument, text) => {
    const opts = typeof given === 'string' ? given : { ...options, ...given };
    const error = await rejection(resolveAny(good, opts));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ argument });
    expect(error.code).toMatch(/^CR_ERR_INPUT_/);
    expect(error.message).toContain(text);
  });
});

describe('resolveEnvironments and an AbortSignal', () => {
  /** A channel that accepts connections and never answers: a resolve against it stays under way. */
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });
  async function hangingChannel(): Promise<{ url: string; connections: () => number; connected: Promise<void> }> {
    let connections = 0;
    let markConnected!: () => void;
    const connected = new Promise<void>((resolve) => (markConnected = resolve));
    const server = createServer((socket) => {
      connections++;
      markConnected();
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}/hang`, connections: () => connections, connected };
  }

  it('an already aborted signal rejects at once with the abort error, before anything is fetched', async () => {
    const channel = await hangingChannel();
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      resolveEnvironments({ ...good, channels: [channel.url] }, { ...options, refresh: true, signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(ResolveAbortedError);
    expect(error).toMatchObject({ name: 'AbortError', code: 'CR_ERR_SOLVE_ABORTED', message: 'The resolve was cancelled' });
    expect(error.cause).toBe(controller.signal.reason);
    expect(channel.connections()).toBe(0);
  });

  // (Whether the download itself stops is the store's business: it may finish it for the cache.)
  it('aborting mid-resolve, while a download hangs, rejects promptly with the abort error carrying the reason', async () => {
    const channel = await hangingChannel();
    const controller = new AbortController();
    const pending = resolveEnvironments({ ...good, channels: [channel.url] }, { ...options, refresh: true, signal: controller.signal });
    const outcome = pending.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    // The channel never answers: only the abort can end the resolve (else the test times out).
    await channel.connected;
    const reason = new Error('the user went away');
    controller.abort(reason);
    const error = await outcome;
    expect(error).toBeInstanceOf(ResolveAbortedError);
    expect(error).toMatchObject({ code: 'CR_ERR_SOLVE_ABORTED', message: 'The resolve was cancelled (the user went away)' });
    expect((error as Error).cause).toBe(reason);
  });

  it('a reason that is itself a typed error is what the resolve rejects with', async () => {
    const controller = new AbortController();
    const reason = new CondaResolveError('CR_ERR_SOLVE_TIMEOUT', 'Out of time');
    controller.abort(reason);
    await expect(resolveEnvironments(good, { ...options, signal: controller.signal })).rejects.toBe(reason);
  });

  it('a signal that is never aborted changes nothing', async () => {
    const resolution = await resolveEnvironments(good, { ...options, signal: new AbortController().signal });
    expect(resolution.platforms.map((p) => p.error)).toEqual([null]);
  });
});

describe('exportResolution checks its arguments', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'pixi'],
    ['an object without platforms', { request: {} }],
  ])('refuses %s as the resolution with a typed error', (_, resolution) => {
    expect(() => exportAny(resolution, 'pixi')).toThrow(InvalidArgumentError);
    expect(() => exportAny(resolution, 'pixi')).toThrow(
      /^Invalid argument resolution: expected a Resolution, as resolveEnvironments returns/,
    );
  });

  it.each([
    [
      { request: { channels: 'conda-forge' }, platforms: [] },
      'resolution.request.channels',
      'expected an array of channels, not the string "conda-forge"',
    ],
    [
      { request: { channels: [] }, platforms: [{ platform: 'linux-64', records: {}, error: null }] },
      'resolution.platforms[0]',
      'expected a PlatformResolution { platform, records, error, errorCode }, not an object',
    ],
  ])('refuses a resolution with a wrong part, naming the part: %j', (resolution, argument, text) => {
    let error: unknown;
    try {
      exportAny(resolution, 'pixi');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ code: 'CR_ERR_INPUT_OPTION', argument, message: `Invalid argument ${argument}: ${text}` });
  });

  it('refuses a format that is not a name, and bad options; takes null options as none', async () => {
    const resolution = await resolveEnvironments(good, options);
    const thrown = (f: () => unknown): unknown => {
      try {
        f();
      } catch (error) {
        return error;
      }
      throw new Error('expected an error');
    };
    expect(thrown(() => exportAny(resolution, undefined))).toMatchObject({ code: 'CR_ERR_INPUT_OPTION', argument: 'format' });
    expect(thrown(() => exportAny(resolution, ['pixi']))).toMatchObject({ code: 'CR_ERR_INPUT_OPTION', argument: 'format' });
    expect(thrown(() => exportAny(resolution, 'pixi', 'now'))).toMatchObject({ code: 'CR_ERR_INPUT_OPTION', argument: 'options' });
    expect(thrown(() => exportAny(resolution, 'pixi', { now: '2026-01-01' }))).toMatchObject({
      argument: 'options.now',
      message: 'Invalid argument options.now: expected a valid Date, not the string "2026-01-01"',
    });
    expect(thrown(() => exportAny(resolution, 'pixi', { now: new Date(Number.NaN) }))).toMatchObject({ argument: 'options.now' });
    expect(thrown(() => exportAny(resolution, 'pixi', { registry: {} }))).toMatchObject({ argument: 'options.registry' });
    expect(thrown(() => exportAny(resolution, ' '))).toMatchObject({
      argument: 'format',
      message: 'Invalid argument format: expected a format name such as "pixi" or "explicit", not the string " "',
    });
    expect(thrown(() => exportAny(resolution, 'pixi', { now: new Date(0), when: 1 }))).toMatchObject({
      argument: 'options.when',
      message: 'Invalid argument options: unknown field "when"; the fields are registry, now',
    });
    expect(thrown(() => exportAny(resolution, 'no-such-format'))).toMatchObject({ code: 'CR_ERR_FORMAT_UNKNOWN' });
    expect(exportAny(resolution, 'pixi', null).startsWith('version: 6\n')).toBe(true);
    expect(exportAny(resolution, 'explicit', { registry: registerBuiltinExporters() })).toContain('@EXPLICIT');
  });
});
