/**
 * `environment-yaml` (aliases `yaml`, `yml`, `env.yml`): conda's environment.yml, one platform per
 * document, written with conda's ruamel.yaml settings (see `yaml/`). A solved
 * environment gives `name:` (null) and its pins, `name=version=build`.
 */
import { environmentDocument } from './environment-document.js';
import type { ExportEnvironment, Exporter } from './types.js';
import { emitYaml } from './yaml/index.js';

export function exportEnvironmentYaml(environment: ExportEnvironment): string {
  return emitYaml(environmentDocument(environment));
}

export const environmentYamlExporter: Exporter = {
  name: 'environment-yaml',
  aliases: ['yaml', 'yml', 'env.yml'],
  description: 'YAML format with channels and dependencies',
  category: 'environment',
  mediaType: 'application/yaml',
  defaultFilenames: ['environment.yaml', 'environment.yml'],
  export: exportEnvironmentYaml,
};
