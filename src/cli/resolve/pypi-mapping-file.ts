/**
 * `--pypi-mapping FILE|URL`: conda-to-PyPI name maps in pixi's `conda-pypi-map` format, a JSON
 * object `{"conda-name": "pypi-name" | null}` (null: the conda package provides no PyPI
 * distribution). Later maps win; they apply to every channel.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputFileError } from '../../errors.js';
import type { CondaPypiMapOverrides } from '../../pypi/request.js';

export async function readPypiMappings(locations: readonly string[] | undefined, cwd: string): Promise<CondaPypiMapOverrides | undefined> {
  if (!locations || locations.length === 0) return undefined;
  const merged: Record<string, string | null> = {};
  for (const location of locations) Object.assign(merged, parsePypiMapping(location, await readLocation(location, cwd)));
  return { '*': merged };
}

async function readLocation(location: string, cwd: string): Promise<string> {
  try {
    if (/^https?:\/\//.test(location)) {
      const response = await fetch(location);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return await response.text();
    }
    return await readFile(resolve(cwd, location.replace(/^file:\/\//, '')), 'utf8');
  } catch (error) {
    throw new InputFileError(
      'CR_ERR_INPUT_FILE_UNREADABLE',
      location,
      `Cannot read the PyPI mapping "${location}": ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The map of one file; anything but an object of strings and nulls is an error naming the entry. */
export function parsePypiMapping(location: string, text: string): Record<string, string | null> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputFileError(
      'CR_ERR_INPUT_SHAPE',
      location,
      `Cannot read the PyPI mapping "${location}": not JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputFileError(
      'CR_ERR_INPUT_SHAPE',
      location,
      `Cannot read the PyPI mapping "${location}": expected an object of conda name -> PyPI name`,
    );
  }
  const out: Record<string, string | null> = {};
  for (const [conda, pypi] of Object.entries(value)) {
    if (pypi !== null && typeof pypi !== 'string')
      throw new InputFileError(
        'CR_ERR_INPUT_SHAPE',
        location,
        `Cannot read the PyPI mapping "${location}": "${conda}" maps to ${JSON.stringify(pypi)}, not a PyPI name or null`,
      );
    out[conda] = pypi;
  }
  return out;
}
