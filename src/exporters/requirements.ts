/**
 * `requirements` (aliases `reqs`, `txt`): conda's MatchSpec requirements file (CEP 23), one platform
 * per document.
 *
 * It lists the specs the user asked for, not the solved packages, so it needs an environment that
 * carries requested specs. A resolve hands exporters solved records only, and conda rejects that
 * case with the message below; use `explicit`, `environment-yaml` or `environment-json` instead.
 */
import { canonicalSpec } from './spec-forms.js';
import { lockPlatformSubdir } from '../locks/facts.js';
import { ExportError, type ExportContext, type ExportEnvironment, type Exporter } from './types.js';

const FORMAT = 'requirements';

export function exportRequirements(environment: ExportEnvironment, context: ExportContext): string {
  const lines = [
    '# This file may be used to create an environment using:',
    '# $ conda create --name <env> --file <this file>',
    // A lock's named platform (`p2`) is written as its subdir, which is what conda reads here.
    `# platform: ${lockPlatformSubdir(environment.lock, environment.platform)}`,
    `# created-by: ${context.toolName} ${context.toolVersion}`,
  ];
  const requested = environment.requestedSpecs ?? [];
  if (requested.length === 0) {
    throw new ExportError(
      'CR_ERR_EXPORT_REQUIREMENTS_NO_SPECS',
      FORMAT,
      'Cannot export requirements format: no requested packages found. ' +
        "Use 'explicit' format for environments with installed packages, " +
        'or ensure the environment has package specifications.',
    );
  }
  lines.push('# Note: This is a conda requirements file (MatchSpec format)');
  lines.push('# Contains conda package specifications, not pip requirements');
  lines.push('');
  for (const spec of requested) lines.push(canonicalSpec(spec));
  return lines.join('\n');
}

export const requirementsExporter: Exporter = {
  name: FORMAT,
  aliases: ['reqs', 'txt'],
  description: 'Simple text format with package specifications',
  category: 'environment',
  mediaType: 'text/plain; charset=utf-8',
  defaultFilenames: ['requirements.txt', 'spec.txt'],
  export: exportRequirements,
};
