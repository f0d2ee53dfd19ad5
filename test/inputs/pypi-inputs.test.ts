/**
 * The PyPI parts of input files: environment.yml `pip:` sections and pixi manifests'
 * `[pypi-dependencies]`/`[pypi-options]`/pyproject lists, as a user writes them. The files under
 * fixtures/real are taken unchanged from public repositories (each names its source and commit in
 * its first line).
 */
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseInputFile } from '../../src/inputs/index.js';
import { prepareRequest } from '../../src/request.js';
import { thrown } from '../helpers/thrown.js';
import { thirdPartyPath, thirdPartyText } from '../helpers/third-party.js';

// Real files from conda/conda-lock and prefix-dev/pixi (test/THIRD-PARTY-DATA.md), in ../shared/third-party: absent, their tests skip.
const REAL: Record<string, string> = {
  'conda-lock-test-git.yml': 'conda-lock/tests/test-git/environment.yml',
  'conda-lock-test-local-pip.yml': 'conda-lock/tests/test-local-pip/environment.yml',
  'conda-lock-test-pip-full-url.yml': 'conda-lock/tests/test-pip-full-url/environment.yml',
  'conda-lock-test-pip-hash-checking.yml': 'conda-lock/tests/test-pip-hash-checking/environment.yml',
  'conda-lock-test-pip-repositories.yml': 'conda-lock/tests/test-pip-repositories/environment.yaml',
  'conda-lock-test-pypi-resolve-gh449.yml': 'conda-lock/tests/test-pypi-resolve-gh449/environment.yml',
  'pixi-pypi-custom-registry.toml': 'pixi/examples/pypi-custom-registry/pixi.toml',
  'pixi-pypi-find-links.toml': 'pixi/examples/pypi-find-links/pixi.toml',
  'pixi-pypi-source-deps.toml': 'pixi/examples/pypi-source-deps/pixi.toml',
  'pixi-pypi.toml': 'pixi/examples/pypi/pixi.toml',
  'pyproject-docker.toml': 'pixi/examples/docker/pyproject.toml',
};
const real = (name: string): string => thirdPartyText(REAL[name]!) ?? '';
const haveReal = (...names: string[]): boolean => names.every((name) => thirdPartyPath(REAL[name]!) !== undefined);
const requirements = (file: ReturnType<typeof parseInputFile>) => (file.pypi ?? []).map((r) => r.requirement);

