/**
 * Core metadata (METADATA in a wheel, PKG-INFO in an sdist, the PEP 658 `.metadata` file): the
 * email-header format of https://packaging.python.org/specifications/core-metadata/, Metadata-Version
 * 1.0 to 2.5. Only the header block is read: the body after the first blank line is the long
 * description, which a resolver never needs.
 *
 * The lines are read as Python's `email.parser` (compat32 policy, which `packaging.metadata` uses)
 * reads them: `Field: value`, continuation lines begin with a space or a tab and keep their line
 * break. What `packaging.metadata` would leave unparsed, or refuse when validating (a line that is no
 * field, a missing or repeated Name, Version or Metadata-Version, a newer major Metadata-Version,
 * Name or Version marked Dynamic), is an `InvalidCoreMetadataError` naming the file and the line.
 */
import { InvalidCoreMetadataError } from './distribution-errors.js';
import { isValidPypiName, normalizePypiName, type NormalizedPypiName } from './name.js';
import { InvalidPypiRequirementError, parseRequirement, type PypiRequirement } from './requirement.js';
import { tryParsePypiSpecifierSet, type PypiSpecifierSet } from './specifier.js';
import { tryParsePypiVersion, type PypiVersion } from './version.js';

/** A `Project-URL: label, url` entry. */
export interface ProjectUrl {
  readonly label: string;
  readonly url: string;
}

export interface CoreMetadata {
  /** The name the caller gave the file (a URL, `numpy-2.1.3.dist-info/METADATA`), used in errors. */
  readonly file: string;
  /** As written: `2.1`, `2.4`. */
  readonly metadataVersion: string;
  /**
   * True when the Metadata-Version is a newer 2.x than this module knows: read, as the spec allows,
   * but fields it added are not understood.
   */
  readonly newerMetadataVersion: boolean;
  /** The name as written (`Jinja2`), and normalised by PEP 503 (`jinja2`). */
  readonly displayName: string;
  readonly name: NormalizedPypiName;
  readonly version: PypiVersion;
  readonly versionText: string;
  /** Each `Requires-Dist` as written (PEP 508 requirements; continuation lines joined with a space). */
  readonly requiresDist: readonly string[];
  /** The `Requires-Python` specifier as written and parsed, or undefined. */
  readonly requiresPython: string | undefined;
  readonly requiresPythonSpecifier: PypiSpecifierSet | undefined;
  readonly providesExtra: readonly string[];
  /** Fields the `Dynamic` entries name (Metadata-Version 2.2, PEP 643), as written. */
  readonly dynamic: readonly string[];
  /**
   * Whether the dependency fields can be trusted without a build: Metadata-Version 2.2 or newer and
   * none of Requires-Dist, Requires-Python, Provides-Extra marked Dynamic (PEP 643). Always true in
   * a wheel's METADATA; it matters for an sdist's PKG-INFO.
   */
  readonly staticDependencies: boolean;
  readonly summary: string | undefined;
  /** The free-text License field (line breaks kept), and the SPDX `License-Expression` of 2.4 (PEP 639). */
  readonly license: string | undefined;
  readonly licenseExpression: string | undefined;
  readonly licenseFiles: readonly string[];
  readonly homePage: string | undefined;
  readonly projectUrls: readonly ProjectUrl[];
  /** Every field by its lower-cased name, each value as written, for fields this type does not lift out. */
  readonly fields: ReadonlyMap<string, readonly string[]>;
  /** The line of each value of `fields`, so a caller that finds a bad value (a Requires-Dist) can name it. */
  readonly lines: ReadonlyMap<string, readonly number[]>;
}

/** The newest Metadata-Version this module knows (2.5, PEP 794). */
const KNOWN_MAJOR = 2;
const KNOWN_MINOR = 5;

/** Fields that must appear once: a second one is an error rather than a guess. */
const SINGLE = new Set(['metadata-version', 'name', 'version', 'requires-python']);
/** Fields whose dynamic marking means a build is needed to know the dependencies. */
const DEPENDENCY_FIELDS = ['requires-dist', 'requires-python', 'provides-extra'];
/** Fields the spec forbids in Dynamic. */
const NEVER_DYNAMIC = new Set(['name', 'version', 'metadata-version']);

// A field name is printable ASCII other than the colon (RFC 5322 section 2.2).
const FIELD_LINE = /^([\x21-\x39\x3b-\x7e]+):[ \t]*(.*)$/s;
const METADATA_VERSION = /^([0-9]+)\.([0-9]+)$/;

interface Field {
  readonly name: string;
  readonly value: string;
  readonly line: number;
}

function decode(data: string | Uint8Array): string {
  const text = typeof data === 'string' ? data : new TextDecoder('utf-8').decode(data);
  return text.startsWith('\ufeff') ? text.slice(1) : text;
}

