/**
 * `conda-resolve tree|why NAME|why-not SPEC [resolve args]`: solve as `resolve` does (the same
 * flags, minus --format/-o), then answer from the solved environment (src/inspect/). Text for a
 * person by default, `--json` for programs.
 *
 * Exit status: 0 answered; 1 a platform did not solve (tree, why), the package is not in the
 * environment (why), or the answer could not be worked out (why-not); 2 a usage error.
 */
import { readPypiMappings } from '../resolve/pypi-mapping-file.js';
import { exitStatusOf, userMessage, UsageError } from '../../errors.js';
import { joinPlatformTexts, parseExtraSpec, treeOf, whyNot, whyOf, withAddedSpec } from '../../inspect/index.js';
import { prepareRequest, type InputFile } from '../../request.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, writeError, writeReadable, writeWarning, type CliIO } from '../io.js';
import type { CommandArgs } from '../args.js';
import type { INSPECT_OPTIONS } from '../command-table.js';
import { readInputFile, runLimits, runResolves } from './resolve.js';
import { createRunReport } from '../resolve/run-report.js';
import { verbosity } from '../resolve/resolve-habits.js';
import { prepareOptionsFor, requestFromFlags, settingsForFlags } from '../resolve/request-flags.js';

export type InspectKind = 'tree' | 'why' | 'why-not';

export const INSPECT_USAGE = `usage: conda-resolve tree [SPEC...] [--depth N] [--invert NAME] [--json] [resolve options]
       conda-resolve why NAME [SPEC...] [--json] [resolve options]
       conda-resolve why-not SPEC [SPEC...] [--json] [resolve options]

Solve the request as \`conda-resolve resolve\` does (-c, -p, -f, --channel-priority, ...), then:
  tree      the dependency tree from the requested specs; each package is expanded once, (*)
            marks a repeat; --depth N cuts it N levels below the requested packages; --invert
            NAME shows every path from NAME up to the requested specs
  why       every path from a requested spec to NAME, shortest first, with the spec that pulled
            each step
  why-not   adds SPEC to the request and solves again: if there is no solution, why; if there
            is, what would change and which preference made the solver choose the current one;
            'pypi:REQUIREMENT' (PEP 508, e.g. 'pypi:flask<3') tries a PyPI requirement
`;

export const usage = INSPECT_USAGE;

export async function run({ values, positionals }: CommandArgs<typeof INSPECT_OPTIONS>, io: CliIO, name: string): Promise<number> {
  const kind = name as InspectKind;
  const depth = values.depth === undefined ? undefined : Number(values.depth);
  if (depth !== undefined && (!Number.isInteger(depth) || depth < 0)) {
    writeError(io, `--depth must be a whole number of levels (0 or more), not "${values.depth}"`);
    return EXIT_USAGE;
  }
  if (kind !== 'tree' && (values.depth !== undefined || values.invert !== undefined)) {
    writeError(io, `--depth and --invert belong to conda-resolve tree, not ${kind}`);
    return EXIT_USAGE;
  }
  let subject: string | undefined;
  let specs = positionals;
  if (kind !== 'tree') {
    [subject, ...specs] = positionals;
    if (!subject) {
      writeError(
        io,
        kind === 'why'
          ? 'give the package to explain: conda-resolve why NAME [SPEC...]'
          : "give the spec to try: conda-resolve why-not 'numpy>=2' [SPEC...]",
      );
      return EXIT_USAGE;
    }
  }
  const limits = runLimits(values, io);
  if (limits === undefined) return EXIT_USAGE;
  const { timeoutMs, maxRepodataBytes } = limits;

  try {
    const extra = kind === 'why-not' ? parseExtraSpec(subject!) : undefined;
    const files: InputFile[] = await Promise.all((values.file ?? []).map((path) => readInputFile(path, io.cwd)));
    let lockFile = values.lock !== undefined ? await readInputFile(values.lock, io.cwd) : undefined;
    // `tree --lock pixi.lock` with nothing else asked: the lock is the environment (no solve).
    if (lockFile && kind !== 'why-not' && specs.length === 0 && files.length === 0) {
      files.push(lockFile);
      lockFile = undefined;
    }
    const user = settingsForFlags(io, values, files.length > 0);
    const condaPypiMap = await readPypiMappings(values['pypi-mapping'], io.cwd);
    const request = prepareRequest(
      requestFromFlags(values, user, { specs, files, lock: lockFile, condaPypiMap }),
      prepareOptionsFor(io, user),
    );
    if (extra && request.locked) {
      throw new UsageError(
        'CR_ERR_INPUT_OPTION',
        `why-not solves the request again with the spec, and a lock given with -f is only records: give the specs and the lock as --lock FILE SPEC...`,
      );
    }
    for (const warning of [...request.warnings, ...user.checkRequest(request, io.cwd)]) writeWarning(io, warning);
    const report = await createRunReport(io, {
      quiet: values.quiet === true || values['no-progress'] === true,
      verbosity: verbosity(values),
      name: undefined,
    });
    // why-not solves the request with and without the spec.
    const [resolution, withSpec] = await runResolves(
      extra ? [request, withAddedSpec(request, extra)] : [request],
      values,
      io,
      user,
      report,
      timeoutMs,
      maxRepodataBytes,
    );
    if (!resolution) throw new Error('no resolution');
    if (kind === 'tree') {
      const trees = treeOf(resolution, { depth, invert: values.invert });
      write(
        io,
        values.json === true,
        trees.map(({ text: _text, ...rest }) => rest),
        joinPlatformTexts(trees),
      );
      const absent = values.invert !== undefined && trees.some((t) => t.error === null && t.roots.length === 0);
      return trees.some((t) => t.error !== null) || absent ? EXIT_FAILED : EXIT_OK;
    }
    if (kind === 'why') {
      const answers = whyOf(resolution, subject!);
      write(
        io,
        values.json === true,
        answers.map(({ text: _text, ...rest }) => rest),
        joinPlatformTexts(answers),
      );
      return answers.some((a) => a.error !== null || a.answer?.version === null) ? EXIT_FAILED : EXIT_OK;
    }
    const answers = whyNot(resolution, withSpec!, extra!);
    write(io, values.json === true, answers, joinPlatformTexts(answers.map((a) => ({ platform: a.platform, text: a.text, error: null }))));
    return answers.some((a) => a.kind === 'failed') ? EXIT_FAILED : EXIT_OK;
  } catch (error) {
    writeError(io, userMessage(error));
    return exitStatusOf(error);
  }
}

function write(io: CliIO, json: boolean, data: unknown, text: string): void {
  if (json) io.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  else writeReadable(io, `${text}\n`);
}
