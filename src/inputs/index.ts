/**
 * Input files, chosen by name and content (docs/command-line.md, "Inputs"): `*.yml`/`*.yaml` are
 * environment files, files with an `@EXPLICIT` line are explicit files, `*.txt` are spec lists;
 * lock files and pixi manifests by name or content.
 */
import { InputFileError } from '../errors.js';
import { parseEnvironmentYaml } from './environment-yaml.js';
import { parseExplicitFile } from './explicit-file.js';
import { isExplicitFile, parseSpecList } from './spec-list.js';
import { lockEnvironment, lockFormatOf, readLockFile } from '../locks/lock-file.js';
import { isPixiManifest, parsePixiManifest } from './pixi-manifest.js';
import type { ParsedInputFile, ParseInputOptions } from './types.js';

export type { InputSpec, ManifestDetails, ParsedInputFile, ParseInputOptions } from './types.js';
export { lockEnvironment, lockFormatOf, readLockFile } from '../locks/lock-file.js';
export { parseExplicitUrl } from './explicit-file.js';

export const SUPPORTED_FILE_KINDS =
  'environment.yml/.yaml, a *.txt spec list, an @EXPLICIT file, pixi.lock, conda-lock.yml, pixi.toml or pyproject.toml with [tool.pixi]';

export function parseInputFile(filename: string, content: string, options: ParseInputOptions = {}): ParsedInputFile {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const lower = base.toLowerCase();
  const lockFormat = lockFormatOf(filename, content);
  if (lockFormat) return lockInput(filename, content, lockFormat, options.environment);
  if (isPixiManifest(filename, content)) return manifestInput(filename, content, options.environment);
  if (lower.endsWith('.yml') || lower.endsWith('.yaml')) return parseEnvironmentYaml(filename, content, options.readIncluded);
  if (isExplicitFile(content)) return parseExplicitFile(filename, content);
  if (lower.endsWith('.txt')) return parseSpecList(filename, content);
  throw new InputFileError(
    'CR_ERR_INPUT_FILE_TYPE',
    filename,
    `Cannot read "${filename}": unsupported file type (expected ${SUPPORTED_FILE_KINDS})`,
  );
}

/** A lock file as an input: its environment's records, with its channels and platforms. */
function lockInput(
  filename: string,
  content: string,
  format: Parameters<typeof readLockFile>[2],
  environment: string | undefined,
): ParsedInputFile {
  const lock = readLockFile(filename, content, format);
  const locked = lockEnvironment(lock, environment);
  return {
    filename,
    kind: 'lock',
    specs: [],
    channels: locked.channels,
    platforms: [...locked.platforms.keys()],
    warnings: locked.warnings,
    locked,
  };
}

/** A pixi manifest's environment `name` (default `default`) as an input. */
function manifestInput(filename: string, content: string, name: string | undefined): ParsedInputFile {
  const manifest = parsePixiManifest(filename, content);
  const wanted = name ?? 'default';
  const environment = manifest.environments.get(wanted);
  if (!environment) {
    throw new InputFileError(
      'CR_ERR_INPUT_LOCK_ENVIRONMENT',
      filename,
      `Cannot use environment "${wanted}" of "${filename}": it defines only ${[...manifest.environments.keys()].map((n) => `"${n}"`).join(', ')}`,
    );
  }
  return {
    filename,
    kind: 'manifest',
    specs: environment.specs,
    channels: environment.channels,
    platforms: environment.platforms,
    warnings: manifest.warnings,
    ...(environment.pypi ? { pypi: environment.pypi } : {}),
    ...(environment.pypiOptions ? { pypiOptions: environment.pypiOptions } : {}),
    ...(manifest.condaPypiMap ? { condaPypiMap: manifest.condaPypiMap } : {}),
    manifest: {
      environment: wanted,
      environments: [...manifest.environments.keys()],
      platformSpecs: environment.platformSpecs,
      virtualPackages: environment.virtualPackages,
      ...(environment.channelPriority !== undefined ? { channelPriority: environment.channelPriority } : {}),
      ...(environment.excludeNewer !== undefined ? { excludeNewer: environment.excludeNewer } : {}),
      ...(environment.platformPypi ? { platformPypi: environment.platformPypi } : {}),
    },
  };
}
