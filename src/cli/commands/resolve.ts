/**
 * `conda-resolve [resolve] ...`: parse flags, read files, resolve every platform, print native JSON
 * or an exporter's text to standard output (or `-o FILE`).
 */
import type { PypiIndexClient } from '../../../repodata/pypi/client.js';
import type { PreparedPypi } from '../../pypi/request.js';
import { readPypiMappings } from '../resolve/pypi-mapping-file.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { RepodataStore, defaultCacheDir } from '../../../repodata/store.js';
import { exitStatusOf, InputFileError, userMessage } from '../../errors.js';
import type { ExporterRegistry } from '../../exporters/index.js';
import type { Exporter } from '../../exporters/types.js';
import { InProcessSolver, ThisThreadThenPoolSolver } from '../../solving/platform-runner.js';
import { prepareRequest, type InputFile, type PreparedRequest } from '../../request.js';
import { resolvePrepared, toNative, type Resolution } from '../../resolve.js';
import { isWorkspaceRequest } from '../../lock/workspace.js';
import { workspaceCommand } from '../resolve/workspace.js';
import { SolvePool } from '../../solving/solve-pool.js';
import type { PlatformSolver } from '../../solving/types.js';
import { parseByteSize } from '../../byte-size.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, writeError, writeNote, writeWarning, type CliIO } from '../io.js';
import { USAGE } from '../usage.js';
import { writeFileAtomic } from '../resolve/write-file.js';
import { createRunReport, type RunReport, type SummaryFacts } from '../resolve/run-report.js';
import type { CommandArgs } from '../args.js';
import type { RESOLVE_OPTIONS } from '../command-table.js';
import { checkResolveArgs, verbosity } from '../resolve/resolve-habits.js';
import type { UserSettings } from '../resolve/user-settings.js';
import { prepareOptionsFor, requestFromFlags, settingsForFlags } from '../resolve/request-flags.js';
import { exporterForOutput } from '../resolve/output-format.js';
import { leftOutWarnings, renderResolution } from '../../lock/answer.js';
import { chosenPixiLockFormat, isPixiLockFormat } from '../../lock/lock-version.js';
import { lockExportEnvironments, lockFormatOf, readLockFile } from '../../locks/lock-file.js';
import { TOOL_NAME, TOOL_VERSION } from '../../version.js';
import { boundedAnswer } from '../../answer-size.js';
import { checkCommand, lockDiffText, requireLock } from '../resolve/lock-check.js';

const DEFAULT_TIMEOUT_S = 300;
/** The largest cap on one subdir's decoded repodata a user may set (what one file read can hold). */
const MAX_REPODATA_SIZE_LIMIT = 2 * 1024 ** 3;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

export const usage = USAGE;

