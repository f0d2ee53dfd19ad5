/**
 * `environment-json` (alias `json`): the environment.yml model as JSON, one platform per document,
 * as conda writes it: `json.dumps(..., indent=2, ensure_ascii=False)`. `JSON.stringify` with an
 * indent of 2 gives the same bytes for this data (same separators, same escapes, non-ASCII kept).
 *
 * Several platforms give several JSON objects one after another, not one JSON array (each document
 * is what conda writes for its platform).
 */
import { environmentDocument } from './environment-document.js';
import type { ExportEnvironment, Exporter } from './types.js';

export function exportEnvironmentJson(environment: ExportEnvironment): string {
  return JSON.stringify(environmentDocument(environment), null, 2);
}

export const environmentJsonExporter: Exporter = {
  name: 'environment-json',
  aliases: ['json'],
  description: 'JSON format with channels and dependencies',
  category: 'environment',
  mediaType: 'application/json',
  defaultFilenames: ['environment.json'],
  export: exportEnvironmentJson,
};
