/**
 * `@EXPLICIT` files (conda's `conda list --explicit` / `conda export --format explicit`): one package
 * URL per line after the `@EXPLICIT` marker, optionally with `#<md5>` or `#sha256:<hex>`.
 *
 * conda installs such files without solving; a resolve turns each URL into an exact spec
 * (`<channel>/<subdir>::name==version=build`, plus the md5 when given) and adds each URL's channel
 * after the request's channels, so re-resolving an explicit file reproduces it or says why not.
 * The `# platform:` header is the file's platform.
 */
import { InputFileError } from '../errors.js';
import type { InputSpec, ParsedInputFile } from './types.js';

const PACKAGE_FILE = /^(.+)-([^-]+)-([^-]+)\.(conda|tar\.bz2)$/;

export interface ExplicitPackage {
  readonly channelUrl: string;
  readonly subdir: string;
  readonly name: string;
  readonly version: string;
  readonly build: string;
  readonly md5?: string;
  readonly sha256?: string;
}

export function parseExplicitFile(filename: string, content: string): ParsedInputFile {
  const lines = content.split(/\r?\n/);
  const specs: InputSpec[] = [];
  const channels: string[] = [];
  const platforms: string[] = [];
  let inBody = false;
  lines.forEach((raw, index) => {
    const text = raw.trim();
    const lineNo = index + 1;
    if (text === '') return;
    if (text.startsWith('#')) {
      const platform = /^#\s*platform:\s*(\S+)\s*$/.exec(text);
      if (platform && !platforms.includes(platform[1]!)) platforms.push(platform[1]!);
      return;
    }
    if (text === '@EXPLICIT') {
      inBody = true;
      return;
    }
    if (!inBody) {
      throw new InputFileError(
        'CR_ERR_INPUT_EXPLICIT',
        filename,
        `Cannot read explicit file "${filename}": line ${lineNo} comes before @EXPLICIT`,
      );
    }
    const pkg = parseExplicitUrl(text);
    if (!pkg) {
      throw new InputFileError(
        'CR_ERR_INPUT_EXPLICIT',
        filename,
        `Cannot read explicit file "${filename}": line ${lineNo} is not a package URL (expected https://.../<subdir>/<name>-<version>-<build>.conda or .tar.bz2)`,
      );
    }
    if (!channels.includes(pkg.channelUrl)) channels.push(pkg.channelUrl);
    specs.push({ spec: explicitSpec(pkg), line: lineNo });
  });
  return { filename, kind: 'explicit', specs, channels, platforms, warnings: [] };
}

/** Splits a package URL into its channel, subdir and file name parts; undefined when it is not one. */
export function parseExplicitUrl(text: string): ExplicitPackage | undefined {
  const [urlText, fragment] = splitOnce(text, '#');
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return undefined;
  }
  if (!['https:', 'http:', 'file:'].includes(url.protocol)) return undefined;
  const parts = url.pathname.split('/');
  const fn = decodeURIComponent(parts.pop() ?? '');
  const subdir = parts.pop() ?? '';
  const match = PACKAGE_FILE.exec(fn);
  if (!match || subdir === '') return undefined;
  url.pathname = parts.join('/');
  url.hash = '';
  url.search = '';
  const channelUrl = url.toString().replace(/\/$/, '');
  const pkg: { -readonly [K in keyof ExplicitPackage]: ExplicitPackage[K] } = {
    channelUrl,
    subdir,
    name: match[1]!,
    version: match[2]!,
    build: match[3]!,
  };
  if (fragment) {
    if (/^[0-9a-f]{32}$/i.test(fragment)) pkg.md5 = fragment.toLowerCase();
    else if (/^sha256:[0-9a-f]{64}$/i.test(fragment)) pkg.sha256 = fragment.slice(7).toLowerCase();
    else return undefined;
  }
  return pkg;
}

export function explicitSpec(pkg: ExplicitPackage): string {
  const brackets: string[] = [];
  if (pkg.md5) brackets.push(`md5=${pkg.md5}`);
  if (pkg.sha256) brackets.push(`sha256=${pkg.sha256}`);
  const tail = brackets.length ? `[${brackets.join(',')}]` : '';
  return `${pkg.channelUrl}/${pkg.subdir}::${pkg.name}==${pkg.version}=${pkg.build}${tail}`;
}

function splitOnce(text: string, sep: string): [string, string | undefined] {
  const at = text.indexOf(sep);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
