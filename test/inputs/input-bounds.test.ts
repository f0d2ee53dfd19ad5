/**
 * Bounds on input files and requests (issue 11, item 2): a spec over a limit in a file is an error
 * naming the file, the line and the limit; a request (with its files) has at most
 * MAX_REQUEST_SPECS distinct specs, counted before any is parsed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseInputFile } from '../../src/inputs/index.js';
import { MAX_REQUEST_SPECS, prepareRequest, TooManySpecsError } from '../../src/request.js';
import { InvalidMatchSpecError } from '../../vocabulary/match-spec.js';
import { MAX_SPEC_LENGTH } from '../../vocabulary/version-spec.js';
import { DEMO, runCli, tempDir } from '../cli/run-cli.js';
import { thrown } from '../helpers/thrown.js';

const options = { env: {}, cwd: '/home/user/project', hostPlatform: 'linux-64', defaultChannels: ['conda-forge'] };

/** The issue's spec: 25,000 comma-joined constraints. */
const HUGE = `python ${Array.from({ length: 25_000 }, (_, i) => `>=${i}`).join(',')}`;

describe('a spec over a limit in a file', () => {
  it.each([
    ['requirements.txt', `numpy\n\n${HUGE}\n`, 3],
    ['environment.yml', `name: x\nchannels: [conda-forge]\ndependencies:\n  - numpy\n  - "${HUGE}"\n`, 5],
    ['spec-list.txt', `# specs\nnumpy # why\n  ${'x'.repeat(5000)}  \n`, 3],
  ])('%s names the file, the line and the limit', (filename, content, line) => {
    const error = thrown(() => prepareRequest({ files: [{ filename, content }] }, options)) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.code).toBe('CR_ERR_INPUT_SPEC');
    expect(error.message).toMatch(new RegExp(`^${filename.replace('.', '\\.')}, line ${line}: Cannot parse match spec "`));
    expect(error.message).toContain('longer than 4096 characters (the limit)');
    expect(error.message.length).toBeLessThan(400);
    expect((error.cause as InvalidMatchSpecError).limit).toBe(MAX_SPEC_LENGTH);
  });

  it('environment.yml: each spec is placed at its own line in one pass (20,000 items)', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => `p${i}`);
    const parsed = parseInputFile('environment.yml', `dependencies:\n${items.map((s) => `  - ${s}`).join('\n')}\n  - "p7"\n`);
    expect(parsed.specs).toHaveLength(20_001);
    expect(parsed.specs[0]).toEqual({ spec: 'p0', line: 2 });
    expect(parsed.specs[19_999]).toEqual({ spec: 'p19999', line: 20_001 });
    // A repeated item points at its first line, as before.
    expect(parsed.specs[20_000]).toEqual({ spec: 'p7', line: 9 });
  });

  it('environment.yml over 256 KiB is refused before YAML parsing, naming the file and the limit', () => {
    const content = `dependencies:\n${Array.from({ length: 40_000 }, (_, i) => `  - p${i}`).join('\n')}\n`;
    const error = thrown(() => parseInputFile('environment.yml', content)) as UsageError & { limit?: number };
    expect(error).toBeInstanceOf(UsageError);
    expect(error.code).toBe('CR_ERR_INPUT_FILE_TOO_LARGE');
    expect(error.limit).toBe(256 * 1024);
    expect(error.message).toBe('Cannot read environment file "environment.yml": it is larger than 256 KiB (the limit)');
  });
});

describe('the number of specs in a request', () => {
  it(`is at most ${MAX_REQUEST_SPECS} distinct specs unless the caller sets its own limit`, () => {
    const specs = Array.from({ length: MAX_REQUEST_SPECS + 1 }, (_, i) => `p${i}`);
    const error = thrown(() => prepareRequest({ specs }, options)) as TooManySpecsError;
    expect(error).toBeInstanceOf(TooManySpecsError);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.code).toBe('CR_ERR_INPUT_TOO_MANY_SPECS');
    expect(error).toMatchObject({ count: MAX_REQUEST_SPECS + 1, limit: MAX_REQUEST_SPECS });
    expect(error.message).toBe(
      `Cannot resolve: the request has ${MAX_REQUEST_SPECS + 1} specs, more than the limit of ${MAX_REQUEST_SPECS}`,
    );
    expect(prepareRequest({ specs: specs.slice(1) }, options).specs).toHaveLength(MAX_REQUEST_SPECS);

    const file = { filename: 'big.txt', content: specs.slice(0, 6).join('\n') };
    const small = thrown(() => prepareRequest({ files: [file], specs: ['numpy'] }, { ...options, maxSpecs: 5 })) as TooManySpecsError;
    expect(small).toMatchObject({ count: 7, limit: 5 });
    expect(small.message).toBe('Cannot resolve: the request has 7 specs (with those of "big.txt"), more than the limit of 5');
  });

  it('counts distinct specs only, before parsing any', () => {
    const repeated = { filename: 'r.txt', content: 'python\n'.repeat(MAX_REQUEST_SPECS * 2) };
    expect(prepareRequest({ files: [repeated], specs: [' python '] }, options).specs.map((s) => s.source)).toEqual(['python']);
    // Over the limit and every one of them bad: the count is what is reported.
    const bad = { filename: 'bad.txt', content: Array.from({ length: 11 }, (_, i) => `p${i} >=<1`).join('\n') };
    expect(thrown(() => prepareRequest({ files: [bad] }, { ...options, maxSpecs: 10 }))).toBeInstanceOf(TooManySpecsError);
    expect((thrown(() => prepareRequest({ files: [bad] }, { ...options, maxSpecs: 11 })) as UsageError).message).toMatch(
      /^bad\.txt, line 1: /,
    );
  });
});

describe('the command line', () => {
  it('-f with an over-long spec exits 2 naming the file, the line and the limit', async () => {
    const dir = tempDir();
    const file = join(dir, 'requirements.txt');
    writeFileSync(file, `python\n${HUGE}\n`);
    const result = await runCli(['-c', DEMO, '-p', 'linux-64', '-f', file, '-q']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /requirements\.txt, line 2: Cannot parse match spec "python >=0,>=1,[^\n]*: longer than 4096 characters \(the limit\) at position 4096\n$/,
    );
    expect(result.stderr.length).toBeLessThan(600);
  });
});
