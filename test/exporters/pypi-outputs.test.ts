/**
 * What the environment formats and pylock.toml write for a resolve with PyPI distributions:
 * environment.yml/.json's pinned `pip:` list (as `conda env export` writes one), explicit's
 * refusal (as conda's explicit exporter refuses external packages), and PEP 751's pylock.toml,
 * read back with a TOML parser and checked field by field against the PEP.
 */
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { exportEnvironmentJson } from '../../src/exporters/environment-json.js';
import { exportEnvironmentYaml } from '../../src/exporters/environment-yaml.js';
import { exportExplicit } from '../../src/exporters/explicit.js';
import { exportPylock } from '../../src/exporters/pylock.js';
import { registerBuiltinExporters } from '../../src/exporters/builtin.js';
import type { ExportEnvironment } from '../../src/exporters/types.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import { thrown } from '../helpers/thrown.js';
import { CONTEXT } from './reference-records.js';

function conda(name: string, version: string, subdir: string): PackageRecord {
  const fn = `${name}-${version}-h0_0.conda`;
  return {
    name,
    version,
    build: 'h0_0',
    build_number: 0,
    channel: 'conda-forge',
    subdir,
    fn,
    url: `https://conda.anaconda.org/conda-forge/${subdir}/${fn}`,
    md5: null,
    sha256: null,
    size: null,
    depends: [],
    constrains: [],
    track_features: [],
    features: null,
    license: null,
    license_family: null,
    noarch: null,
    timestamp: null,
  };
}

function wheel(name: string, version: string, filename: string, depends: string[] = []): PypiRecord {
  return {
    manager: 'pip',
    md5: null,
    name,
    version,
    filename,
    url: `https://files.example/packages/${filename}`,
    index: 'https://pypi.org/simple',
    sha256: `${'ab'.repeat(31)}${filename.length.toString(16).padStart(2, '0')}`,
    hashes: { sha256: `${'ab'.repeat(31)}${filename.length.toString(16).padStart(2, '0')}` },
    size: 1234,
    upload_time: '2024-11-01T10:00:00.123456Z',
    yanked: false,
    requires_dist: depends,
    requires_python: '>=3.8',
    extras: [],
    depends,
  };
}

function env(platform: string, pypi: PypiRecord[]): ExportEnvironment {
  return { platform, channels: ['conda-forge'], records: [conda('python', '3.12.7', platform), conda('pip', '24.3.1', 'noarch')], pypi };
}

const RICH = wheel('rich', '13.9.4', 'rich-13.9.4-py3-none-any.whl', ['markdown-it-py', 'pygments']);
const PYGMENTS = wheel('Pygments', '2.18.0', 'pygments-2.18.0-py3-none-any.whl');
const MDIT = wheel('markdown-it-py', '3.0.0', 'markdown_it_py-3.0.0-py3-none-any.whl');

describe('environment formats with PyPI packages', () => {
  it('environment.yml ends its dependencies with a pinned pip: list, as conda env export writes it', () => {
    expect(exportEnvironmentYaml(env('linux-64', [MDIT, PYGMENTS, RICH]))).toBe(
      [
        'name:',
        'dependencies:',
        '  - python=3.12.7=h0_0',
        '  - pip=24.3.1=h0_0',
        '  - pip:',
        '      - markdown-it-py==3.0.0',
        '      - Pygments==2.18.0',
        '      - rich==13.9.4',
        '',
      ].join('\n'),
    );
  });

  it('environment.json the same model', () => {
    expect(JSON.parse(exportEnvironmentJson(env('linux-64', [RICH])))).toEqual({
      name: null,
      dependencies: ['python=3.12.7=h0_0', 'pip=24.3.1=h0_0', { pip: ['rich==13.9.4'] }],
    });
  });

  it("explicit refuses, with conda's message for external packages", () => {
    expect(thrown(() => exportExplicit(env('linux-64', [RICH]), CONTEXT))).toMatchObject({
      code: 'CR_ERR_EXPORT_EXPLICIT_EXTERNAL_PACKAGES',
      message:
        'Cannot export explicit format: environment contains external packages that cannot be represented in explicit format. Use a different format to include external packages.',
    });
  });
});

