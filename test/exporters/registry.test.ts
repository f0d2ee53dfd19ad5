import { describe, expect, it } from 'vitest';
import { registerBuiltinExporters } from '../../src/exporters/builtin.js';
import { fnmatch } from '../../src/exporters/fnmatch.js';
import {
  AmbiguousExporterError,
  DuplicateExporterError,
  ExporterNotDetectedError,
  ExporterRegistry,
  InvalidExporterError,
  UnknownFormatError,
  mediaTypeFor,
  type ExporterDefinition,
} from '../../src/exporters/registry.js';
import { ExportError, type ExportEnvironment } from '../../src/exporters/types.js';
import { CONTEXT, solvedEnvironments } from './reference-records.js';

const registry = registerBuiltinExporters();

describe('the built-in registry (seed 2.3)', () => {
  it("lists the primary names (conda's six, pixi.lock v7, the two SBOMs, pylock), sorted", () => {
    expect(registry.names()).toEqual([
      'conda-lock-v1',
      'cyclonedx-json',
      'environment-json',
      'environment-yaml',
      'explicit',
      'pylock',
      'rattler-lock-v6',
      'rattler-lock-v7',
      'requirements',
      'spdx-json',
    ]);
  });

  it("accepts the names and aliases conda with conda-lockfiles 0.2.x accepts, and pixi.lock v7's", () => {
    expect(registry.allNames()).toEqual([
      'cdx',
      'conda-lock',
      'conda-lock-v1',
      'cyclonedx',
      'cyclonedx-json',
      'env.yml',
      'environment-json',
      'environment-yaml',
      'explicit',
      'json',
      'pep751',
      'pixi',
      'pixi-lock-v6',
      'pixi-lock-v7',
      'pixi-v7',
      'pylock',
      'pylock.toml',
      'rattler-lock-v6',
      'rattler-lock-v7',
      'reqs',
      'requirements',
      'spdx',
      'spdx-json',
      'txt',
      'yaml',
      'yml',
    ]);
  });

  it.each([
    ['explicit', [], 'lockfile', 'text/plain; charset=utf-8', false, ['explicit.txt']],
    ['environment-yaml', ['yaml', 'yml', 'env.yml'], 'environment', 'application/yaml', false, ['environment.yaml', 'environment.yml']],
    ['environment-json', ['json'], 'environment', 'application/json', false, ['environment.json']],
    ['requirements', ['reqs', 'txt'], 'environment', 'text/plain; charset=utf-8', false, ['requirements.txt', 'spec.txt']],
    ['conda-lock-v1', ['conda-lock'], 'lockfile', 'application/yaml', true, ['conda-lock.yml', 'conda-lock.yaml']],
    ['rattler-lock-v6', ['pixi', 'pixi-lock-v6'], 'lockfile', 'application/yaml', true, ['pixi.lock']],
    ['rattler-lock-v7', ['pixi-lock-v7', 'pixi-v7'], 'lockfile', 'application/yaml', true, []],
  ])('%s: aliases %j, %s, %s, multi-platform %s', (name, aliases, category, mediaType, multi, filenames) => {
    const exporter = registry.get(name);
    expect(exporter).toMatchObject({ name, aliases, category, mediaType, defaultFilenames: filenames, plugin: 'conda-resolve' });
    expect(typeof exporter.exportMultiplatform === 'function').toBe(multi);
    expect(typeof exporter.export === 'function').toBe(!multi);
    expect(exporter.description.length).toBeGreaterThan(0);
    // The declared media type is what the default filenames imply (rattler-lock-v7 has none: -o
    // pixi.lock chooses between v6 and v7 by the lock already there, src/lock/lock-version.ts).
    if (filenames.length > 0) expect(mediaTypeFor(exporter)).toBe(mediaType);
    for (const alias of aliases) expect(registry.get(alias)).toBe(exporter);
  });

  it('looks names up exactly, without case folding (like conda)', () => {
    expect(registry.find('YAML')).toBeUndefined();
    expect(registry.find(' yaml')).toBeUndefined();
    expect(registry.get('yaml').name).toBe('environment-yaml');
  });

  it("fails for an unknown name with conda's message, listing names and aliases sorted", () => {
    let error: unknown;
    try {
      registry.get('toml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnknownFormatError);
    const unknown = error as UnknownFormatError;
    expect(unknown.code).toBe('CR_ERR_FORMAT_UNKNOWN');
    expect(unknown.format).toBe('toml');
    expect(unknown.available).toEqual(registry.allNames());
    expect(unknown.message).toBe(
      "Unknown export format 'toml'. Available formats:\n  - cdx\n  - conda-lock\n  - conda-lock-v1\n  - cyclonedx\n  - cyclonedx-json\n  - env.yml\n  - environment-json\n  - environment-yaml\n  - explicit\n  - json\n  - pep751\n  - pixi\n  - pixi-lock-v6\n  - pixi-lock-v7\n  - pixi-v7\n  - pylock\n  - pylock.toml\n  - rattler-lock-v6\n  - rattler-lock-v7\n  - reqs\n  - requirements\n  - spdx\n  - spdx-json\n  - txt\n  - yaml\n  - yml",
    );
  });
});

describe('ExporterRegistry.register', () => {
  const single = (name: string, extra: Partial<ExporterDefinition> = {}): ExporterDefinition => ({ name, export: () => name, ...extra });

  it('normalises names and aliases as conda does and fills in descriptive defaults', () => {
    const r = new ExporterRegistry();
    const exporter = r.register(single(' CSV ', { aliases: ['Table', 'table', 'csv'], defaultFilenames: ['*.csv'] }), 'pkg');
    expect(exporter).toMatchObject({
      name: 'csv',
      aliases: ['table'],
      description: 'csv',
      category: 'environment',
      mediaType: 'text/plain; charset=utf-8',
      plugin: 'pkg',
    });
    expect(Object.isFrozen(exporter)).toBe(true);
  });

  it('refuses a name or alias that is taken, naming both exporters and plugins', () => {
    const r = registerBuiltinExporters(new ExporterRegistry());
    expect(() => r.register(single('pixi', { aliases: ['json'] }), 'other-plugin')).toThrow(DuplicateExporterError);
    expect(() => r.register(single('pixi', { aliases: ['json'] }), 'other-plugin')).toThrow(
      'Format name conflicts detected in environment exporters.\nMultiple plugins cannot use the same name or alias:\n' +
        "  - 'json' name or alias used by plugins: environment-json (conda-resolve), pixi (other-plugin)\n" +
        "  - 'pixi' name or alias used by plugins: pixi (other-plugin), rattler-lock-v6 (conda-resolve)",
    );
    // Nothing was registered.
    expect(r.find('pixi')?.name).toBe('rattler-lock-v6');
  });

  it.each<[string, unknown]>([
    ['"name" must be a non-empty string', { export: () => '' }],
    ['exactly one of "export" and "exportMultiplatform" must be set', { name: 'x' }],
    ['exactly one of "export" and "exportMultiplatform" must be set', { name: 'x', export: () => '', exportMultiplatform: () => '' }],
    ['"export" must be a function', { name: 'x', export: 'text' }],
    ['"aliases" must be a list of non-empty strings', { name: 'x', export: () => '', aliases: 'y' }],
    ['"category" must be "lockfile" or "environment", not "lock"', { name: 'x', export: () => '', category: 'lock' }],
    ['expected an object, got null', null],
  ])('rejects an invalid exporter: %s', (why, definition) => {
    expect(() => new ExporterRegistry().register(definition as ExporterDefinition, 'bad-plugin')).toThrow(InvalidExporterError);
    expect(() => new ExporterRegistry().register(definition as ExporterDefinition, 'bad-plugin')).toThrow(why);
  });
});

describe('mediaTypeFor (conda-presto)', () => {
  it.each([
    [['conda-lock.yml'], 'application/yaml'],
    [['x.YAML'], 'application/yaml'],
    [['pixi.lock'], 'application/yaml'],
    [['environment.json'], 'application/json'],
    [['pyproject.toml'], 'application/toml'],
    [['requirements.txt'], 'text/plain; charset=utf-8'],
    [['Makefile', 'x.json'], 'application/json'],
    [[], 'text/plain; charset=utf-8'],
  ])('%j -> %s', (defaultFilenames, expected) => {
    expect(mediaTypeFor({ defaultFilenames })).toBe(expected);
  });
});

describe('detecting the exporter from an output filename (conda detect_environment_exporter)', () => {
  it.each([
    ['pixi.lock', 'rattler-lock-v6'],
    ['/tmp/out/conda-lock.yaml', 'conda-lock-v1'],
    ['conda-lock.yml', 'conda-lock-v1'],
    ['environment.yml', 'environment-yaml'],
    ['sub/environment.json', 'environment-json'],
    ['explicit.txt', 'explicit'],
    ['spec.txt', 'requirements'],
  ])('%s -> %s', (filename, name) => {
    expect(registry.detect(filename).name).toBe(name);
  });

  it("fails for an unknown filename with conda's listing of filenames and formats", () => {
    expect(() => registry.detect('out/x.toml')).toThrow(ExporterNotDetectedError);
    expect(() => registry.detect('out/x.toml')).toThrow(
      [
        "No environment exporter plugin found for filename 'x.toml'.",
        '',
        'Supported filenames:',
        '  - conda-lock.yml       (format: conda-lock-v1)',
        '  - conda-lock.yaml      (format: conda-lock-v1)',
        '  - *.cdx.json           (format: cyclonedx-json)',
        '  - bom.json             (format: cyclonedx-json)',
        '  - environment.json     (format: environment-json)',
        '  - environment.yaml     (format: environment-yaml)',
        '  - environment.yml      (format: environment-yaml)',
        '  - explicit.txt         (format: explicit)',
        '  - pylock.toml          (format: pylock)',
        '  - pylock.*.toml        (format: pylock)',
        '  - pixi.lock            (format: rattler-lock-v6)',
        '  - requirements.txt     (format: requirements)',
        '  - spec.txt             (format: requirements)',
        '  - *.spdx.json          (format: spdx-json)',
        '',
        'Available formats:',
        '  - conda-lock-v1        (aliases: conda-lock)',
        '  - cyclonedx-json       (aliases: cyclonedx, cdx)',
        '  - environment-json     (aliases: json)',
        '  - environment-yaml     (aliases: yaml, yml, env.yml)',
        '  - explicit',
        '  - pylock               (aliases: pylock.toml, pep751)',
        '  - rattler-lock-v6      (aliases: pixi, pixi-lock-v6)',
        '  - rattler-lock-v7      (aliases: pixi-lock-v7, pixi-v7)',
        '  - requirements         (aliases: reqs, txt)',
        '  - spdx-json            (aliases: spdx)',
        '',
        'Use --format FORMAT to choose the export format explicitly, or rename your file to match a supported filename pattern.',
      ].join('\n'),
    );
  });

  it('fails when two exporters claim the filename', () => {
    const r = registerBuiltinExporters(new ExporterRegistry());
    r.register({ name: 'any-lock', defaultFilenames: ['*.lock'], export: () => '' }, 'greedy');
    expect(() => r.detect('pixi.lock')).toThrow(AmbiguousExporterError);
    expect(() => r.detect('pixi.lock')).toThrow(
      "Multiple environment exporters found that can handle filename 'pixi.lock':\n  - any-lock\n  - rattler-lock-v6",
    );
    expect(r.detect('other.lock').name).toBe('any-lock');
  });

  it('matches shell patterns like Python fnmatch', () => {
    expect(fnmatch('a.conda-lock.yml', '*.conda-lock.yml')).toBe(true);
    expect(fnmatch('conda-lock.yml', '*.conda-lock.yml')).toBe(false);
    expect(fnmatch('env1.yml', 'env?.yml')).toBe(true);
    expect(fnmatch('env10.yml', 'env?.yml')).toBe(false);
    expect(fnmatch('lock-a.txt', 'lock-[abc].txt')).toBe(true);
    expect(fnmatch('lock-d.txt', 'lock-[!abc].txt')).toBe(true);
    expect(fnmatch('lock-a.txt', 'lock-[!abc].txt')).toBe(false);
    expect(fnmatch('x]', '[]]')).toBe(false);
    expect(fnmatch(']', '[]]')).toBe(true);
    expect(fnmatch('a+b(c).txt', 'a+b(c).txt')).toBe(true);
    expect(fnmatch('PIXI.LOCK', 'pixi.lock')).toBe(false);
    expect(fnmatch('[x', '[x')).toBe(true);
  });
});

describe('registry.render: the multi-platform and final-newline rules (formats.md 4.1)', () => {
  const two = solvedEnvironments([]);

  it('joins single-platform documents with a newline: explicit blocks touch', () => {
    const text = registry.render('explicit', two, CONTEXT);
    expect(text.match(/@EXPLICIT/g)).toHaveLength(2);
    expect(text).toContain('tzdata-2025c-hc9c84f9_1.conda\n# This file may be used');
    expect(text.endsWith('.conda\n')).toBe(true);
  });

  it('separates YAML documents with one blank line and stacks JSON objects', () => {
    expect(registry.render('yml', two, CONTEXT)).toContain('hc9c84f9_1\n\nname:\n');
    const json = registry.render('json', two, CONTEXT);
    expect(json).toContain('\n}\n{\n');
    expect(json.endsWith('}\n')).toBe(true);
  });

  it('gives a multi-platform exporter all environments at once', () => {
    const seen: number[] = [];
    const r = new ExporterRegistry();
    r.register({ name: 'count', exportMultiplatform: (envs) => (seen.push(envs.length), `n=${envs.length}`) });
    expect(r.render('count', two, CONTEXT)).toBe('n=2\n');
    expect(seen).toEqual([2]);
  });

  it("replaces all trailing whitespace with one newline (Python's rstrip)", () => {
    const r = new ExporterRegistry();
    r.register({ name: 'ws', export: (e) => `${e.platform} \t\n\x1c\x85\n` });
    r.register({ name: 'bom', export: () => 'x\ufeff' });
    expect(r.render('ws', two, CONTEXT)).toBe('linux-64 \t\n\x1c\x85\n\nosx-arm64\n');
    // U+FEFF is not whitespace to Python, so it stays.
    expect(r.render('bom', two.slice(0, 1), CONTEXT)).toBe('x\ufeff\n');
  });

  it('renders the same document for a name and its alias', () => {
    expect(registry.render('yml', two, CONTEXT)).toBe(registry.render('environment-yaml', two, CONTEXT));
  });

  it('turns a plugin exporter crash or a non-text result into an ExportError naming the exporter', () => {
    const r = new ExporterRegistry();
    r.register({
      name: 'crash',
      export: () => {
        throw new TypeError('boom');
      },
    });
    r.register({ name: 'number', export: () => 42 as unknown as string });
    expect(() => r.render('crash', two, CONTEXT)).toThrow(ExportError);
    expect(() => r.render('crash', two, CONTEXT)).toThrow('Cannot export crash: boom');
    expect(() => r.render('number', two, CONTEXT)).toThrow('Cannot export number: the exporter returned a value of type number, not text');
  });

  it('fails without environments, and for an unknown format before rendering', () => {
    const none: ExportEnvironment[] = [];
    expect(() => registry.render('explicit', none, CONTEXT)).toThrow('Cannot export explicit: no platforms to export');
    expect(() => registry.render('toml', two, CONTEXT)).toThrow(UnknownFormatError);
  });
});