describe('environment.yml pip: sections', () => {
  it('reads requirements with the line they are on, and index options', () => {
    const text = [
      'dependencies:',
      '  - python=3.12',
      '  - pip:',
      '      - --index-url https://example.org/simple',
      '      - --extra-index-url=https://download.pytorch.org/whl/cpu',
      '      - -f ./wheels',
      '      - --pre',
      '      - "rich>=13  # a comment"',
      '      - requests[socks]==2.32.3; python_version >= "3.8"',
      '      - --trusted-host example.org',
      '',
    ].join('\n');
    const file = parseInputFile('envs/environment.yml', text);
    expect(requirements(file)).toEqual(['rich>=13', 'requests[socks]==2.32.3; python_version >= "3.8"']);
    expect(file.pypi![1]).toMatchObject({ at: 'envs/environment.yml, line 9', file: 'envs/environment.yml' });
    // -f is relative to the environment file, as pip reads a requirements file's.
    expect(file.pypiOptions).toEqual({
      indexUrl: 'https://example.org/simple',
      extraIndexUrls: ['https://download.pytorch.org/whl/cpu'],
      findLinks: ['envs/./wheels'],
      prerelease: 'allow',
    });
    expect(file.warnings).toEqual([]);
  });

  it('reads -r FILE relative to the environment file, nested, with continuation lines and options', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cr-pip-'));
    mkdirSync(join(dir, 'env'));
    mkdirSync(join(dir, 'env', 'req'));
    writeFileSync(join(dir, 'env', 'environment.yml'), 'dependencies:\n  - python\n  - pip:\n    - -r req/base.txt\n    - rich\n');
    writeFileSync(
      join(dir, 'env', 'req', 'base.txt'),
      '# base\n--extra-index-url https://extra.example/simple\nnumpy>=1.26 \\\n  --hash=sha256:abcd\n-r more.txt\n',
    );
    writeFileSync(join(dir, 'env', 'req', 'more.txt'), 'attrs==23.2.0\n');
    const readIncluded = (path: string) => readFileSync(join(dir, path), 'utf8');
    const file = parseInputFile('env/environment.yml', readFileSync(join(dir, 'env', 'environment.yml'), 'utf8'), { readIncluded });
    expect(requirements(file)).toEqual(['numpy>=1.26', 'attrs==23.2.0', 'rich']);
    expect(file.pypi![1]!.at).toBe('more.txt, line 1 (from req/base.txt, line 5 (from env/environment.yml, line 4))');
    expect(file.pypiOptions).toEqual({ extraIndexUrls: ['https://extra.example/simple'] });

    writeFileSync(join(dir, 'env', 'req', 'more.txt'), '-r base.txt\n');
    expect(
      thrown(() => parseInputFile('env/environment.yml', readFileSync(join(dir, 'env', 'environment.yml'), 'utf8'), { readIncluded })),
    ).toMatchObject({
      code: 'CR_ERR_INPUT_PIP',
      message: expect.stringContaining('"-r base.txt" includes a file that includes it'),
    });
    const missing = thrown(() =>
      parseInputFile('env/environment.yml', 'dependencies:\n  - pip:\n    - -r nowhere.txt\n', { readIncluded }),
    );
    expect(missing).toMatchObject({
      code: 'CR_ERR_INPUT_FILE_UNREADABLE',
      message: 'env/environment.yml, line 3: cannot read requirements file "nowhere.txt" (ENOENT)',
    });
  });

  it('refuses -r where no file system is read (the server), naming the line', () => {
    expect(thrown(() => parseInputFile('environment.yml', 'dependencies:\n  - pip:\n    - -r requirements.txt\n'))).toMatchObject({
      code: 'CR_ERR_INPUT_PIP',
      message: expect.stringContaining(
        'environment.yml, line 3: "-r requirements.txt": a requirements file next to the environment file cannot be read here',
      ),
    });
  });

  it.each([
    ['-e .', 'an editable install builds the project'],
    ['./src/mypkg', 'a local path is built'],
    ['../dist/pkg-1.0-py3-none-any.whl', 'a wheel file is not on an index'],
    ['git+https://github.com/pydantic/pydantic', 'a VCS URL is checked out and built'],
    ['pkg @ git+https://github.com/o/pkg@v1', 'a VCS URL is checked out and built'],
    ['pkg @ https://example.org/pkg-1.0.tar.gz', 'a source archive is built'],
    ['pkg @ file:///home/me/pkg', 'a local project is built'],
  ])('refuses %s: it needs a build, naming the line', (line, why) => {
    const error = thrown(() => parseInputFile('environment.yml', `dependencies:\n  - python\n  - pip:\n    - ${line}\n`));
    expect(error).toMatchObject({ code: 'CR_ERR_INPUT_PIP_NEEDS_BUILD', file: 'environment.yml' });
    expect((error as Error).message).toContain(`Cannot resolve pip entry "${line}" (environment.yml, line 4): ${why}`);
  });

  it('names pip options a resolve does not use in a warning', () => {
    const file = parseInputFile('environment.yml', 'dependencies:\n  - pip:\n    - --no-deps\n    - rich\n');
    expect(file.warnings).toEqual(['environment.yml, line 3: pip option "--no-deps" is not used by a resolve and was ignored']);
  });

  describe('real files (conda-lock test suite)', () => {
    it.skipIf(!haveReal('conda-lock-test-pip-repositories.yml'))('pip-repositories (conda-lock) are extra indexes', () => {
      const file = parseInputFile('environment.yaml', real('conda-lock-test-pip-repositories.yml'));
      expect(requirements(file)).toEqual(['fake-private-package==1.0.0', 'fake-private-package-custom-port==1.0.0']);
      expect(file.pypiOptions?.extraIndexUrls).toHaveLength(2);
      expect(file.warnings).toEqual([]);
    });

    it.skipIf(!haveReal('conda-lock-test-pip-full-url.yml', 'conda-lock-test-pip-hash-checking.yml'))(
      'a wheel URL is kept as a direct reference; a --hash option is dropped',
      () => {
        expect(requirements(parseInputFile('environment.yml', real('conda-lock-test-pip-full-url.yml')))).toEqual([
          'requests @ https://github.com/psf/requests/releases/download/v2.31.0/requests-2.31.0-py3-none-any.whl',
          expect.stringMatching(
            /^typing-extensions @ https:\/\/files.pythonhosted.org\/.*typing_extensions-4.8.0-py3-none-any.whl#sha256=8f92/,
          ),
        ]);
        expect(requirements(parseInputFile('environment.yml', real('conda-lock-test-pip-hash-checking.yml')))).toEqual([
          'flit-core === 3.9.0',
        ]);
      },
    );

    it.skipIf(!haveReal('conda-lock-test-pypi-resolve-gh449.yml'))('extras', () => {
      expect(requirements(parseInputFile('environment.yml', real('conda-lock-test-pypi-resolve-gh449.yml')))).toEqual([
        'pydantic[email,dotenv]==1.10.10',
      ]);
    });

    it.skipIf(!haveReal('conda-lock-test-git.yml', 'conda-lock-test-local-pip.yml'))('git and -e . are refused naming the line', () => {
      expect(thrown(() => parseInputFile('environment.yml', real('conda-lock-test-git.yml')))).toMatchObject({
        code: 'CR_ERR_INPUT_PIP_NEEDS_BUILD',
        message: expect.stringContaining('(environment.yml, line 8)'),
      });
      expect(thrown(() => parseInputFile('environment.yml', real('conda-lock-test-local-pip.yml')))).toMatchObject({
        code: 'CR_ERR_INPUT_PIP_NEEDS_BUILD',
        message: expect.stringContaining('"-e ." (environment.yml, line 10)'),
      });
    });
  });

  it('reaches the prepared request: requirements parsed, options merged', () => {
    const prepared = prepareRequest(
      {
        files: [
          {
            filename: 'environment.yml',
            content:
              'channels: [conda-forge]\ndependencies:\n  - python=3.12\n  - pip:\n    - -i https://example.org/simple\n    - rich>=13\n',
          },
        ],
        platforms: ['linux-64'],
      },
      { env: {}, cwd: '/', hostPlatform: 'linux-64', defaultChannels: ['conda-forge'] },
    );
    expect(prepared.pypi?.requirements.map((r) => r.name)).toEqual(['rich']);
    expect(prepared.pypi?.indexUrl).toBe('https://example.org/simple');
  });
});