describe('pylock (PEP 751)', () => {
  it('is found by -o pylock.toml and its aliases', () => {
    const registry = registerBuiltinExporters();
    expect(registry.get('pylock.toml').name).toBe('pylock');
    expect(registry.get('pep751').name).toBe('pylock');
  });

  it('one platform: every field the PEP requires, in the PEP example order', () => {
    const text = exportPylock([env('linux-64', [RICH, MDIT, PYGMENTS])], CONTEXT);
    const doc = parse(text) as Record<string, unknown>;
    expect(doc['lock-version']).toBe('1.0');
    expect(doc['created-by']).toBe(CONTEXT.toolName);
    expect(doc['requires-python']).toBe('==3.12.*');
    expect(doc.environments).toBeUndefined();
    const packages = doc.packages as Record<string, unknown>[];
    expect(packages.map((p) => p.name)).toEqual(['markdown-it-py', 'Pygments', 'rich']);
    const rich = packages[2]!;
    expect(rich).toMatchObject({
      name: 'rich',
      version: '13.9.4',
      'requires-python': '>=3.8',
      index: 'https://pypi.org/simple',
      dependencies: [{ name: 'markdown-it-py' }, { name: 'pygments' }],
    });
    expect(rich.marker).toBeUndefined();
    const wheels = rich.wheels as Record<string, unknown>[];
    expect(wheels).toHaveLength(1);
    expect(wheels[0]).toMatchObject({
      name: 'rich-13.9.4-py3-none-any.whl',
      url: 'https://files.example/packages/rich-13.9.4-py3-none-any.whl',
      size: 1234,
      hashes: { sha256: RICH.sha256 },
    });
    // A TOML offset date-time, not a string (PEP 751 packages.wheels.upload-time).
    expect(wheels[0]!['upload-time']).toBeInstanceOf(Date);
    expect(text).toContain('upload-time = 2024-11-01T10:00:00.123Z');
    expect(text.split('\n').slice(0, 3)).toEqual([
      'lock-version = "1.0"',
      'requires-python = "==3.12.*"',
      `created-by = "${CONTEXT.toolName}"`,
    ]);
  });

  it('several platforms: environments lists their markers; a version on one platform only gets its marker; one version on all lists each platform wheel', () => {
    const numpyLinux = wheel('numpy', '2.1.3', 'numpy-2.1.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl');
    const numpyMac = wheel('numpy', '2.1.3', 'numpy-2.1.3-cp312-cp312-macosx_14_0_arm64.whl');
    const numpyWin = wheel('numpy', '2.0.2', 'numpy-2.0.2-cp312-cp312-win_amd64.whl');
    const colorama = wheel('colorama', '0.4.6', 'colorama-0.4.6-py2.py3-none-any.whl');
    const doc = parse(
      exportPylock([env('linux-64', [numpyLinux]), env('osx-arm64', [numpyMac]), env('win-64', [colorama, numpyWin])], CONTEXT),
    ) as Record<string, unknown>;
    expect(doc.environments).toEqual([
      "sys_platform == 'linux' and platform_machine == 'x86_64'",
      "sys_platform == 'darwin' and platform_machine == 'arm64'",
      "sys_platform == 'win32' and platform_machine == 'AMD64'",
    ]);
    const packages = doc.packages as Record<string, unknown>[];
    expect(packages.map((p) => `${p.name as string} ${p.version as string} ${(p.marker as string | undefined) ?? '-'}`)).toEqual([
      "colorama 0.4.6 sys_platform == 'win32' and platform_machine == 'AMD64'",
      "numpy 2.1.3 (sys_platform == 'linux' and platform_machine == 'x86_64') or (sys_platform == 'darwin' and platform_machine == 'arm64')",
      "numpy 2.0.2 sys_platform == 'win32' and platform_machine == 'AMD64'",
    ]);
    expect((packages[1]!.wheels as { name: string }[]).map((w) => w.name)).toEqual([numpyMac.filename, numpyLinux.filename]);
  });

  it('refuses an environment with no PyPI packages', () => {
    expect(
      thrown(() => exportPylock([{ platform: 'linux-64', channels: [], records: [conda('python', '3.12.7', 'linux-64')] }], CONTEXT)),
    ).toMatchObject({ code: 'CR_ERR_EXPORT_PYLOCK' });
  });
});
