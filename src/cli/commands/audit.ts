/**
 * `conda-resolve audit [SPEC...] [resolve options] (--db PATH | --osv-api URL)`: solve as `tree`
 * does (or read the lock given with -f), then check every package of every platform against an
 * OSV database. A table by default, `--json`, or `--format sarif` for code scanning; `-o FILE`
 * writes it atomically.
 *
 * Exit status: 0 audited (whatever was found, unless `--fail-on`); 1 a finding at or above the
 * `--fail-on` level, a platform that did not solve, or a database that cannot be read; 2 a usage error.
 */
import { relative, resolve as resolvePath, sep } from 'node:path';
import { readFile } from 'node:fs/promises';
import { audit, failsAt, parseSeverity, renderAuditTable, renderSarif, type AuditEnvironment, type Severity } from '../../audit/index.js';
import { exitStatusOf, userMessage, UsageError } from '../../errors.js';
import { defaultCacheDir } from '../../../repodata/cache-dir.js';
import {
  isCondaForge,
  parseMappingFile,
  pypiMapping,
  PypiMappingError,
  type DefaultMapping,
  type UserMapping,
} from '../../pypi-mapping/index.js';
import { DEFAULT_PYPI_MAPPING_URL, loadRemoteMapping, PYPI_MAPPING_URL_ENV } from '../../pypi-mapping/remote.js';
import { prepareRequest, type InputFile } from '../../request.js';
import { exportEnvironments } from '../../resolve.js';
import { TOOL_NAME, TOOL_VERSION } from '../../version.js';
import type { CommandArgs } from '../args.js';
import type { AUDIT_OPTIONS } from '../command-table.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, writeError, writeWarning, type CliIO } from '../io.js';
import { readInputFile, runLimits, runResolves } from './resolve.js';
import { prepareOptionsFor, requestFromFlags, settingsForFlags } from '../resolve/request-flags.js';
import { verbosity } from '../resolve/resolve-habits.js';
import type { UserSettings } from '../resolve/user-settings.js';
import { createRunReport } from '../resolve/run-report.js';
import { writeFileAtomic } from '../resolve/write-file.js';

export const AUDIT_USAGE = `usage: conda-resolve audit [SPEC...] [resolve options] (--db PATH | --osv-api URL)
       conda-resolve audit -f pixi.lock|conda-lock.yml --db PATH

Check every package of every platform against known vulnerabilities (OSV). Solve the request as
\`conda-resolve resolve\` does (-c, -p, -f, --channel-priority, ...), or read the lock given with -f.
PyPI packages are checked as themselves; conda packages under the PyPI names their channel's
mapping gives them (conda-forge's is prefix-dev/parselmouth's, fetched and cached as pixi does;
with --offline only a cached copy). OSV has no conda ecosystem: packages nothing can check are
listed as not covered.

      --db PATH              OSV's all.zip (osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip)
                             or a folder of OSV JSON files; configuration: osv_db
      --osv-api URL          an OSV-compatible API instead (https://api.osv.dev); configuration: osv_api
      --pypi-mapping [CHANNEL=]FILE
                             conda name -> PyPI name(s) JSON (pixi's conda-pypi-map or parselmouth's
                             format) for CHANNEL (default: every channel of the request); repeatable;
                             configuration: pypi_mappings
      --pypi-mapping-url URL where to fetch conda-forge's mapping (parselmouth's compressed_mapping.json
                             or a copy of it); variable: CONDA_RESOLVE_PYPI_MAPPING_URL
      --format FORMAT        table (default), json or sarif (SARIF 2.1.0, for code scanning)
      --json                 the same as --format json
  -o, --output FILE          write the report to FILE (atomically) instead of standard output
      --fail-on LEVEL        exit 1 when a finding is at LEVEL or above: LOW, MODERATE, HIGH, CRITICAL
`;

const FORMATS = ['table', 'json', 'sarif'] as const;

export const usage = AUDIT_USAGE;

