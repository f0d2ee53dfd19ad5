/**
 * The formats document: the exporter registry as data, the one description of the formats that
 * `conda-resolve formats` (its listing and `--json`) and `GET /formats` both give. Each only frames
 * it: the CLI indents the JSON and ends it with a newline, the service sends it compact.
 *
 * The shape is `GET /formats`'s in src/http/README.md (hence the snake_case).
 */
import type { ExporterRegistry } from './registry.js';
import type { ExporterCategory } from './types.js';

/** One exporter in the formats document. */
export interface FormatDescription {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly description: string;
  readonly category: ExporterCategory;
  readonly media_type: string;
  /** Whether one document holds every platform (`exportMultiplatform`). */
  readonly multiplatform: boolean;
  readonly default_filenames: readonly string[];
}

export interface FormatsDocument {
  /** Primary names, sorted. */
  readonly formats: readonly string[];
  /** Every exporter, sorted by name. */
  readonly exporters: readonly FormatDescription[];
}

export function formatsDocument(registry: ExporterRegistry): FormatsDocument {
  return {
    formats: registry.names(),
    exporters: registry.list().map((exporter) => ({
      name: exporter.name,
      aliases: [...exporter.aliases],
      description: exporter.description,
      category: exporter.category,
      media_type: exporter.mediaType,
      multiplatform: typeof exporter.exportMultiplatform === 'function',
      default_filenames: [...exporter.defaultFilenames],
    })),
  };
}

/** The JSON schema of `FormatsDocument` (the `/formats` response and its OpenAPI component). */
export const FORMATS_DOCUMENT_SCHEMA = {
  title: 'Formats',
  type: 'object',
  additionalProperties: false,
  required: ['formats', 'exporters'],
  properties: {
    formats: { type: 'array', items: { type: 'string' }, description: 'Primary exporter names, sorted.' },
    exporters: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'aliases', 'description', 'category', 'media_type', 'multiplatform', 'default_filenames'],
        properties: {
          name: { type: 'string' },
          aliases: { type: 'array', items: { type: 'string' } },
          description: { type: 'string' },
          category: { type: 'string' },
          media_type: { type: 'string' },
          multiplatform: { type: 'boolean' },
          default_filenames: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;
