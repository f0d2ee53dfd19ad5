/**
 * Plain spec lists (`*.txt`, conda's `--file` format): one MatchSpec per line; `#` starts a
 * comment. Files whose lines contain `@EXPLICIT` are explicit files and are read by
 * `explicit-file.ts` instead.
 */
import type { InputSpec, ParsedInputFile } from './types.js';

export function parseSpecList(filename: string, content: string): ParsedInputFile {
  const specs: InputSpec[] = [];
  const lines = content.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const hash = raw.search(/(^|\s)#/);
    const text = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (text !== '') specs.push({ spec: text, line: index + 1 });
  });
  return { filename, kind: 'spec-list', specs, channels: [], platforms: [], warnings: [] };
}

export function isExplicitFile(content: string): boolean {
  return /^\s*@EXPLICIT\s*$/m.test(content);
}
