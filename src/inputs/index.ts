/**
 * Input files, chosen by name and content (DECISIONS.md section 3): `*.yml`/`*.yaml` are
 * environment files, files with an `@EXPLICIT` line are explicit files, `*.txt` are spec lists.
 */
import { InputFileError } from '../errors.js';
import { parseEnvironmentYaml } from './environment-yaml.js';
import { parseExplicitFile } from './explicit-file.js';
import { isExplicitFile, parseSpecList } from './spec-list.js';
import { lockEnvironment, lockFormatOf, readLockFile } from './lock-file.js';
import type { ParsedInputFile, ParseInputOptions } from './types.js';

export type { InputSpec, ParsedInputFile, ParseInputOptions } from './types.js';
export { lockEnvironment, lockFormatOf, readLockFile } from './lock-file.js';
export { parseExplicitUrl } from './explicit-file.js';

export const SUPPORTED_FILE_KINDS = 'environment.yml/.yaml, a *.txt spec list, an @EXPLICIT file, pixi.lock or conda-lock.yml';

export function parseInputFile(filename: string, content: string, options: ParseInputOptions = {}): ParsedInputFile {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const lower = base.toLowerCase();
  const lockFormat = lockFormatOf(filename, content);
  if (lockFormat) return lockInput(filename, content, lockFormat, options.environment);
  if (lower.endsWith('.yml') || lower.endsWith('.yaml')) return parseEnvironmentYaml(filename, content);
  if (isExplicitFile(content)) return parseExplicitFile(filename, content);
  if (lower.endsWith('.txt')) return parseSpecList(filename, content);
  throw new InputFileError(
    'CR_ERR_INPUT_FILE_TYPE',
    filename,
    `Cannot read "${filename}": unsupported file type (expected ${SUPPORTED_FILE_KINDS})`,
  );
}

/** A lock file as an input: its environment's records, with its channels and platforms. */
function lockInput(filename: string, content: string, format: Parameters<typeof readLockFile>[2], environment: string | undefined): ParsedInputFile {
  const lock = readLockFile(filename, content, format);
  const locked = lockEnvironment(lock, environment);
  return { filename, kind: 'lock', specs: [], channels: locked.channels, platforms: [...locked.platforms.keys()], warnings: lock.warnings, locked };
}