export async function run({ values, positionals }: CommandArgs<typeof RESOLVE_OPTIONS>, io: CliIO): Promise<number> {
  const habitError = checkResolveArgs(values, positionals);
  if (habitError !== undefined) {
    writeError(io, habitError);
    return EXIT_USAGE;
  }
  const limits = runLimits(values, io);
  if (limits === undefined) return EXIT_USAGE;
  const { timeoutMs, maxRepodataBytes } = limits;

  const report = await createRunReport(io, {
    quiet: values.quiet === true || values['no-progress'] === true,
    verbosity: verbosity(values),
    name: values.name,
  });
  try {
    // The exporter, when one is wanted, is settled before any work: an unknown name is a usage error.
    let exporter: Exporter | undefined;
    let registry: ExporterRegistry | undefined;
    // Exporters (and plugin discovery) are loaded only when a format may be wanted.
    const exporters =
      values.format !== undefined || values.output !== undefined || values.lock !== undefined
        ? await import('../../exporters/index.js')
        : undefined;
    const formatName = values.format;
    if (exporters) {
      const loaded = await exporters.loadRegistry({ env: io.env, cwd: io.cwd });
      registry = loaded.registry;
      for (const warning of loaded.warnings) writeWarning(io, warning);
      for (const plugin of loaded.plugins) writeNote(io, exporters.pluginLoadedLine(plugin));
      if (formatName !== undefined) exporter = registry.get(formatName);
      // --json writes native JSON into -o FILE whatever its name (with --diff, --json is about the changes).
      else if (values.output !== undefined && (!values.json || values.diff))
        exporter = exporterForOutput(exporters, registry, values.output, io.cwd);
    }

    const files: InputFile[] = await Promise.all((values.file ?? []).map((path) => readInputFile(path, io.cwd)));
    const user = settingsForFlags(io, values, files.length > 0);
    const lock = values.lock !== undefined ? await readInputFile(values.lock, io.cwd) : undefined;
    report.step('loaded the exporters, input files and configuration');
    const condaPypiMap = await readPypiMappings(values['pypi-mapping'], io.cwd);
    const input = requestFromFlags(values, user, { specs: positionals, files, lock, update: values.update, condaPypiMap });
    const prepareOptions = prepareOptionsFor(io, user);
    // `-o pixi.lock` without --format: the version of the lock there, of --lock or of the input lock, else by the input.
    if (exporter && values.format === undefined && isPixiLockFormat(exporter.name)) {
      exporter = registry!.get(chosenPixiLockFormat({ existing: await existingFile(values.output, io.cwd), lock, files }));
    }
    // A whole lock in a pixi.lock format (no -e, nothing else asked): every environment, no solve.
    const wholeLock =
      exporter &&
      isPixiLockFormat(exporter.name) &&
      files.length === 1 &&
      positionals.length === 0 &&
      values.environment === undefined &&
      lock === undefined &&
      !values.check &&
      !values.diff &&
      (values.channel ?? []).length === 0
        ? lockFormatOf(files[0]!.filename, files[0]!.content)
        : undefined;
    if (exporter && wholeLock) {
      const document = readLockFile(files[0]!.filename, files[0]!.content, wholeLock);
      const environments = lockExportEnvironments(document, { platforms: input.platforms });
      const text = boundedAnswer(
        () => registry!.render(exporter!.name, environments, { toolName: TOOL_NAME, toolVersion: TOOL_VERSION, now: exportTime(io.env) }),
        `${exporter.name} text`,
      );
      await emit(io, values.output, text, values['dry-run']);
      return EXIT_OK;
    }
    // A whole pixi workspace written to one pixi.lock (`pixi lock`): every environment.
    if (isWorkspaceRequest(input, values.format !== undefined || values.output !== undefined ? exporter?.name : undefined)) {
      const format = exporter && isPixiLockFormat(exporter.name) ? exporter.name : chosenPixiLockFormat({ lock, files });
      return await workspaceCommand(input, prepareOptions, {
        format,
        values,
        io,
        registry: registry!,
        run: (requests) => runResolves(requests, values, io, user, report, timeoutMs, maxRepodataBytes),
        emit: (output, text) => emit(io, output, text, values['dry-run']),
        now: exportTime(io.env),
      });
    }
    const request = prepareRequest(input, prepareOptions);
    for (const warning of [...request.warnings, ...user.checkRequest(request, io.cwd)]) writeWarning(io, warning);
    report.step('prepared the request');
    if (values.check) return checkCommand(request, io, values.quiet === true);
    if (values.diff) requireLock(request, '--diff');
    // `--lock FILE` alone writes the lock's own format (lock in, lock out).
    if (request.previousLock && !exporter && values.output === undefined) exporter = registry!.get(request.previousLock.format);

    const [resolution] = await runResolves([request], values, io, user, report, timeoutMs, maxRepodataBytes);
    if (!resolution) throw new Error('no resolution');

    const failed = resolution.platforms.filter((p) => p.error !== null);
    // --diff: the changes against the lock on standard output; the result only into -o FILE.
    const deliver = async (text: string): Promise<void> => {
      if (!values.diff || values.output !== undefined) await emit(io, values.output, text, values['dry-run']);
      if (values.diff) await emit(io, undefined, lockDiffText(request, resolution, values.json === true));
    };
    if (!exporter) {
      const text = `${boundedAnswer(() => JSON.stringify(toNative(resolution), null, 2), 'native JSON result')}\n`;
      await deliver(text);
      report.step('wrote the result');
      for (const p of failed) writeError(io, `${p.platform}: ${p.error}`);
      if (failed.length === 0) report.summary(summaryFacts(resolution, 'native JSON', values.output, values['dry-run'], text));
      return failed.length > 0 ? EXIT_FAILED : EXIT_OK;
    }
    if (failed.length > 0) {
      for (const p of failed) writeError(io, `${p.platform}: ${p.error}`);
      writeError(io, `no ${exporter.name} output: ${failed.length === 1 ? 'a platform' : 'platforms'} failed to solve`);
      return EXIT_FAILED;
    }
    let text: string;
    try {
      text = renderResolution(registry!, exporter.name, resolution, { environment: values.environment, now: exportTime(io.env) });
    } catch (error) {
      writeError(io, userMessage(error));
      return EXIT_FAILED;
    }
    for (const warning of leftOutWarnings(resolution, exporter.name)) writeWarning(io, warning);
    report.step(`rendered ${exporter.name}`);
    await deliver(text);
    report.step('wrote the result');
    report.summary(summaryFacts(resolution, exporter.name, values.output, values['dry-run'], text));
    return EXIT_OK;
  } catch (error) {
    report.stop();
    // The registry says which errors are usage errors (exit 2); anything else failed (exit 1).
    writeError(io, userMessage(error));
    return exitStatusOf(error);
  }
}

