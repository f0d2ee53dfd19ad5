import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidCoreMetadataError } from '../../../vocabulary/pypi/distribution-errors.js';
import { parseCoreMetadata, requiresDistOf } from '../../../vocabulary/pypi/core-metadata.js';
import { thrown as thrownBy } from '../../helpers/thrown.js';
import { thirdPartyText } from '../../helpers/third-party.js';

// Real METADATA files copied from this machine's site-packages (fixtures/pypi/metadata/README.md).
const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/pypi/metadata/${name}.METADATA`, import.meta.url));
// pypa/packaging's tests/metadata/everything.metadata, every field of the spec (test/THIRD-PARTY-DATA.md).
const everything = thirdPartyText('pypa-packaging/everything.metadata');

function thrown(fn: () => unknown): InvalidCoreMetadataError {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(InvalidCoreMetadataError);
  return error as InvalidCoreMetadataError;
}

describe('core metadata of real wheels', () => {
  it('reads requirements with markers and extras (jinja2, Metadata-Version 2.4)', () => {
    const metadata = parseCoreMetadata(fixture('jinja2-3.1.6'), 'jinja2-3.1.6.dist-info/METADATA');
    expect(metadata).toMatchObject({
      metadataVersion: '2.4',
      displayName: 'Jinja2',
      name: 'jinja2',
      versionText: '3.1.6',
      requiresDist: ['MarkupSafe>=2.0', 'Babel>=2.7 ; extra == "i18n"'],
      requiresPython: '>=3.7',
      providesExtra: ['i18n'],
      dynamic: [],
      staticDependencies: true,
      newerMetadataVersion: false,
    });
    expect(String(metadata.version)).toBe('3.1.6');
    expect(metadata.requiresPythonSpecifier?.contains('3.12')).toBe(true);
    expect(metadata.requiresPythonSpecifier?.contains('3.6')).toBe(false);
    expect(metadata.projectUrls).toContainEqual({ label: 'Source', url: 'https://github.com/pallets/jinja/' });
  });

  it('keeps the license fields (cffi: License-Expression and License-File, 2.4)', () => {
    const metadata = parseCoreMetadata(fixture('cffi-2.0.0'), 'cffi');
    expect(metadata).toMatchObject({
      licenseExpression: 'MIT',
      licenseFiles: ['LICENSE', 'AUTHORS'],
      requiresDist: ['pycparser; implementation_name != "PyPy"'],
      dynamic: ['license-file'],
    });
    expect(metadata.staticDependencies).toBe(true);
  });

  it('says the dependencies need a build when Requires-Python is Dynamic (certifi)', () => {
    const metadata = parseCoreMetadata(fixture('certifi-2026.5.20'), 'certifi');
    expect(metadata.dynamic).toContain('requires-python');
    expect(metadata.requiresPython).toBe('>=3.7');
    expect(metadata.staticDependencies).toBe(false);
    expect(metadata.license).toBe('MPL-2.0');
  });

  it('reads older Metadata-Versions, whose dependencies are never static (2.0, 2.1, 2.2, 2.3)', () => {
    expect(parseCoreMetadata(fixture('pickleshare-0.7.5'), 'pickleshare')).toMatchObject({
      metadataVersion: '2.0',
      name: 'pickleshare',
      staticDependencies: false,
    });
    expect(parseCoreMetadata(fixture('antlr4_python3_runtime-4.13.2'), 'antlr4')).toMatchObject({
      metadataVersion: '2.1',
      name: 'antlr4-python3-runtime',
      requiresDist: ['typing ; python_version < "3.5"'],
      license: 'BSD',
      staticDependencies: false,
    });
    expect(parseCoreMetadata(fixture('decorator-5.2.1'), 'decorator')).toMatchObject({ metadataVersion: '2.2', staticDependencies: true });
    expect(parseCoreMetadata(fixture('blinker-1.9.0'), 'blinker')).toMatchObject({ metadataVersion: '2.3', requiresPython: '>=3.9' });
  });

  it('reads Metadata-Version 1.0 and 1.1 files, which have no Requires-Dist', () => {
    const metadata = parseCoreMetadata(
      'Metadata-Version: 1.1\nName: old\nVersion: 0.1\nSummary: An old one\nRequires: other\n',
      'old/PKG-INFO',
    );
    expect(metadata).toMatchObject({ metadataVersion: '1.1', requiresDist: [], staticDependencies: false, summary: 'An old one' });
    expect(metadata.fields.get('requires')).toEqual(['other']);
  });

  it('reads requests: extras with their requirements, two License-File lines', () => {
    const metadata = parseCoreMetadata(fixture('requests-2.34.2'), 'requests');
    expect(
      requiresDistOf(metadata).map((requirement) => [requirement.name, requirement.extras, String(requirement.specifier)]),
    ).toContainEqual(['PySocks', [], '!=1.5.7,>=1.5.6']);
    expect(metadata.requiresDist).toContain('PySocks!=1.5.7,>=1.5.6; extra == "socks"');
    expect(metadata.providesExtra).toEqual(['security', 'socks', 'use-chardet-on-py3']);
    expect(metadata.licenseFiles).toEqual(['LICENSE', 'NOTICE']);
  });
});

describe.skipIf(everything === undefined)("packaging's everything.metadata", () => {
  const metadata = parseCoreMetadata(everything ?? 'Metadata-Version: 2.1\nName: absent\nVersion: 0\n', 'everything.metadata');

  it('reads a newer minor Metadata-Version (2.6) and says so', () => {
    expect(metadata.metadataVersion).toBe('2.6');
    expect(metadata.newerMetadataVersion).toBe(true);
  });

  it('reads every dependency field, old-style parenthesised versions included', () => {
    expect(metadata.requiresDist).toEqual([
      "reportlab; extra == 'pdf'",
      'pkginfo',
      'PasteDeploy',
      'zope.interface (>3.5.0)',
      "pywin32 >1.0; sys_platform == 'win32'",
    ]);
    expect(metadata.requiresPython).toBe('>=3');
    expect(metadata.providesExtra).toEqual(['pdf']);
    expect(metadata.dynamic).toEqual(['Obsoletes-Dist']);
    expect(metadata.staticDependencies).toBe(true);
  });

  it('keeps a folded License with its line breaks, and fields it does not lift out', () => {
    expect(metadata.license).toBe(
      'This software may only be obtained by sending the\n        author a postcard, and then the user promises not\n        to redistribute it.',
    );
    expect(metadata.licenseExpression).toBe('Apache-2.0 OR BSD-2-Clause');
    expect(metadata.homePage).toBe('http://www.example.com/~cschultz/bvote/');
    expect(metadata.fields.get('thisisnotreal')).toEqual(['Hello!']);
    expect(metadata.fields.get('requires-external')).toEqual(['C', 'libpng (>=1.5)', 'make; sys_platform != "win32"']);
  });

  it('ignores the body', () => {
    expect(metadata.fields.has('description')).toBe(false);
  });
});

describe('malformed core metadata', () => {
  const base = 'Metadata-Version: 2.1\nName: foo\nVersion: 1.0\n';

  it('names the file and the line of a line that is no field', () => {
    const error = thrown(() => parseCoreMetadata(`${base}Requires-Dist: bar\nthis is not a header\n`, 'foo-1.0.dist-info/METADATA'));
    expect(error.code).toBe('CR_ERR_PYPI_METADATA_INVALID');
    expect(error.line).toBe(5);
    expect(error.message).toBe(
      'Invalid core metadata in foo-1.0.dist-info/METADATA, line 5: expected "Field: value", found "this is not a header"',
    );
  });

  it('refuses a continuation line before any field', () => {
    expect(thrown(() => parseCoreMetadata(' Name: foo\n', 'PKG-INFO')).line).toBe(1);
  });

  it('refuses missing and repeated required fields', () => {
    expect(thrown(() => parseCoreMetadata('Name: foo\nVersion: 1.0\n', 'PKG-INFO')).message).toBe(
      'Invalid core metadata in PKG-INFO: the required field "Metadata-Version" is missing',
    );
    expect(thrown(() => parseCoreMetadata('Metadata-Version: 2.1\nVersion: 1.0\n', 'PKG-INFO')).message).toContain('"Name" is missing');
    const repeated = thrown(() => parseCoreMetadata(`${base}Name: bar\n`, 'PKG-INFO'));
    expect(repeated.line).toBe(4);
    expect(repeated.message).toContain('the field "name" appears again (first on line 2)');
  });

  it('refuses a bad name, version or Metadata-Version, on its line', () => {
    expect(thrown(() => parseCoreMetadata('Metadata-Version: 2.1\nName: -foo\nVersion: 1.0\n', 'M')).line).toBe(2);
    expect(thrown(() => parseCoreMetadata('Metadata-Version: 2.1\nName: foo\nVersion: 1.x\n', 'M')).message).toBe(
      'Invalid core metadata in M, line 3: "1.x" is not a valid version (PEP 440)',
    );
    expect(thrown(() => parseCoreMetadata('Metadata-Version: 3.0\nName: foo\nVersion: 1.0\n', 'M')).message).toContain(
      'Metadata-Version 3.0 is not supported',
    );
    expect(thrown(() => parseCoreMetadata('Metadata-Version: two\nName: foo\nVersion: 1.0\n', 'M')).message).toContain(
      'is not MAJOR.MINOR',
    );
  });

  it('refuses a Requires-Python that is not a specifier, on its line', () => {
    const error = thrown(() => parseCoreMetadata(`${base}Requires-Python: >=3.6.*\n`, 'PKG-INFO'));
    expect(error.line).toBe(4);
    expect(error.message).toBe('Invalid core metadata in PKG-INFO, line 4: Requires-Python ">=3.6.*" is not a version specifier (PEP 440)');
  });

  it('keeps the line of every value, and names the line of a bad Requires-Dist', () => {
    const metadata = parseCoreMetadata(`${base}Requires-Dist: a\nSummary: s\nRequires-Dist: b (\n`, 'M');
    expect(metadata.lines.get('requires-dist')).toEqual([4, 6]);
    const error = thrown(() => requiresDistOf(metadata));
    expect(error.line).toBe(6);
    expect(error.message).toMatch(/^Invalid core metadata in M, line 6: Requires-Dist "b \(" is not a valid requirement \(PEP 508\): /);
  });

  it('refuses Name or Version marked Dynamic', () => {
    const error = thrown(() => parseCoreMetadata(`${base}Dynamic: Version\n`, 'PKG-INFO'));
    expect(error.line).toBe(4);
    expect(error.message).toContain('"Version" cannot be Dynamic');
  });

  it('refuses an empty file', () => {
    expect(thrown(() => parseCoreMetadata('', 'empty/METADATA')).message).toContain('"Metadata-Version" is missing');
  });
});

describe('the email-header format', () => {
  it('takes CRLF line ends, a BOM, and folded values', () => {
    const text =
      '\ufeffMetadata-Version: 2.2\r\nName: foo\r\nVersion: 1.0\r\nRequires-Dist: bar>=1;\r\n  python_version < "3.9"\r\n\r\nbody: not a field\r\n';
    const metadata = parseCoreMetadata(new TextEncoder().encode(text), 'foo');
    expect(metadata.requiresDist).toEqual(['bar>=1; python_version < "3.9"']);
    expect(metadata.staticDependencies).toBe(true);
  });

  it('reads field names in any case', () => {
    expect(parseCoreMetadata('metadata-version: 2.3\nNAME: Foo.Bar\nversion: 1.0\nrequires-dist: x\n', 'f')).toMatchObject({
      name: 'foo-bar',
      requiresDist: ['x'],
    });
  });

  it('treats Requires-Dist marked Dynamic in an sdist as needing a build', () => {
    expect(
      parseCoreMetadata(`Metadata-Version: 2.2\nName: foo\nVersion: 1.0\nDynamic: Requires-Dist\n`, 'PKG-INFO').staticDependencies,
    ).toBe(false);
  });
});
