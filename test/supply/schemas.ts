/**
 * Validators for the formats our SBOM and SARIF output must satisfy. CycloneDX: the official schemas
 * through @cyclonedx/cyclonedx-library (which ships them). SPDX 2.3 and SARIF 2.1.0: no npm package
 * ships their official JSON schemas, so each check is our own structural check of the fields the
 * specifications require (always run), plus the official schema with ajv when it is present under
 * ../shared/third-party (test/THIRD-PARTY-DATA.md says where it comes from).
 */
import { createRequire } from 'node:module';
import { Validation, Spec } from '@cyclonedx/cyclonedx-library';
import { thirdPartyJson } from '../helpers/third-party.js';
import { sarifStructureErrors, spdxStructureErrors } from './structure.js';

export const SPDX_SCHEMA = 'spdx-spec/schemas/spdx-schema.json';
export const SARIF_SCHEMA = 'sarif-spec/sarif-schema-2.1.0.json';

// CommonJS packages whose default exports TypeScript's ESM typings do not see as constructors.
type Validate = ((data: unknown) => boolean) & { errors?: unknown };
type AjvLike = { compile(schema: object): Validate };
type AjvClass = new (options: object) => AjvLike;
const require = createRequire(import.meta.url);
const Ajv = (require('ajv') as { default: AjvClass }).default;
const AjvDraft04 = (require('ajv-draft-04') as { default: AjvClass }).default;
const addFormats = (require('ajv-formats') as { default: (ajv: AjvLike) => void }).default;

// One validator for every call: it compiles the CycloneDX schema (seconds of ajv) on its first use
// and keeps the compiled function, which the test files sharing this worker's module cache reuse.
let cyclonedx: InstanceType<typeof Validation.JsonStrictValidator> | undefined;
/** null when valid, else the validator's errors. */
export async function cyclonedxErrors(text: string): Promise<unknown> {
  cyclonedx ??= new Validation.JsonStrictValidator(Spec.Version.v1dot6);
  return (await cyclonedx.validate(text)) ?? null;
}

/** The official schema's validator, or null when its file is not under ../shared/third-party. */
function officialValidator(relative: string, Class: AjvClass): Validate | null {
  const schema = thirdPartyJson<object>(relative);
  if (schema === undefined) return null;
  const ajv = new Class({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(schema);
}

let spdx: Validate | null | undefined;
let sarif: Validate | null | undefined;
/** The official SPDX 2.3 schema's validator, or null when absent. */
export const officialSpdx = (): Validate | null => (spdx === undefined ? (spdx = officialValidator(SPDX_SCHEMA, Ajv)) : spdx);
/** The official SARIF 2.1.0 schema's validator (draft-04), or null when absent. */
export const officialSarif = (): Validate | null => (sarif === undefined ? (sarif = officialValidator(SARIF_SCHEMA, AjvDraft04)) : sarif);

function errorsOf(structural: string[], validate: Validate | null, document: unknown): unknown {
  if (structural.length > 0) return structural;
  if (validate && !validate(document)) return validate.errors;
  return null;
}

/** null when valid SPDX 2.3 (structure, and the official schema when present), else the errors. */
export function spdxErrors(document: unknown): unknown {
  return errorsOf(spdxStructureErrors(document), officialSpdx(), document);
}

/** null when valid SARIF 2.1.0 (structure, and the official schema when present), else the errors. */
export function sarifErrors(document: unknown): unknown {
  return errorsOf(sarifStructureErrors(document), officialSarif(), document);
}
