/**
 * `conda-resolve tree|why NAME|why-not SPEC [resolve args]`: solve as `resolve` does (the same
 * flags, minus --format/-o), then answer from the solved environment (src/inspect/). Text for a
 * person by default, `--json` for programs.
 *
 * Exit status: 0 answered; 1 a platform did not solve (tree, why), the package is not in the
 * environment (why), or the answer could not be worked out (why-not); 2 a usage error.
 */
import { parseArgs } from 'node:util';
import { RepodataStore, defaultCacheDir } from '../../repodata/store.js';
import { hostSubdir } from '../../vocabulary/platform.js';
import { exitStatusOf, userMessage } from '../errors.js';
import { joinPlatformTexts, parseExtraSpec, treeOf, whyNot, whyOf, withAddedSpec } from '../inspect/index.js';
import { prepareRequest, type InputFile, type PreparedRequest } from '../request.js';
import { resolvePrepared, type Resolution } from '../resolve.js';
import { InProcessSolver } from '../solving/platform-runner.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, writeError, writeWarning, type CliIO } from './io.js';
import { OPTIONS as RESOLVE_OPTIONS, readInputFile } from './resolve-command.js';

export type InspectKind = 'tree' | 'why' | 'why-not';

const { format: _format, output: _output, ...SHARED } = RESOLVE_OPTIONS;
const OPTIONS = {
  ...SHARED,
  depth: { type: 'string' },
  invert: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const DEFAULT_TIMEOUT_S = 300;

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
            is, what would change and which preference made the solver choose the current one
`;

export async function inspectCommand(kind: InspectKind, argv: readonly string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    writeError(io, `${(error as Error).message.replace(/\. To specify a positional argument.*$/s, '')}; see conda-resolve ${kind} --help`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(INSPECT_USAGE);
    return EXIT_OK;
  }
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
      writeError(io, kind === 'why' ? 'give the package to explain: conda-resolve why NAME [SPEC...]' : "give the spec to try: conda-resolve why-not 'numpy>=2' [SPEC...]");
      return EXIT_USAGE;
    }
  }
  let timeoutMs = DEFAULT_TIMEOUT_S * 1000;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      writeError(io, `--timeout must be a positive number of seconds, not "${values.timeout}"`);
      return EXIT_USAGE;
    }
    timeoutMs = seconds * 1000;
  }

  try {
    const extra = kind === 'why-not' ? parseExtraSpec(subject!) : undefined;
    const files: InputFile[] = await Promise.all((values.file ?? []).map((path) => readInputFile(path, io.cwd)));
    const request = prepareRequest(
      {
        specs,
        files,
        channels: values.channel,
        platforms: [...(values.platform ?? []), ...(values.subdir ?? [])],
        channelPriority: values['channel-priority'],
        virtualPackages: values['virtual-package'],
        excludeNewer: values['exclude-newer'],
      },
      { env: io.env, cwd: io.cwd, hostPlatform: hostSubdir(process.platform, process.arch), defaultChannels: ['conda-forge'] },
    );
    for (const warning of request.warnings) writeWarning(io, warning);
    const store = new RepodataStore({
      cacheDir: values['cache-dir'] ?? defaultCacheDir(io.env),
      offline: values.offline === true,
      refresh: values.refresh === true,
      indexBytes: 'positional',
    });
    const solver = new InProcessSolver();
    const run = (prepared: PreparedRequest): Promise<Resolution> => resolvePrepared(prepared, { store, solver, env: io.env }, { timeoutMs });
    try {
      const resolution = await run(request);
      if (kind === 'tree') {
        const trees = treeOf(resolution, { depth, invert: values.invert });
        write(io, values.json === true, trees.map(({ text: _text, ...rest }) => rest), joinPlatformTexts(trees));
        const absent = values.invert !== undefined && trees.some((t) => t.error === null && t.roots.length === 0);
        return trees.some((t) => t.error !== null) || absent ? EXIT_FAILED : EXIT_OK;
      }
      if (kind === 'why') {
        const answers = whyOf(resolution, subject!);
        write(io, values.json === true, answers.map(({ text: _text, ...rest }) => rest), joinPlatformTexts(answers));
        return answers.some((a) => a.error !== null || a.answer?.version === null) ? EXIT_FAILED : EXIT_OK;
      }
      const answers = whyNot(resolution, await run(withAddedSpec(request, extra!)), extra!);
      write(io, values.json === true, answers, joinPlatformTexts(answers.map((a) => ({ platform: a.platform, text: a.text, error: null }))));
      return answers.some((a) => a.kind === 'failed') ? EXIT_FAILED : EXIT_OK;
    } finally {
      await store.close();
    }
  } catch (error) {
    writeError(io, userMessage(error));
    return exitStatusOf(error);
  }
}

function write(io: CliIO, json: boolean, data: unknown, text: string): void {
  io.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);
}
