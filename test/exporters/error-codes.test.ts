import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPORTER_ERROR_CODES } from '../../src/exporters/types.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

describe('exporter error codes', () => {
  it('every CR_ERR_* code used in src/exporters is listed and described, and every listed code is used', () => {
    const dir = join(PROJECT_ROOT, 'src/exporters');
    const used = new Set<string>();
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && f !== 'types.ts')) {
      for (const match of readFileSync(join(dir, file), 'utf8').matchAll(/'(CR_ERR_[A-Z_]+)'/g)) used.add(match[1]);
    }
    expect([...used].sort()).toEqual(Object.keys(EXPORTER_ERROR_CODES).sort());
    for (const [code, meaning] of Object.entries(EXPORTER_ERROR_CODES)) {
      expect(code).toMatch(/^CR_ERR_(FORMAT|EXPORT)_[A-Z_]+$/);
      expect(meaning.length).toBeGreaterThan(10);
    }
  });
});
