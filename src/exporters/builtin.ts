/**
 * The exporters conda-resolve ships: conda's four built-ins, conda-lockfiles' two lock formats, and
 * pixi.lock version 7 as pixi writes it. They are registered like any plugin's, under the plugin
 * name `conda-resolve`.
 */
import { condaLockV1Exporter } from '../locks/conda-lock/write.js';
import { cyclonedxJsonExporter } from './cyclonedx-json.js';
import { environmentJsonExporter } from './environment-json.js';
import { environmentYamlExporter } from './environment-yaml.js';
import { explicitExporter } from './explicit.js';
import { pylockExporter } from './pylock.js';
import { rattlerLockV6Exporter } from '../locks/pixi-lock/write-v6.js';
import { rattlerLockV7Exporter } from '../locks/pixi-lock/write-v7.js';
import { BUILTIN_PLUGIN, ExporterRegistry } from './registry.js';
import { requirementsExporter } from './requirements.js';
import { spdxJsonExporter } from './spdx-json.js';
import type { Exporter } from './types.js';

export const BUILTIN_EXPORTERS: readonly Exporter[] = [
  environmentYamlExporter,
  environmentJsonExporter,
  explicitExporter,
  requirementsExporter,
  condaLockV1Exporter,
  rattlerLockV6Exporter,
  rattlerLockV7Exporter,
  cyclonedxJsonExporter,
  spdxJsonExporter,
  pylockExporter,
];

/** Registers the built-in exporters on `registry` (a new one when none is given) and returns it. */
export function registerBuiltinExporters(registry: ExporterRegistry = new ExporterRegistry()): ExporterRegistry {
  for (const exporter of BUILTIN_EXPORTERS) registry.register(exporter, BUILTIN_PLUGIN);
  return registry;
}
