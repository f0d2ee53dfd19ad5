/**
 * A lock file's YAML: bounded in size, plain data only (no anchors or aliases, see
 * `src/inputs/plain-yaml.ts`), a mapping at the top.
 */
import { loadPlainYaml, PlainYamlError } from '../inputs/plain-yaml.js';
import { lockError } from './lock-record.js';

/** Locks of real workspaces reach tens of MB; more than this is not a lock worth parsing here. */
export const MAX_LOCK_BYTES = 64 * 1024 * 1024;

export function loadLockYaml(filename: string, content: string): Record<string, unknown> {
  if (content.length > MAX_LOCK_BYTES) throw lockError(filename, `it is larger than ${MAX_LOCK_BYTES / 1024 / 1024} MiB (the limit)`);
  let doc: unknown;
  try {
    doc = loadPlainYaml(content, filename);
  } catch (error) {
    if (error instanceof PlainYamlError) throw lockError(filename, error.message);
    throw error;
  }
  if (!isMapping(doc)) throw lockError(filename, doc === undefined || doc === null ? 'the file is empty' : 'the document is not a mapping');
  return doc;
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
