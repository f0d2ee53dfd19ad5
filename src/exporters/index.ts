/**
 * Exporters: the output formats (conda's explicit, environment.yml/json and requirements files,
 * conda-lock.yml v1 and pixi.lock v6 and v7 from src/locks/), their registry, plugins, and the ruamel-compatible YAML
 * emitter they write with.
 */
export {
  EXPORTER_API_VERSION,
  EXPORTER_ERROR_CODES,
  ExportError,
  type ExporterErrorCode,
  type ExportContext,
  type ExportEnvironment,
  type Exporter,
  type ExporterCategory,
  type MultiPlatformExport,
  type SinglePlatformExport,
} from './types.js';
export {
  AmbiguousExporterError,
  BUILTIN_PLUGIN,
  DuplicateExporterError,
  ExporterNotDetectedError,
  ExporterRegistry,
  InvalidExporterError,
  UnknownFormatError,
  mediaTypeFor,
  type ExporterDefinition,
  type RegisteredExporter,
} from './registry.js';
export { BUILTIN_EXPORTERS, registerBuiltinExporters } from './builtin.js';
export { FORMATS_DOCUMENT_SCHEMA, formatsDocument, type FormatDescription, type FormatsDocument } from './formats-document.js';
export {
  PLUGIN_MANIFEST_KEY,
  discoverPlugins,
  loadRegistry,
  type LoadRegistryOptions,
  type LoadedPlugin,
  type LoadedRegistry,
  type PluginCandidate,
} from './plugins.js';
export {
  YamlEmitError,
  emitYaml,
  resolvePlainScalar,
  type YamlEmitOptions,
  type YamlMapping,
  type YamlScalar,
  type YamlValue,
} from './yaml/index.js';
export { condaLockV1Document, condaLockV1Exporter, exportCondaLockV1, formatCreatedAt } from '../locks/conda-lock/write.js';
export { environmentJsonExporter, exportEnvironmentJson } from './environment-json.js';
export { environmentYamlExporter, exportEnvironmentYaml } from './environment-yaml.js';
export { explicitExporter, exportExplicit } from './explicit.js';
export { exportRattlerLockV6, rattlerLockV6Document, rattlerLockV6Exporter } from '../locks/pixi-lock/write-v6.js';
export { exportRattlerLockV7, rattlerLockV7Document, rattlerLockV7Exporter } from '../locks/pixi-lock/write-v7.js';
export { exportRequirements, requirementsExporter } from './requirements.js';