/** The header block as fields in order; stops at the first empty line. */
function readFields(text: string, file: string): Field[] {
  const fields: { name: string; value: string; line: number }[] = [];
  const lines = text.split(/\r\n|\n|\r/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line === '') break;
    if (line[0] === ' ' || line[0] === '\t') {
      const current = fields.at(-1);
      if (current === undefined)
        throw new InvalidCoreMetadataError(file, index + 1, 'a continuation line (one that starts with a space) comes before any field');
      current.value += `\n${line}`;
      continue;
    }
    const match = FIELD_LINE.exec(line);
    if (!match) {
      throw new InvalidCoreMetadataError(
        file,
        index + 1,
        `expected "Field: value", found ${JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}...` : line)}`,
      );
    }
    fields.push({ name: match[1]!.toLowerCase(), value: match[2]!, line: index + 1 });
  }
  return fields;
}

/** A folded value on one line: continuation breaks become a space (for requirements, names, specifiers). */
function unfold(value: string): string {
  return value.replace(/\n[ \t]+/g, ' ').trim();
}

function parseProjectUrl(value: string): ProjectUrl {
  const comma = value.indexOf(',');
  if (comma < 0) return { label: '', url: value.trim() };
  return { label: value.slice(0, comma).trim(), url: value.slice(comma + 1).trim() };
}

/**
 * Parse a METADATA or PKG-INFO file. `file` names it in errors. Throws `InvalidCoreMetadataError`.
 */
export function parseCoreMetadata(data: string | Uint8Array, file: string): CoreMetadata {
  const fields = readFields(decode(data), file);
  const byName = new Map<string, Field[]>();
  for (const field of fields) {
    const list = byName.get(field.name);
    if (list === undefined) byName.set(field.name, [field]);
    else {
      if (SINGLE.has(field.name)) {
        throw new InvalidCoreMetadataError(
          file,
          field.line,
          `the field "${field.name}" appears again (first on line ${list[0]!.line}); it may appear once`,
        );
      }
      list.push(field);
    }
  }
  const first = (name: string): Field | undefined => byName.get(name)?.[0];
  const all = (name: string): string[] => (byName.get(name) ?? []).map((field) => unfold(field.value));
  const required = (name: string, label: string): Field => {
    const field = first(name);
    if (field === undefined) throw new InvalidCoreMetadataError(file, undefined, `the required field "${label}" is missing`);
    return field;
  };

  const versionField = required('metadata-version', 'Metadata-Version');
  const metadataVersion = unfold(versionField.value);
  const versionMatch = METADATA_VERSION.exec(metadataVersion);
  if (!versionMatch)
    throw new InvalidCoreMetadataError(file, versionField.line, `Metadata-Version "${metadataVersion}" is not MAJOR.MINOR`);
  const major = Number(versionMatch[1]);
  const minor = Number(versionMatch[2]);
  // The spec: tools must fail on a newer major version, and may read a newer minor one.
  if (major > KNOWN_MAJOR || major < 1) {
    throw new InvalidCoreMetadataError(
      file,
      versionField.line,
      `Metadata-Version ${metadataVersion} is not supported (1.0 to ${KNOWN_MAJOR}.x)`,
    );
  }

  const nameField = required('name', 'Name');
  const displayName = unfold(nameField.value);
  if (!isValidPypiName(displayName))
    throw new InvalidCoreMetadataError(file, nameField.line, `"${displayName}" is not a valid project name`);

  const versionTextField = required('version', 'Version');
  const versionText = unfold(versionTextField.value);
  const version = tryParsePypiVersion(versionText);
  if (!version) throw new InvalidCoreMetadataError(file, versionTextField.line, `"${versionText}" is not a valid version (PEP 440)`);

  const dynamicFields = byName.get('dynamic') ?? [];
  for (const field of dynamicFields) {
    if (NEVER_DYNAMIC.has(unfold(field.value).toLowerCase())) {
      throw new InvalidCoreMetadataError(file, field.line, `"${unfold(field.value)}" cannot be Dynamic`);
    }
  }
  const dynamic = dynamicFields.map((field) => unfold(field.value));
  const dynamicLower = new Set(dynamic.map((name) => name.toLowerCase()));
  const atLeast22 = major > 2 || (major === 2 && minor >= 2);

  const single = (name: string): string | undefined => {
    const field = first(name);
    return field === undefined ? undefined : field.value.trim();
  };
  const requiresPythonField = first('requires-python');
  const requiresPython = requiresPythonField === undefined ? undefined : unfold(requiresPythonField.value);
  const requiresPythonSpecifier = requiresPython === undefined ? undefined : tryParsePypiSpecifierSet(requiresPython);
  if (requiresPython !== undefined && requiresPythonSpecifier === undefined) {
    throw new InvalidCoreMetadataError(
      file,
      requiresPythonField!.line,
      `Requires-Python "${requiresPython}" is not a version specifier (PEP 440)`,
    );
  }

  return {
    file,
    metadataVersion,
    newerMetadataVersion: major === KNOWN_MAJOR && minor > KNOWN_MINOR,
    displayName,
    name: normalizePypiName(displayName),
    version,
    versionText,
    requiresDist: all('requires-dist'),
    requiresPython,
    requiresPythonSpecifier,
    providesExtra: all('provides-extra'),
    dynamic,
    staticDependencies: atLeast22 && DEPENDENCY_FIELDS.every((name) => !dynamicLower.has(name)),
    summary: single('summary'),
    license: single('license'),
    licenseExpression: single('license-expression'),
    licenseFiles: all('license-file'),
    homePage: single('home-page'),
    projectUrls: all('project-url').map(parseProjectUrl),
    fields: new Map([...byName].map(([name, list]) => [name, list.map((field) => field.value)])),
    lines: new Map([...byName].map(([name, list]) => [name, list.map((field) => field.line)])),
  };
}

/**
 * The Requires-Dist entries of `metadata` parsed as PEP 508 requirements. A bad one is an
 * `InvalidCoreMetadataError` naming the file and its line, with the parser's reason.
 */
export function requiresDistOf(metadata: CoreMetadata): PypiRequirement[] {
  const lines = metadata.lines.get('requires-dist') ?? [];
  return metadata.requiresDist.map((text, index) => {
    try {
      return parseRequirement(text);
    } catch (error) {
      if (error instanceof InvalidPypiRequirementError) {
        throw new InvalidCoreMetadataError(
          metadata.file,
          lines[index],
          `Requires-Dist "${text}" is not a valid requirement (PEP 508): ${error.reason}`,
        );
      }
      throw error;
    }
  });
}
