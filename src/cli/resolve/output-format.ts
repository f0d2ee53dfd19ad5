/**
 * `-o FILE` without `--format`: the exporter whose default file names match FILE. A `*.json` name
 * (or a path that is no regular file's name: a device, a FIFO, a directory) gets the native JSON
 * result; any other name no exporter claims is a usage error listing the names that are, so
 * `-o env.yaml` or `-o foo.lock` no longer write JSON under a misleading name.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import type { ExporterRegistry } from '../../exporters/index.js';
import type { Exporter } from '../../exporters/types.js';

export function exporterForOutput(
  exporters: typeof import('../../exporters/index.js'),
  registry: ExporterRegistry,
  output: string,
  cwd: string,
): Exporter | undefined {
  try {
    return registry.detect(output);
  } catch (error) {
    if (!(error instanceof exporters.ExporterNotDetectedError)) throw error;
    if (output.toLowerCase().endsWith('.json') || isSpecialPath(resolve(cwd, output))) return undefined;
    throw new UsageError('CR_ERR_FORMAT_NOT_DETECTED', `${error.message}\n\nA file name ending in .json gets the native JSON result.`, {
      cause: error,
    });
  }
}

/** A path that exists and is not a regular file (or is under /dev): no file name to go by. */
function isSpecialPath(path: string): boolean {
  if (path.startsWith('/dev/')) return true;
  try {
    return !statSync(path).isFile();
  } catch {
    return false;
  }
}