/** The file at `-o PATH`, when there is one to read (its lock version is kept). */
async function existingFile(output: string | undefined, cwd: string): Promise<{ filename: string; content: string } | undefined> {
  if (output === undefined || output === '-') return undefined;
  try {
    return { filename: output, content: await readFile(resolve(cwd, output), 'utf8') };
  } catch {
    return undefined;
  }
}

/** Resolves each request in turn with one repodata store and one solver pool. */
export async function runResolves(
  requests: readonly PreparedRequest[],
  values: { readonly quiet?: boolean; readonly 'cache-dir'?: string; readonly offline?: boolean; readonly refresh?: boolean },
  io: CliIO,
  user: UserSettings,
  report: RunReport,
  timeoutMs: number,
  maxRepodataBytes: number | undefined,
): Promise<Resolution[]> {
  const platforms = [...new Set(requests.flatMap((r) => r.platforms))];
  report.begin(platforms);
  // One platform solves here (a worker would only add its start-up time); several solve here
  // one after another until a solve proves heavy, then on worker threads as well.
  const workers = Math.min(Math.max(...requests.map((r) => r.platforms.length)), availableParallelism()) - 1;
  const pool = workers > 0 ? new SolvePool({ size: workers }) : undefined;
  const solver: PlatformSolver = pool ? new ThisThreadThenPoolSolver(pool) : new InProcessSolver();
  const net = await user.network(requests.flatMap((r) => r.channels));
  const store = new RepodataStore({
    cacheDir: values['cache-dir'] ?? defaultCacheDir(io.env),
    offline: user.offline,
    ...net,
    refresh: values.refresh === true,
    // This thread reads only the records it needs; an index handed to a worker is read whole then.
    indexBytes: 'positional',
    onProgress: report.onLoad,
    maxRepodataBytes,
  });
  try {
    const resolutions: Resolution[] = [];
    for (const request of requests) {
      const options = { timeoutMs, onPlatform: report.onPlatform, unrequestedChannels: user.unrequestedChannels(io.cwd) };
      // The index client (and the HTTP stack it brings) is loaded only for a request with PyPI requirements.
      const PypiClient = request.pypi ? (await import('../../../repodata/pypi/client.js')).PypiIndexClient : undefined;
      const pypiClient = (pypi: PreparedPypi): PypiIndexClient =>
        new PypiClient!({
          indexUrl: pypi.indexUrl,
          extraIndexUrls: pypi.extraIndexUrls,
          findLinks: pypi.findLinks,
          strategy: pypi.indexStrategy,
          cacheDir: values['cache-dir'] ?? defaultCacheDir(io.env),
          offline: user.offline,
          refresh: values.refresh === true,
          // Discovery asks a whole level at once (40 roots are 40 pages, then 40 metadata files).
          concurrency: 64,
          ...net,
        });
      resolutions.push(await resolvePrepared(request, { store, solver, env: io.env, pypiClient }, options));
    }
    report.step('loaded the repodata and solved');
    return resolutions;
  } finally {
    report.stop();
    await pool?.close();
    await store.close();
    await net.dispatcher?.close();
  }
}