export async function run({ values, positionals: specs }: CommandArgs<typeof AUDIT_OPTIONS>, io: CliIO): Promise<number> {
  const format = values.json ? 'json' : (values.format ?? 'table');
  if (!(FORMATS as readonly string[]).includes(format)) {
    writeError(io, `--format must be table, json or sarif, not "${format}"`);
    return EXIT_USAGE;
  }
  if (values.json && values.format !== undefined && values.format !== 'json') {
    writeError(io, `--json and --format ${values.format} do not go together`);
    return EXIT_USAGE;
  }
  let failOn: Severity | undefined;
  if (values['fail-on'] !== undefined) {
    failOn = parseSeverity(values['fail-on']);
    if (!failOn) {
      writeError(io, `--fail-on must be LOW, MODERATE, HIGH or CRITICAL, not "${values['fail-on']}"`);
      return EXIT_USAGE;
    }
  }
  const limits = runLimits(values, io);
  if (limits === undefined) return EXIT_USAGE;
  try {
    const files: InputFile[] = await Promise.all((values.file ?? []).map((path) => readInputFile(path, io.cwd)));
    let lockFile = values.lock !== undefined ? await readInputFile(values.lock, io.cwd) : undefined;
    // `audit --lock pixi.lock` with nothing else asked: the lock is the environment (no solve).
    if (lockFile && specs.length === 0 && files.length === 0) {
      files.push(lockFile);
      lockFile = undefined;
    }
    const user = settingsForFlags(io, values, files.length > 0);
    const config = user.config.values;
    const db = values.db ?? (values['osv-api'] === undefined ? config.osv_db : undefined);
    const osvApi = values['osv-api'] ?? (db === undefined ? config.osv_api : undefined);
    if (db === undefined && osvApi === undefined) {
      throw new UsageError(
        'CR_ERR_INPUT_OPTION',
        "audit needs an OSV database: --db PATH (OSV's all.zip or a folder of OSV JSON files) or --osv-api URL (or osv_db / osv_api in configuration)",
      );
    }
    const request = prepareRequest(requestFromFlags(values, user, { specs, files, lock: lockFile }), prepareOptionsFor(io, user));
    for (const warning of [...request.warnings, ...user.checkRequest(request, io.cwd)]) writeWarning(io, warning);
    const users = await userMappings(
      values['pypi-mapping'] ?? [],
      config.pypi_mappings ?? {},
      request.channels.map((c) => c.name),
      io.cwd,
    );
    const report = await createRunReport(io, {
      quiet: values.quiet === true || values['no-progress'] === true,
      verbosity: verbosity(values),
      name: undefined,
    });
    const [resolution] = await runResolves([request], values, io, user, report, limits.timeoutMs, limits.maxRepodataBytes);
    if (!resolution) throw new Error('no resolution');
    const failed = resolution.platforms.filter((p) => p.error !== null);
    for (const platform of failed) writeError(io, `${platform.platform}: ${platform.error}`);
    const environments: AuditEnvironment[] = exportEnvironments(resolution).filter((e) => !failed.some((f) => f.platform === e.platform));
    const condaForge = await defaultMapping(environments, users, values, user, io);
    const mapping = pypiMapping({ user: users, condaForge });
    // The API goes through the channels' network settings (proxies, TLS): `network([])` meant
    // "only local channels", which gave no client and left the API on Node's own network.
    const network = osvApi !== undefined ? await user.network(undefined) : {};
    const result = await audit(environments, {
      source: { db: db === undefined ? undefined : resolvePath(io.cwd, db), osvApi },
      mapping,
      api: { dispatcher: network.dispatcher },
    });
    let text: string;
    if (format === 'table') text = renderAuditTable(result);
    else if (format === 'json') text = `${JSON.stringify(result, null, 2)}\n`;
    else {
      const from = files[0] ?? lockFile;
      const artifact = from
        ? { uri: relative(io.cwd, resolvePath(io.cwd, from.filename)).split(sep).join('/'), text: from.content }
        : undefined;
      text = `${JSON.stringify(renderSarif(result, { name: TOOL_NAME, version: TOOL_VERSION }, artifact), null, 2)}\n`;
    }
    if (values.output !== undefined)
      await writeFileAtomic(resolvePath(io.cwd, values.output), text, { name: values.output, stdout: io.stdout, stderr: io.stderr });
    else io.stdout.write(text);
    if (failed.length > 0) return EXIT_FAILED;
    return failOn !== undefined && failsAt(result, failOn) ? EXIT_FAILED : EXIT_OK;
  } catch (error) {
    writeError(io, userMessage(error));
    return exitStatusOf(error);
  }
}

/**
 * conda-forge's default mapping, fetched (or read from the cache) only when a conda-forge package
 * is to be audited and no user's file replaces it; a failure becomes the reason those packages
 * are not covered (audit.ts), with a warning.
 */
async function defaultMapping(
  environments: readonly AuditEnvironment[],
  users: readonly UserMapping[],
  values: { readonly 'pypi-mapping-url'?: string | undefined; readonly 'cache-dir'?: string | undefined },
  user: UserSettings,
  io: CliIO,
): Promise<DefaultMapping | undefined> {
  if (users.some((u) => isCondaForge(u.channel))) return undefined;
  if (!environments.some((e) => e.records.some((r) => isCondaForge(r.channel)))) return undefined;
  const url = values['pypi-mapping-url'] ?? io.env[PYPI_MAPPING_URL_ENV] ?? DEFAULT_PYPI_MAPPING_URL;
  const cacheDir = values['cache-dir'] ?? defaultCacheDir(io.env);
  const net = user.offline ? {} : await user.network(undefined);
  try {
    const loaded = await loadRemoteMapping({ url, cacheDir, offline: user.offline, ...net });
    if (!loaded.ok) {
      writeWarning(io, `conda-forge packages are not covered: ${loaded.reason} (give a mapping with --pypi-mapping conda-forge=FILE)`);
      return { unavailable: loaded.reason };
    }
    if (loaded.warning) writeWarning(io, loaded.warning);
    return { table: loaded.table, source: loaded.source, date: loaded.date };
  } finally {
    await net.dispatcher?.close();
  }
}

/** `--pypi-mapping [CHANNEL=]FILE` and configuration's `pypi_mappings` (channel -> file). */
async function userMappings(
  flags: readonly string[],
  configured: Readonly<Record<string, string>>,
  channels: readonly string[],
  cwd: string,
): Promise<UserMapping[]> {
  const pairs: [string | undefined, string][] = [
    ...Object.entries(configured),
    ...flags.map((flag): [string | undefined, string] => {
      const at = flag.indexOf('=');
      // `=` after a drive letter or inside a path is a file name; a channel has no path separator first.
      return at > 0 && !/[\\/]/.test(flag.slice(0, at)) ? [flag.slice(0, at), flag.slice(at + 1)] : [undefined, flag];
    }),
  ];
  const out: UserMapping[] = [];
  for (const [channel, file] of pairs) {
    let text: string;
    try {
      text = await readFile(resolvePath(cwd, file), 'utf8');
    } catch (error) {
      throw new PypiMappingError(
        file,
        `Cannot read PyPI mapping "${file}": ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      );
    }
    const table = parseMappingFile(file, text);
    for (const name of channel !== undefined ? [channel] : channels) out.push({ channel: name, file, table });
  }
  if (flags.length > 0 && channels.length === 0 && out.length === 0)
    throw new UsageError('CR_ERR_INPUT_OPTION', '--pypi-mapping FILE without CHANNEL= needs the request to name its channels');
  return out;
}
