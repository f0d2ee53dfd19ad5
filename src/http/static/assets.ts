/**
 * The files of the /ui and /docs pages (this folder), read beside this module: from src/ in
 * development, from dist/ after `npm run build` copies them there. A one-file bundle (the
 * action's, the CLI's) has no folder beside it: scripts/embed-static.mjs replaces this module
 * with one that holds the files' text.
 */
import { readFileSync } from 'node:fs';

export const STATIC_FILES = ['style.css', 'common.js', 'ui.html', 'ui.js', 'docs.html', 'docs.js'] as const;
export type StaticFile = (typeof STATIC_FILES)[number];

export function staticFile(name: StaticFile): string {
  return readFileSync(new URL(name, import.meta.url), 'utf8');
}
