import { describe, expect, it } from 'vitest';
import { parseMarker } from '../../../vocabulary/pypi/markers.js';
import { parseRequirement, tryParseRequirement } from '../../../vocabulary/pypi/requirement.js';
import { packagingVectors } from './vectors.js';

type Basic = { name: string; extras: string[]; specifier: string; url: string | null; marker: string | null; whitespace: string };

/** The requirement text packaging's test_basic_valid_requirement_parsing builds from its parts. */
function build({ name, extras, specifier, url, marker, whitespace: ws }: Basic): string {
  const fill = (s: string) => s.replaceAll('{ws}', ws);
  const parts = [name];
  if (extras.length > 0) parts.push('[', [...extras].sort().join(fill('{ws},{ws}')), ']');
  if (specifier) parts.push(fill(specifier));
  if (url !== null) parts.push('@', fill(url));
  if (marker !== null) parts.push(url !== null ? ' ;' : ';', fill(marker));
  return parts.join(ws);
}

describe('PEP 508 requirements (pypa/packaging vectors)', () => {
  it.each(packagingVectors<Basic>('test_requirements', 'test_basic_valid_requirement_parsing'))(
    'reads $name $extras $specifier $url $marker',
    (v) => {
      const text = build(v);
      const req = parseRequirement(text);
      expect(req.name).toBe(v.name);
      expect(new Set(req.extras)).toEqual(new Set(v.extras));
      expect(req.url).toBe(v.url ?? undefined);
      expect(String(req.specifier)).toBe(String(parseRequirement(`x${v.specifier.replaceAll('{ws}', '')}`).specifier));
      expect(req.marker === undefined ? null : String(req.marker)).toBe(
        v.marker === null ? null : String(parseMarker(v.marker.replaceAll('{ws}', ''))),
      );
    },
  );

  it.each(packagingVectors<{ marker: string }>('test_requirements', 'TestRequirementParsing.test_valid_marker'))(
    'reads the marker $marker',
    ({ marker }) => {
      expect(parseRequirement(`name; ${marker}`).marker).toBeDefined();
    },
  );

  it.each(
    packagingVectors<{ extras: string; url_or_specifier: string; marker: string }>(
      'test_requirements',
      'TestRequirementBehaviour.test_str_and_repr',
    ),
  )('writes name$extras$url_or_specifier$marker back as it was', ({ extras, url_or_specifier, marker }) => {
    const text = `name${extras}${url_or_specifier}${marker}`;
    expect(String(parseRequirement(text))).toBe(text.trim());
  });

  it.each(
    packagingVectors<{ requirement: string; line_break: string }>(
      'test_requirements',
      'TestRequirementParsing.test_error_when_suffixed_with_line_break',
    ),
  )('refuses $requirement followed by a line break', ({ requirement, line_break }) => {
    expect(tryParseRequirement(requirement + line_break)).toBeUndefined();
  });

  // The failure modes of packaging's TestRequirementParsing.test_error_* (tests/test_requirements.py).
  it.each([
    ['demo===x,y', '"y": a specifier starts with one of'],
    ['', 'Expected package name at the start of dependency specifier at position 0'],
    ['==0.0', 'Expected package name at the start of dependency specifier'],
    ['name[bar baz]', 'Expected comma between extra names'],
    ['name[bar, baz,]', 'Expected extra name after comma'],
    ['name (>= 1.0', 'Expected matching RIGHT_PARENTHESIS for LEFT_PARENTHESIS, after version specifier'],
    ['name >= 1.2.3.post4.*', '.* suffix can only be used with `==` or `!=` operators'],
    ['name==1.2.3.post4.*', '.* suffix cannot be used with pre-release, post-release, dev or local versions'],
    ['name >= 1.0+local.version.label', 'Local version label can only be used with `==` or `!=` operators'],
    ['name[bar, baz >= 1.0', 'Expected matching RIGHT_BRACKET for LEFT_BRACKET'],
    ['name[bar, baz', 'Expected matching RIGHT_BRACKET for LEFT_BRACKET'],
    ["name @ https://example.com/; extra == 'example'", 'Expected semicolon (after URL and whitespace) or end'],
    ["name; (extra == 'example'", 'Expected matching RIGHT_PARENTHESIS for LEFT_PARENTHESIS'],
    ['name @ ', 'Expected URL after @'],
    ['name; invalid_name', 'Expected a marker variable or quoted string'],
    ["name; '3.7' <= invalid_name", 'Expected a marker variable or quoted string'],
    ["name; '3.7' notin python_version", 'Expected marker operator'],
    ["name; '3.6'inpython_version", 'Expected marker operator'],
    ["name; '3.7' not python_version", "Expected 'in' after 'not'"],
    ["name; '3.7' ~ python_version", 'Expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in'],
    ['name==1.0.org1', 'Expected comma (within version specifier), semicolon (after version specifier) or end'],
    ['name==', 'Expected semicolon (after name with no version specifier) or end'],
    ['name 1.0', 'Expected semicolon (after name with no version specifier) or end'],
    ['name >= 1.0 #', 'Expected comma (within version specifier), semicolon (after version specifier) or end'],
    ['name >= 1.0 <= 2.0', 'Expected comma (within version specifier), semicolon (after version specifier) or end'],
  ])('refuses %j: %s', (text, message) => {
    let error: unknown;
    try {
      parseRequirement(text);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'CR_ERR_PYPI_REQUIREMENT_INVALID' });
    expect((error as Error).message).toContain(`Cannot parse Python requirement ${JSON.stringify(text)}: `);
    expect((error as Error).message).toContain(message);
  });
});

describe('PEP 508 requirements', () => {
  it('gives the parts as data', () => {
    const req = parseRequirement('Requests[socks, Security] (>=2.31, <3) ; python_version >= "3.8"');
    expect(req.name).toBe('Requests');
    expect(req.normalizedName).toBe('requests');
    expect(req.extras).toEqual(['Security', 'socks']);
    expect(req.specifier.contains('2.32.3')).toBe(true);
    expect(req.specifier.contains('3.0')).toBe(false);
    expect(req.url).toBeUndefined();
    expect(String(req)).toBe('Requests[Security,socks]<3,>=2.31; python_version >= "3.8"');
  });

  it('reads name @ URL with a marker after whitespace', () => {
    const req = parseRequirement('pip @ https://github.com/pypa/pip/archive/1.3.1.zip#sha1=da9234ee ; sys_platform == "linux"');
    expect(req.url).toBe('https://github.com/pypa/pip/archive/1.3.1.zip#sha1=da9234ee');
    expect(req.specifier.isEmpty).toBe(true);
    expect(String(req)).toBe('pip @ https://github.com/pypa/pip/archive/1.3.1.zip#sha1=da9234ee ; sys_platform == "linux"');
  });

  // packaging's test_normalized_requirements (tests/test_requirements.py).
  it.each([
    ['mariadb>=1.0.1; extra == "mariadb_connector"', 'mariadb>=1.0.1; extra == "mariadb-connector"'],
    [
      'mariadb>=1.0.1; python_version >= "3" and extra == "mariadb_connector"',
      'mariadb>=1.0.1; python_version >= "3" and extra == "mariadb-connector"',
    ],
  ])('writes %s with the extra normalised', (text, normalized) => {
    expect(String(parseRequirement(text))).toBe(normalized);
  });

  it('accepts empty extras and an empty specifier', () => {
    expect(parseRequirement('name[]').extras).toEqual([]);
    expect(parseRequirement('name()').specifier.isEmpty).toBe(true);
  });
});
