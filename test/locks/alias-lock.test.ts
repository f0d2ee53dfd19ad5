/**
 * Issue 32, item 4: YAML aliases in a lock (or an environment file) multiplied memory and output: a
 * 896 KB pixi.lock whose records share `depends: *D` gave a 377 MB answer. Anchors and aliases are
 * refused where they are defined (no tool writes them), and any answer has a bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerTooLargeError, boundedAnswer, MAX_ANSWER_BYTES } from '../../src/answer-size.js';
import { ERRORS } from '../../src/errors.js';
import { PROBLEM_KINDS } from '../../src/problem-kinds.js';
import { parseInputFile } from '../../src/inputs/index.js';
import { call, injectTestServer, type InjectedServer } from '../http/helpers/test-server.js';
import { aliasLock } from '../helpers/alias-lock.js';

describe('YAML aliases are refused in locks and environment files', () => {
  let server: InjectedServer;
  beforeAll(async () => {
    server = await injectTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a 900 KB pixi.lock standing for gigabytes by alias is a 400 naming the anchor, not a huge answer', async () => {
    const text = aliasLock(4_500, 2_000);
    expect(JSON.stringify({ file: text }).length).toBeLessThan(1024 * 1024);
    const answer = await call(server.app, 'POST', '/resolve?format=explicit', { json: { file: text, filename: 'pixi.lock' } });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('line 4510 defines the YAML anchor \\"&D\\"; anchors and aliases are not accepted');
  });

  it('an environment.yml with an alias is refused at the anchor', () => {
    expect(() => parseInputFile('environment.yml', 'channels: &C [conda-forge]\ndependencies: *C\n')).toThrow(
      'Cannot read environment file "environment.yml": line 1 defines the YAML anchor "&C"; anchors and aliases are not accepted',
    );
  });
});

describe('any answer has a bound', () => {
  it('an answer too long to build is AnswerTooLargeError (HTTP 413, exit 1), not a RangeError', () => {
    expect(() =>
      boundedAnswer(() => {
        throw new RangeError('Invalid string length');
      }, 'native JSON result'),
    ).toThrow(AnswerTooLargeError);
    expect(() => boundedAnswer(() => 'x'.repeat(10), 'text')).not.toThrow();
    expect(PROBLEM_KINDS[ERRORS.CR_ERR_OUTPUT_TOO_LARGE.problem].status).toBe(413);
    expect(MAX_ANSWER_BYTES).toBe(128 * 1024 * 1024);
  });
});
