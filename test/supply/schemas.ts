/**
 * Validators for the official schemas our SBOM and SARIF output must satisfy: CycloneDX through
 * @cyclonedx/cyclonedx-library (which ships the schemas), SPDX 2.3 and SARIF 2.1.0 from the files
 * in fixtures/schemas (sources in its README) with ajv.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validation, Spec } from '@cyclonedx/cyclonedx-library';
import { createRequire } from 'node:module';
import { PROJECT_ROOT } from '../helpers/shared.js';

const SCHEMAS = join(PROJECT_ROOT, 'fixtures', 'schemas');

// CommonJS packages whose default exports TypeScript's ESM typings do not see as constructors.
type AjvLike = { compile(schema: object): Validate };
type AjvClass = new (options: object) => AjvLike;
const require = createRequire(import.meta.url);
const Ajv = (require('ajv') as { default: AjvClass }).default;
const AjvDraft04 = (require('ajv-draft-04') as { default: AjvClass }).default;
const addFormats = (require('ajv-formats') as { default: (ajv: AjvLike) => void }).default;

/** null when valid, else the validator's errors. */
export async function cyclonedxErrors(text: string): Promise<unknown> {
  const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot6);
  return (await validator.validate(text)) ?? null;
}

type Validate = ((data: unknown) => boolean) & { errors?: unknown };

let spdx: Validate | undefined;
export function spdxErrors(document: unknown): unknown {
  if (!spdx) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    spdx = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, 'spdx-schema-2.3.json'), 'utf8')) as object);
  }
  return spdx(document) ? null : spdx.errors;
}

let sarif: Validate | undefined;
export function sarifErrors(document: unknown): unknown {
  if (!sarif) {
    const ajv = new AjvDraft04({ strict: false, allErrors: true });
    addFormats(ajv);
    sarif = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, 'sarif-schema-2.1.0.json'), 'utf8')) as object);
  }
  return sarif(document) ? null : sarif.errors;
}