describe('pixi manifests', () => {
  it.skipIf(!haveReal('pixi-pypi.toml'))('pypi-dependencies: strings, version tables with extras (pixi examples/pypi)', () => {
    const file = parseInputFile('pixi.toml', real('pixi-pypi.toml'));
    expect(requirements(file)).toEqual([
      'black[jupyter]~=24.0',
      'flask',
      'pyboy==1.6.6',
      'tensorflow==2.14.0',
      'env_test_package==0.0.3',
      'plot-antenna==1.8',
      'pycosat',
      'pyliblzfse',
      'pytest-timeout',
    ]);
    expect(file.pypi![0]!.at).toBe('pixi.toml, pypi-dependencies.black');
  });

  it.skipIf(!haveReal('pixi-pypi-source-deps.toml'))(
    'git and path dependencies are refused, naming the entry (pixi examples/pypi-source-deps)',
    () => {
      expect(thrown(() => parseInputFile('pixi.toml', real('pixi-pypi-source-deps.toml')))).toMatchObject({
        code: 'CR_ERR_INPUT_PIP_NEEDS_BUILD',
        message:
          'Cannot resolve PyPI dependency pixi.toml, pypi-dependencies.flask (git = "https://github.com/pallets/flask"): a git checkout is built, which a resolve does not do (give a version from an index, or a wheel url)',
      });
    },
  );

  it('a wheel url is a direct reference', () => {
    const file = parseInputFile(
      'pixi.toml',
      '[workspace]\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n[pypi-dependencies]\nclick = { url = "https://github.com/pallets/click/releases/download/8.1.7/click-8.1.7-py3-none-any.whl", extras = ["x"] }\n',
    );
    expect(requirements(file)).toEqual([
      'click[x] @ https://github.com/pallets/click/releases/download/8.1.7/click-8.1.7-py3-none-any.whl',
    ]);
  });

  it.skipIf(!haveReal('pixi-pypi-find-links.toml'))(
    'workspace pypi-options find-links and index-url (pixi examples/pypi-find-links)',
    () => {
      const file = parseInputFile('pixi.toml', real('pixi-pypi-find-links.toml'));
      expect(requirements(file)).toEqual(['requests==2.31.0']);
      expect(file.pypiOptions).toEqual({ indexUrl: 'https://pypi.org/simple', findLinks: ['./links'] });
    },
  );

  it.skipIf(!haveReal('pixi-pypi-custom-registry.toml'))(
    'a feature pypi-options index-url replaces the default feature one (pixi examples/pypi-custom-registry)',
    () => {
      expect(parseInputFile('pixi.toml', real('pixi-pypi-custom-registry.toml')).pypiOptions).toEqual({
        indexUrl: 'https://pypi.org/simple',
      });
      const alternative = parseInputFile('pixi.toml', real('pixi-pypi-custom-registry.toml'), { environment: 'alternative' });
      expect(alternative.pypiOptions).toEqual({ indexUrl: 'https://pypi.tuna.tsinghua.edu.cn/simple/' });
      expect(requirements(alternative)).toEqual(['flask==3.0.3']);
    },
  );

  it.skipIf(!haveReal('pyproject-docker.toml'))(
    'the pyproject project itself (path = ".") is named in a warning (pixi examples/docker)',
    () => {
      const file = parseInputFile('pyproject.toml', real('pyproject-docker.toml'));
      expect(file.pypi).toBeUndefined();
      expect(file.warnings).toEqual([
        'pyproject.toml, tool.pixi.feature.dev.pypi-dependencies.docker-project: the project itself (path = ".") is not resolved; its [project] dependencies are',
        'pyproject.toml, tool.pixi.feature.prod.pypi-dependencies.docker-project: the project itself (path = ".") is not resolved; its [project] dependencies are',
      ]);
    },
  );

  const TARGETS = `
[workspace]
channels = ["conda-forge"]
platforms = ["linux-64", "osx-arm64", "win-64"]
[workspace.pypi-options]
extra-index-urls = ["https://a.example/simple"]
index-strategy = "unsafe-best-match"
[dependencies]
python = "3.12.*"
[pypi-dependencies]
rich = ">=13"
torch = { version = ">=2", index = "https://download.pytorch.org/whl/cpu" }
[target.unix.pypi-dependencies]
uvloop = "*"
[target.osx-arm64.pypi-dependencies]
rich = "==13.7.1"
[feature.test.pypi-dependencies]
pytest = "~=8.0"
[feature.test.pypi-options]
extra-index-urls = ["https://b.example/simple"]
prerelease-mode = "allow"
[environments]
test = ["test"]
`;

  it('targets, features and options merged per environment and platform', () => {
    const file = parseInputFile('pixi.toml', TARGETS, { environment: 'test' });
    expect(requirements(file)).toEqual(['rich>=13', 'torch>=2', 'pytest~=8.0']);
    const on = (p: string) => file.manifest!.platformPypi!.get(p)!.map((r) => r.requirement);
    expect(on('linux-64')).toEqual(['rich>=13', 'torch>=2', 'uvloop', 'pytest~=8.0']);
    expect(on('osx-arm64')).toEqual(['rich==13.7.1', 'torch>=2', 'uvloop', 'pytest~=8.0']);
    expect(file.manifest!.platformPypi!.has('win-64')).toBe(false);
    expect(file.pypiOptions).toEqual({
      extraIndexUrls: ['https://a.example/simple', 'https://download.pytorch.org/whl/cpu', 'https://b.example/simple'],
      indexStrategy: 'unsafe-best-match',
      prerelease: 'allow',
    });
    expect(file.warnings).toEqual([
      'pixi.toml, pypi-dependencies.torch: index https://download.pytorch.org/whl/cpu is searched for every PyPI name of the environment, not for torch alone',
    ]);
  });

  it('pyproject: project.dependencies (a name the conda dependencies have dropped), optional-dependencies with self-references, dependency groups with include-group', () => {
    const text = `
[project]
name = "my_project"
requires-python = ">=3.10"
dependencies = ["package1", "numpy>=1"]
[project.optional-dependencies]
test = ["pytest"]
all = ["package2", "my_project[test]"]
[dependency-groups]
docs = ["sphinx"]
dev = [{include-group = "docs"}, "ruff"]
[tool.pixi.workspace]
channels = ["conda-forge"]
platforms = ["linux-64"]
[tool.pixi.dependencies]
numpy = "*"
[tool.pixi.environments]
all = { features = ["all"], solve-group = "default" }
dev = ["dev"]
`;
    expect(requirements(parseInputFile('pyproject.toml', text))).toEqual(['package1']);
    expect(requirements(parseInputFile('pyproject.toml', text, { environment: 'all' }))).toEqual(['package1', 'package2', 'pytest']);
    expect(requirements(parseInputFile('pyproject.toml', text, { environment: 'dev' }))).toEqual(['package1', 'sphinx', 'ruff']);
  });

  it('conda-pypi-map inline tables', () => {
    const file = parseInputFile(
      'pixi.toml',
      '[workspace]\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n[workspace.conda-pypi-map]\nconda-forge = { mapping-mode = "overlay", mapping = { pytorch = "torch", not-on-pypi = false } }\nrobostack = "local/map.json"\n[pypi-dependencies]\ntorch = "*"\n',
    );
    expect(file.condaPypiMap).toEqual({ 'conda-forge': { pytorch: 'torch', 'not-on-pypi': null } });
    expect(file.warnings).toEqual([
      'pixi.toml: workspace.conda-pypi-map.robostack names a mapping location, which is not read (use --pypi-mapping FILE)',
    ]);
  });
});
