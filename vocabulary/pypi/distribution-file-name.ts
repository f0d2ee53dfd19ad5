/**
 * Python distribution file names: wheels (the binary distribution format, PEP 427, with build tags and
 * PEP 425 compressed tag sets) and sdists (the source distribution format, PEP 625, plus the legacy
 * names older releases on an index still carry). The rules are those of `packaging.utils`
 * (`parse_wheel_filename`, `parse_sdist_filename`, packaging 26.3), so an index client and pip agree
 * on what a file is.
 */
import { InvalidDistributionFileNameError } from './distribution-errors.js';
import { normalizePypiName, type NormalizedPypiName } from './name.js';
import { tryParsePypiVersion, type PypiVersion } from './version.js';

/** One wheel tag (PEP 425): interpreter, ABI, platform, each lower-cased as packaging does. */
export interface WheelTag {
  readonly interpreter: string;
  readonly abi: string;
  readonly platform: string;
}

/** A wheel's build tag: the leading digits as a number, the rest as text (compared in that order). */
export interface WheelBuildTag {
  readonly number: number;
  readonly suffix: string;
}

export interface WheelFileName {
  readonly kind: 'wheel';
  readonly fileName: string;
  /** The name as normalised by PEP 503 (`typing-extensions`). */
  readonly name: NormalizedPypiName;
  readonly version: PypiVersion;
  /** The version as the file name spells it. */
  readonly versionText: string;
  readonly build: WheelBuildTag | undefined;
  /** The tag set as written (`py2.py3-none-any`), and every tag it stands for. */
  readonly tagText: string;
  readonly tags: readonly WheelTag[];
}

export interface SdistFileName {
  readonly kind: 'sdist';
  readonly fileName: string;
  readonly name: NormalizedPypiName;
  readonly version: PypiVersion;
  readonly versionText: string;
  /** The archive extension, with its dot: `.tar.gz`, `.zip`, or a legacy one (`.tar.bz2`, `.tgz`, ...). */
  readonly extension: string;
  /** Whether the name is what PEP 625 asks for: `.tar.gz`, the name in its underscored normal form, the version normalised. */
  readonly pep625: boolean;
}

export type DistributionFileName = WheelFileName | SdistFileName;

/** `interpreter-abi-platform`, the form tags take in file names and in `tags.ts`'s ranking. */
export function formatWheelTag(tag: WheelTag): string {
  return `${tag.interpreter}-${tag.abi}-${tag.platform}`;
}

// Python's `\w` with re.UNICODE: letters, numbers and the underscore (packaging's `_wheel_name_regex`).
const WHEEL_NAME = /^[\p{L}\p{N}_.]+$/u;
// A Python identifier (`str.isidentifier`): packaging 26.3 refuses interpreter tags that are not.
const IDENTIFIER = /^[\p{XID_Start}_]\p{XID_Continue}*$/u;
const BUILD_TAG = /^([0-9]+)(.*)$/s;

function wheelError(fileName: string, reason: string): InvalidDistributionFileNameError {
  return new InvalidDistributionFileNameError('wheel', fileName, reason);
}

/**
 * Expand a tag set (`py2.py3-none-any`, `cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64`) into
 * its tags, interpreter first, then ABI, then platform. Returns a reason text when it is not a tag set.
 */
export function parseWheelTagSet(text: string): WheelTag[] | string {
  const components = text.split('-');
  if (components.length !== 3) return `the tag set "${text}" does not have exactly three components`;
  const [interpreters, abis, platforms] = components.map((component) => component.toLowerCase().split('.')) as [
    string[],
    string[],
    string[],
  ];
  for (const parts of [interpreters, abis, platforms]) {
    if (parts.includes('')) return `the tag set "${text}" has an empty component`;
  }
  for (const interpreter of interpreters) {
    if (!IDENTIFIER.test(interpreter)) return `"${interpreter}" is not a valid interpreter tag`;
  }
  const tags: WheelTag[] = [];
  const seen = new Set<string>();
  for (const interpreter of interpreters) {
    for (const abi of abis) {
      for (const platform of platforms) {
        const key = `${interpreter}-${abi}-${platform}`;
        if (seen.has(key)) continue;
        seen.add(key);
        tags.push({ interpreter, abi, platform });
      }
    }
  }
  return tags;
}

/**
 * Parse a wheel file name, `{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`. Throws
 * `InvalidDistributionFileNameError` saying which part is wrong.
 */
