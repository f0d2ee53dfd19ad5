/**
 * Input files, chosen by name and content (DECISIONS.md section 3): `*.yml`/`*.yaml` are
 * environment files, files with an `@EXPLICIT` line are explicit files, `*.txt` are spec lists.
 */
import { InputFileError } from '../errors.js';
import { parseEnvironmentYaml } from './environment-yaml.js';
import { parseExplicitFile } from './explicit-file.js';
import { isExplicitFile, parseSpecList } from './spec-list.js';
import type { ParsedInputFile } from './types.js';

export type { InputSpec, ParsedInputFile } from './types.js';
export { parseExplicitUrl } from './explicit-file.js';

export const SUPPORTED_FILE_KINDS = 'environment.yml/.yaml, a *.txt spec list, or an @EXPLICIT file';

export function parseInputFile(filename: string, content: string): ParsedInputFile {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const lower = base.toLowerCase();
  if (lower.endsWith('.yml') || lower.endsWith('.yaml')) return parseEnvironmentYaml(filename, content);
  if (isExplicitFile(content)) return parseExplicitFile(filename, content);
  if (lower.endsWith('.txt')) return parseSpecList(filename, content);
  throw new InputFileError(
    'CR_ERR_INPUT_FILE_TYPE',
    filename,
    `Cannot read "${filename}": unsupported file type (expected ${SUPPORTED_FILE_KINDS})`,
  );
}
