#!/usr/bin/env node
// The /ui and /docs pages' files (src/http/static/), which src/http/static/assets.ts reads beside
// itself. Run directly (by `npm run build`): copies them beside tsc's output of assets.ts. As an
// esbuild plugin (`embedStatic`, for the one-file bundles of scripts/build-cli.mjs and
// scripts/build-action.mjs, which have no folder beside them): replaces assets.ts with a module
// holding the files' text.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STATIC_DIR = join(ROOT, 'src', 'http', 'static');

/** The file names, as assets.ts lists them in STATIC_FILES. */
function staticFileNames() {
  const list = /STATIC_FILES = \[([^\]]*)\]/.exec(readFileSync(join(STATIC_DIR, 'assets.ts'), 'utf8'))[1];
  return [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

export const embedStatic = {
  name: 'embed-static',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]http[\\/]static[\\/]assets\.ts$/ }, () => {
      const files = Object.fromEntries(staticFileNames().map((name) => [name, readFileSync(join(STATIC_DIR, name), 'utf8')]));
      const contents = `const FILES = ${JSON.stringify(files)};\nexport const STATIC_FILES = Object.keys(FILES);\nexport function staticFile(name) { return FILES[name]; }\n`;
      return { contents, loader: 'js' };
    });
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const to = join(ROOT, 'dist', 'src', 'http', 'static');
  mkdirSync(to, { recursive: true });
  for (const name of staticFileNames()) copyFileSync(join(STATIC_DIR, name), join(to, name));
}
