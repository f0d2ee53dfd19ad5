/**
 * Real lock files from public repositories (issue 37, item 5): every one reads, transcodes to the
 * other format and back without losing a conda or PyPI package (packages built from source are
 * references only a pixi.lock holds: a conda-lock.yml leaves them out and the CLI says so), and a
 * pixi.lock v7 read and written again (all its environments, `--format rattler-lock-v7`, no `-e`)
 * is byte-identical.
 *
 * The locks come from `fixtures/locks/wild/` (small ones, kept in the repository; SOURCES.md there
 * names each one's repository, path and commit), from `$CONDA_RESOLVE_WILD_LOCKS` (a folder of
 * more, e.g. large locks kept aside), and from `../shared/locks/wild/` when it exists. A file is a
 * pixi.lock when its name ends in `.lock`, a conda-lock.yml when it ends in `conda-lock.yml`;
 * either may be gzipped (`.gz`). What each kept is checked against `lock-contents.ts`, which reads
 * the files with js-yaml alone.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BUILTIN_EXPORTERS } from '../../../src/exporters/index.js';
import { runCli, tempDir } from '../../cli/run-cli.js';
import { PROJECT_ROOT, SHARED_DIR } from '../../helpers/shared.js';
import { describeKeys, lockContents, plain, withoutSources, type ReadContents } from './lock-contents.js';

const FOLDERS = [
  join(PROJECT_ROOT, 'fixtures', 'locks', 'wild'),
  ...(process.env.CONDA_RESOLVE_WILD_LOCKS ? [resolve(process.env.CONDA_RESOLVE_WILD_LOCKS)] : []),
  join(SHARED_DIR, 'locks', 'wild'),
];

interface WildLock {
  readonly name: string;
  readonly text: string;
  readonly read: ReadContents;
}

function wildLocks(folder: string): WildLock[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => /(\.lock|conda-lock\.ya?ml)(\.gz)?$/.test(name))
    .sort()
    .map((name) => {
      const bytes = readFileSync(join(folder, name));
      const text = (name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
      return { name, text, read: lockContents(text) };
    });
}

/** The round trips write pixi.lock v7; without its writer there is nothing to check yet. */
const HAVE_V7 = BUILTIN_EXPORTERS.some((exporter) => exporter.name === 'rattler-lock-v7');

const cacheDir = tempDir('cr-wild-cache-');
const cli = (args: readonly string[], cwd: string) => runCli(['-q', '--offline', ...args], { cwd, cacheDir });

/** `packages` of one environment as the other format got it, checked against the original. */
function expectSame(got: string, want: ReadonlyMap<string, ReadonlySet<string>> | undefined, what: string): void {
  const back = lockContents(got).contents;
  // Both sides as plain data, so that a failure lists the packages lost or gained.
  expect(plain(back.get('default')), what).toEqual(plain(want));
}

for (const folder of FOLDERS) {
  const locks = wildLocks(folder);
  const title = `real locks in ${folder.startsWith(PROJECT_ROOT) ? folder.slice(PROJECT_ROOT.length + 1) : folder}`;
  if (locks.length === 0 || !HAVE_V7) {
    describe.skip(`${title} (skipped: ${HAVE_V7 ? 'none there' : 'no rattler-lock-v7 exporter'})`, () => {
      it.skip('has nothing to check', () => {});
    });
    continue;
  }

  describe(title, () => {
    for (const lock of locks) {
      const dir = tempDir('cr-wild-');
      const isPixi = /\.lock(\.gz)?$/.test(lock.name);
      const input = isPixi ? 'pixi.lock' : 'conda-lock.yml';
      writeFileSync(join(dir, input), lock.text);

      describe(`${lock.name} (${isPixi ? `pixi.lock v${lock.read.version}` : 'conda-lock.yml'})`, () => {
        for (const [environment, platforms] of lock.read.contents) {
          const all = [...platforms.values()].flatMap((keys) => [...keys]);
          if (all.length === 0) continue; // nothing to transcode; a conda-lock.yml cannot hold it
          const there = isPixi ? 'conda-lock.yml' : 'pixi.lock';
          it(`${environment}: ${input} -> ${there} -> ${input} keeps ${describeKeys(all)}`, async () => {
            const envArgs = isPixi ? ['-e', environment] : [];
            const out = await cli(['-f', input, ...envArgs, '--format', isPixi ? 'conda-lock-v1' : 'rattler-lock-v7'], dir);
            if (isPixi && lock.read.version === 3 && out.code !== 0) {
              // Issue 37 allows a v3 lock to be refused, with the pixi release that upgrades it.
              expect(out.stderr).toMatch(/version 3.*pixi \d/s);
              return;
            }
            // Packages built from source are references only a pixi.lock holds: left out of a
            // conda-lock.yml, saying so; every other package must come through.
            const sources = all.some((key) => key.startsWith('source '));
            const complaints = out.stderr
              .split('\n')
              .filter((line) => /left out|error/i.test(line) && !(sources && /source or path-based/.test(line)));
            expect(complaints).toEqual([]);
            expect(out.code).toBe(0);
            const kept = isPixi ? withoutSources(platforms) : platforms;
            expectSame(out.stdout, kept, `${input} -> ${there}`);

            const other = join(dir, 'back');
            mkdirSync(other, { recursive: true });
            writeFileSync(join(other, there), out.stdout);
            const back = await cli(['-f', there, '--format', isPixi ? 'rattler-lock-v7' : 'conda-lock-v1'], other);
            expect(back.code).toBe(0);
            expectSame(back.stdout, kept, `${there} -> ${input}`);
          });
        }

        if (isPixi && lock.read.version === 7) {
          it('read and written again with --format rattler-lock-v7 (every environment) is byte-identical', async () => {
            const out = await cli(['-f', input, '--format', 'rattler-lock-v7'], dir);
            expect(out.code).toBe(0);
            expect(out.stdout).toBe(lock.text);
          });
        }
      });
    }
  });
}