/**
 * The time limit and the repodata size cap of a run, from the flags (and the size's variable); on a
 * bad value the usage error is written and the answer is undefined. `resolve`, `audit`, `tree`,
 * `why` and `why-not` read them alike.
 */
export function runLimits(
  values: Parameters<typeof limitsOf>[0],
  io: CliIO,
): { timeoutMs: number; maxRepodataBytes: number | undefined } | undefined {
  const limits = limitsOf(values, io);
  if (typeof limits !== 'string') return limits;
  writeError(io, limits);
  return undefined;
}

function limitsOf(
  values: {
    readonly offline?: boolean | undefined;
    readonly refresh?: boolean | undefined;
    readonly timeout?: string | undefined;
    readonly 'max-repodata-size'?: string | undefined;
  },
  io: CliIO,
): { timeoutMs: number; maxRepodataBytes: number | undefined } | string {
  if (values.offline && values.refresh) return '--offline and --refresh cannot be used together';
  let timeoutMs = DEFAULT_TIMEOUT_S * 1000;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) return `--timeout must be a positive number of seconds, not "${values.timeout}"`;
    timeoutMs = seconds * 1000;
  }
  const sizeText = values['max-repodata-size'] ?? nonEmpty(io.env.CONDA_RESOLVE_MAX_REPODATA_SIZE);
  let maxRepodataBytes: number | undefined;
  if (sizeText !== undefined) {
    const from = values['max-repodata-size'] !== undefined ? '--max-repodata-size' : 'CONDA_RESOLVE_MAX_REPODATA_SIZE';
    maxRepodataBytes = parseByteSize(sizeText) ?? undefined;
    if (maxRepodataBytes === undefined || maxRepodataBytes < 1024 * 1024 || maxRepodataBytes > MAX_REPODATA_SIZE_LIMIT) {
      return `${from} must be a size from 1MiB to 2GiB such as 512MiB or 2GiB, not "${sizeText}"`;
    }
  }
  return { timeoutMs, maxRepodataBytes };
}

/** `created_at` in lock files: now, or SOURCE_DATE_EPOCH (seconds) for reproducible output. */
export function exportTime(env: CliIO['env']): Date {
  const epoch = env.SOURCE_DATE_EPOCH;
  return epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
}

export async function readInputFile(path: string, cwd: string): Promise<InputFile> {
  const { resolve } = await import('node:path');
  try {
    return { filename: path, content: await readFile(resolve(cwd, path), 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (code ?? 'unreadable');
    throw new InputFileError('CR_ERR_INPUT_FILE_UNREADABLE', path, `Cannot read file "${path}": ${why}`);
  }
}

function summaryFacts(
  resolution: Resolution,
  format: string,
  output: string | undefined,
  dryRun: boolean | undefined,
  text: string,
): SummaryFacts {
  const platforms = resolution.platforms.map((p) => ({ platform: p.platform, packages: p.records?.length ?? 0 }));
  return { platforms, format, output, dryRun: dryRun === true, bytes: Buffer.byteLength(text) };
}

export async function emit(io: CliIO, output: string | undefined, text: string, dryRun?: boolean): Promise<void> {
  // --dry-run: the file is not written (nothing else is ever installed or changed).
  if (dryRun && output !== undefined) return;
  if (output === undefined) {
    await new Promise<void>((resolve, reject) => io.stdout.write(text, (error) => (error ? reject(error) : resolve())));
    return;
  }
  const { resolve } = await import('node:path');
  // Failures are an OutputFileError naming the file as the user gave it; `-o /dev/stdout` goes to
  // io.stdout as if there were no -o.
  await writeFileAtomic(resolve(io.cwd, output), text, { name: output, stdout: io.stdout, stderr: io.stderr });
}
