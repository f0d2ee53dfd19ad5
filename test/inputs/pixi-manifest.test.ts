/**
 * The pixi manifest reader: what each environment asks for (channels in pixi's order, platforms
 * narrowed by features, target-specific specs by selector, system requirements as virtual
 * packages, pyproject's tool.pixi), and clear errors naming the field for a bad manifest.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputFileError } from '../../src/errors.js';
import { parseInputFile } from '../../src/inputs/index.js';
import { isPixiManifest, parsePixiManifest } from '../../src/inputs/pixi-manifest.js';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';

const WORKSPACE = `
[workspace]
name = "demo"
channels = ["conda-forge", { channel = "bioconda", priority = -1 }]
platforms = ["linux-64", "osx-arm64", "win-64"]
channel-priority = "disabled"
exclude-newer = 2024-01-31

[dependencies]
python = ">=3.11"
numpy = { version = "1.26.*", build = "py311*" }
pandas = "*"

[target.unix.dependencies]
readline = "8.*"

[target.linux.dependencies]
readline = "8.2.*"

[target.linux-64.dependencies]
python = "3.12.*"

[system-requirements]
linux = "5.10"
libc = { family = "glibc", version = "2.28" }
cuda = "12"

[pypi-dependencies]
flask = "*"

[feature.cuda]
channels = [{ channel = "nvidia", priority = 5 }]
platforms = ["linux-64", "win-64"]

[feature.cuda.dependencies]
cuda-version = "12.*"

[feature.cuda.system-requirements]
cuda = "12.4"

[feature.lint.dependencies]
ruff = "*"

[environments]
cuda = ["cuda"]
lint = { features = ["lint"], no-default-feature = true }
`;

describe('pixi.toml', () => {
  const manifest = parsePixiManifest('pixi.toml', WORKSPACE);
  const env = (name: string) => manifest.environments.get(name)!;
  const texts = (specs: readonly { spec: string }[]) => specs.map((s) => s.spec);

  it('defines default first, then the named environments', () => {
    expect([...manifest.environments.keys()]).toEqual(['default', 'cuda', 'lint']);
  });

  it('the default environment: channels, platforms, specs as MatchSpecs, priority and date', () => {
    const d = env('default');
    expect(d.channels).toEqual(['conda-forge', 'bioconda']);
    expect(d.platforms).toEqual(['linux-64', 'osx-arm64', 'win-64']);
    expect(texts(d.specs)).toEqual(['python >=3.11', 'numpy 1.26.* py311*', 'pandas']);
    for (const spec of d.specs) expect(() => parseMatchSpec(spec.spec)).not.toThrow();
    expect(d.channelPriority).toBe('disabled');
    expect(d.excludeNewer).toMatch(/^2024-01-31/);
  });

  it('targets: the most specific selector wins per name, per platform; untouched platforms keep the base list', () => {
    const d = env('default');
    expect(texts(d.platformSpecs.get('linux-64')!)).toEqual(['python 3.12.*', 'numpy 1.26.* py311*', 'pandas', 'readline 8.2.*']);
    expect(texts(d.platformSpecs.get('osx-arm64')!)).toEqual(['python >=3.11', 'numpy 1.26.* py311*', 'pandas', 'readline 8.*']);
    expect(d.platformSpecs.has('win-64')).toBe(false);
  });

  it('system-requirements become virtual packages on the platforms they concern; a feature overrides', () => {
    expect(env('default').virtualPackages.get('linux-64')).toEqual(['__linux=5.10', '__glibc=2.28', '__cuda=12']);
    expect(env('default').virtualPackages.has('osx-arm64')).toBe(false);
    expect(env('default').virtualPackages.get('win-64')).toEqual(['__cuda=12']);
    expect(env('cuda').virtualPackages.get('linux-64')).toEqual(['__linux=5.10', '__glibc=2.28', '__cuda=12.4']);
  });

  it('a feature adds its channels by priority, narrows the platforms and adds its specs after the default ones', () => {
    const c = env('cuda');
    expect(c.channels).toEqual(['nvidia', 'conda-forge', 'bioconda']);
    expect(c.platforms).toEqual(['linux-64', 'win-64']);
    expect(texts(c.specs)).toEqual(['python >=3.11', 'numpy 1.26.* py311*', 'pandas', 'cuda-version 12.*']);
  });

  it('no-default-feature leaves the default feature out (and with it the workspace channels)', () => {
    const l = env('lint');
    expect(texts(l.specs)).toEqual(['ruff']);
    expect(l.channels).toEqual([]);
  });

  it('pypi-dependencies are read as PyPI requirements', () => {
    expect(manifest.warnings).toEqual([]);
    expect(manifest.environments.get('default')!.pypi?.map((r) => r.requirement)).toEqual(['flask']);
  });

  it('as an input file: -e picks the environment; an unknown one names those defined', () => {
    const input = parseInputFile('pixi.toml', WORKSPACE, { environment: 'cuda' });
    expect(input.kind).toBe('manifest');
    expect(input.manifest?.environment).toBe('cuda');
    expect(input.platforms).toEqual(['linux-64', 'win-64']);
    expect(() => parseInputFile('pixi.toml', WORKSPACE, { environment: 'docs' })).toThrow(
      'Cannot use environment "docs" of "pixi.toml": it defines only "default", "cuda", "lint"',
    );
  });
});

describe('pyproject.toml with [tool.pixi]', () => {
  const text = `
[project]
name = "pkg"
requires-python = ">= 3.10"
dependencies = ["requests", "rich"]

[tool.pixi.project]
channels = ["conda-forge"]
platforms = ["linux-64"]

[tool.pixi.dependencies]
numpy = "*"
`;

  it('is recognised by content; requires-python becomes a python spec; project.dependencies are PyPI requirements', () => {
    expect(isPixiManifest('pyproject.toml', text)).toBe(true);
    expect(isPixiManifest('pyproject.toml', '[project]\nname = "x"\n')).toBe(false);
    const m = parsePixiManifest('pyproject.toml', text);
    expect(m.environments.get('default')!.specs.map((s) => s.spec)).toEqual(['numpy', 'python >=3.10']);
    expect(m.warnings).toEqual([]);
    expect(m.environments.get('default')!.pypi?.map((r) => r.requirement)).toEqual(['requests', 'rich']);
  });
});

describe('bad manifests: an InputFileError naming the field', () => {
  const failure = (text: string, name = 'pixi.toml') => {
    try {
      parsePixiManifest(name, text);
    } catch (error) {
      return error as InputFileError;
    }
    throw new Error('no error');
  };
  const head = '[workspace]\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n';

  it.each([
    ['[workspace\n', /Invalid TOML document.* at line 1, column \d+$/],
    ['[dependencies]\npython = "3"\n', /it has no \[workspace\] \(or \[project\]\) table$/],
    [`${head}[dependencies]\npython = 3\n`, /dependencies\.python must be a version string or a table$/],
    [`${head}[dependencies]\nlocal = { path = "./pkg" }\n`, /dependencies\.local is a source package/],
    [`${head}[target.linux-65.dependencies]\nx = "*"\n`, /target\.linux-65: "linux-65" is neither a platform nor one of unix, linux/],
    [`${head}[environments]\ndev = ["nope"]\n`, /environment "dev" names feature "nope", which the manifest does not define$/],
    [`${head}[system-requirements]\nmacos = true\n`, /system-requirements\.macos must be a version$/],
  ])('%#: %s', (text, message) => {
    const error = failure(text);
    expect(error).toBeInstanceOf(InputFileError);
    expect(error.code).toBe('CR_ERR_INPUT_MANIFEST');
    expect(error.message).toMatch(message);
  });

  it('any text either parses or fails with CR_ERR_INPUT_MANIFEST, never another error', () => {
    const pieces = fc.constantFrom(
      '[workspace]\n',
      'channels = ["c"]\n',
      'platforms = ["linux-64"]\n',
      '[dependencies]\n',
      'a = "1.*"\n',
      'b = { version = 2 }\n',
      '[feature.f.dependencies]\n',
      '[environments]\n',
      'e = ["f"]\n',
      'e = 3\n',
      '[target.osx.dependencies]\n',
      '[system-requirements]\n',
      'libc = "2.17"\n',
      'cuda = []\n',
      '= broken\n',
      '[tool.pixi.workspace]\n',
      'platforms = "linux-64"\n',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), fc.constantFrom('pixi.toml', 'pyproject.toml'), (parts, name) => {
        try {
          const m = parsePixiManifest(name, parts.join(''));
          expect(m.environments.has('default')).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(InputFileError);
          expect((error as InputFileError).code).toBe('CR_ERR_INPUT_MANIFEST');
        }
      }),
    );
  });
});
