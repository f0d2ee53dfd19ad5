/**
 * `explicit`: conda's explicit spec file (CEP 23), one platform per document, as `conda export
 * --format explicit` writes it: four comment lines, `@EXPLICIT`, then one bare package URL per line
 * (no `#md5`), in the environment's record order, with no final newline (the registry adds it).
 * Virtual packages are never written (`conda create --file` fails on their URLs; conda-lock drops
 * them too). An environment with PyPI distributions is refused, as conda's exporter refuses external
 * packages (`conda/plugins/environment_exporters/explicit.py`): leaving them out would install a
 * different environment.
 */
import { requestedName } from './spec-forms.js';
import { lockPlatformSubdir } from '../locks/facts.js';
import { ExportError, type ExportContext, type ExportEnvironment, type Exporter } from './types.js';

const FORMAT = 'explicit';

export function exportExplicit(environment: ExportEnvironment, context: ExportContext): string {
  const lines = [
    '# This file may be used to create an environment using:',
    // conda 26.x writes `<env>` even for a named environment.
    '# $ conda create --name <env> --file <this file>',
    // A lock's named platform (`p2`) is written as its subdir, which is what conda reads here.
    `# platform: ${lockPlatformSubdir(environment.lock, environment.platform)}`,
    `# created-by: ${context.toolName} ${context.toolVersion}`,
  ];
  const records = environment.records.filter((record) => !record.name.startsWith('__'));
  if (records.length === 0) {
    throw new ExportError(
      'CR_ERR_EXPORT_EXPLICIT_NO_PACKAGES',
      FORMAT,
      'Cannot export explicit format: no explicit packages with installation metadata found. ' +
        "Use 'requirements' format for environments with only requested packages, " +
        'or ensure the environment has been solved and installed.',
    );
  }
  if ((environment.pypi ?? []).length > 0) {
    throw new ExportError(
      'CR_ERR_EXPORT_EXPLICIT_EXTERNAL_PACKAGES',
      FORMAT,
      'Cannot export explicit format: environment contains external packages that cannot be represented in explicit format. ' +
        'Use a different format to include external packages.',
    );
  }
  const requested = environment.requestedSpecs ?? [];
  if (requested.length > 0) {
    const explicitNames = new Set(records.map((record) => record.name));
    const missing = [...new Set(requested.map(requestedName))].filter((name) => !explicitNames.has(name)).sort();
    if (missing.length > 0) {
      throw new ExportError(
        'CR_ERR_EXPORT_EXPLICIT_MISSING_PACKAGES',
        FORMAT,
        `Cannot export explicit format: some requested packages lack installation metadata: ${missing.join(', ')}. ` +
          "Use 'requirements' format or ensure all packages are properly installed.",
      );
    }
  }
  lines.push('@EXPLICIT');
  for (const record of records) {
    if (!record.url) {
      throw new ExportError('CR_ERR_EXPORT_NO_URL', FORMAT, `Cannot export '${record.name}': explicit format requires package URLs`);
    }
    lines.push(record.url);
  }
  return lines.join('\n');
}

export const explicitExporter: Exporter = {
  name: FORMAT,
  aliases: [],
  description: 'Explicit URLs for exact package reproduction (lockfile)',
  category: 'lockfile',
  mediaType: 'text/plain; charset=utf-8',
  defaultFilenames: ['explicit.txt'],
  export: exportExplicit,
};
