/**
 * The formats document that `conda-resolve formats --json` prints and `GET /formats` serves: the
 * registry as data, for built-in and plugin exporters alike, in the shape its JSON schema states.
 */
import { describe, expect, it } from 'vitest';
import { registerBuiltinExporters } from '../../src/exporters/builtin.js';
import { FORMATS_DOCUMENT_SCHEMA, formatsDocument } from '../../src/exporters/formats-document.js';

describe('formatsDocument', () => {
  it('describes every registered exporter, sorted by name, as the registry states it', () => {
    const registry = registerBuiltinExporters();
    registry.register({ name: 'csv', aliases: ['table'], defaultFilenames: ['*.packages.csv'], export: () => '' }, 'a-plugin');
    const document = formatsDocument(registry);
    expect(document.formats).toEqual(registry.names());
    expect(document.exporters.map((e) => e.name)).toEqual(registry.names());
    expect(document.exporters.find((e) => e.name === 'rattler-lock-v6')).toEqual({
      name: 'rattler-lock-v6',
      aliases: ['pixi', 'pixi-lock-v6'],
      description: 'Rattler-based lockfile format from pixi',
      category: 'lockfile',
      media_type: 'application/yaml',
      multiplatform: true,
      default_filenames: ['pixi.lock'],
    });
    expect(document.exporters.find((e) => e.name === 'csv')).toEqual({
      name: 'csv',
      aliases: ['table'],
      description: 'csv',
      category: 'environment',
      media_type: 'text/plain; charset=utf-8',
      multiplatform: false,
      default_filenames: ['*.packages.csv'],
    });
  });

  it('has exactly the members its schema requires, in that order', () => {
    const document = formatsDocument(registerBuiltinExporters());
    expect(Object.keys(document)).toEqual(FORMATS_DOCUMENT_SCHEMA.required);
    for (const exporter of document.exporters) {
      expect(Object.keys(exporter)).toEqual(FORMATS_DOCUMENT_SCHEMA.properties.exporters.items.required);
    }
  });
});