export function parseWheelFileName(fileName: string): WheelFileName {
  if (!fileName.endsWith('.whl')) throw wheelError(fileName, 'the extension is not ".whl"');
  const stem = fileName.slice(0, -4);
  const parts = stem.split('-');
  if (parts.length !== 5 && parts.length !== 6) {
    throw wheelError(
      fileName,
      `expected 5 or 6 parts separated by "-" (name, version, optional build tag, python, abi, platform), found ${parts.length}`,
    );
  }
  const namePart = parts[0]!;
  // PEP 427 escapes runs of "-_." in the name to one "_"; a "__" cannot come from that escaping.
  if (!WHEEL_NAME.test(namePart) || namePart.includes('__')) throw wheelError(fileName, `"${namePart}" is not a valid project name`);
  const versionText = parts[1]!;
  const version = tryParsePypiVersion(versionText);
  if (!version) throw wheelError(fileName, `"${versionText}" is not a valid version`);
  let build: WheelBuildTag | undefined;
  if (parts.length === 6) {
    const match = BUILD_TAG.exec(parts[2]!);
    if (!match) throw wheelError(fileName, `the build tag "${parts[2]}" does not start with a digit`);
    build = { number: Number(match[1]), suffix: match[2]! };
  }
  const tagText = parts.slice(-3).join('-');
  const tags = parseWheelTagSet(tagText);
  if (typeof tags === 'string') throw wheelError(fileName, tags);
  return { kind: 'wheel', fileName, name: normalizePypiName(namePart), version, versionText, build, tagText, tags };
}

/** sdist archive extensions: PEP 625's, the `.zip` packaging still reads, then legacy ones older releases used. */
const SDIST_EXTENSIONS = [
  '.tar.gz',
  '.zip',
  '.tar.bz2',
  '.tbz',
  '.tar.xz',
  '.txz',
  '.tlz',
  '.tar.lz',
  '.tar.lzma',
  '.tgz',
  '.tar',
] as const;

/** The archive extension of an sdist file name, or undefined when it has none of them. */
export function sdistExtension(fileName: string): string | undefined {
  const lower = fileName.toLowerCase();
  return SDIST_EXTENSIONS.find((extension) => lower.endsWith(extension));
}

function sdistError(fileName: string, reason: string): InvalidDistributionFileNameError {
  return new InvalidDistributionFileNameError('sdist', fileName, reason);
}

/**
 * Parse an sdist file name, `{name}-{version}{extension}`. Without `project`, the name ends at the
 * last "-" (a PEP 440 version has none), as packaging reads it. Legacy names can hold a "-" in the
 * version (`foo-1.0-1.tar.gz` is `foo 1.0-1` or `foo-1-0 1`?); given the project the file was listed
 * under, the name is the prefix that normalises to it, as pip decides.
 */
export function parseSdistFileName(fileName: string, options: { project?: string } = {}): SdistFileName {
  const extension = sdistExtension(fileName);
  if (extension === undefined) throw sdistError(fileName, `the extension is not one of ${SDIST_EXTENSIONS.join(', ')}`);
  const stem = fileName.slice(0, -extension.length);
  let dash = stem.lastIndexOf('-');
  if (options.project !== undefined) {
    const project = normalizePypiName(options.project);
    dash = -1;
    for (let at = stem.indexOf('-'); at >= 0; at = stem.indexOf('-', at + 1)) {
      if (normalizePypiName(stem.slice(0, at)) === project) {
        dash = at;
        break;
      }
    }
    if (dash < 0) throw sdistError(fileName, `the name does not start with the project name "${options.project}" followed by "-"`);
  }
  if (dash < 0) throw sdistError(fileName, 'no "-" separates the name from the version');
  const namePart = stem.slice(0, dash);
  if (namePart === '') throw sdistError(fileName, 'the project name is empty');
  const versionText = stem.slice(dash + 1);
  const version = tryParsePypiVersion(versionText);
  if (!version) throw sdistError(fileName, `"${versionText}" is not a valid version`);
  const name = normalizePypiName(namePart);
  return {
    kind: 'sdist',
    fileName,
    name,
    version,
    versionText,
    extension,
    pep625: extension === '.tar.gz' && namePart === name.replaceAll('-', '_') && versionText === String(version),
  };
}

/**
 * What a file listed on an index is: a wheel, an sdist, or undefined for other kinds (`.egg`,
 * `.exe`, `.msi`, `.rpm`) that an index may list and a resolver ignores. Throws when the file is a
 * wheel or an sdist by its extension but its name is malformed.
 */
export function parseDistributionFileName(fileName: string, options: { project?: string } = {}): DistributionFileName | undefined {
  if (fileName.endsWith('.whl')) return parseWheelFileName(fileName);
  if (sdistExtension(fileName) !== undefined) return parseSdistFileName(fileName, options);
  return undefined;
}
