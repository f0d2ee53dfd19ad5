import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The import direction (ARCHITECTURE.md): src -> solver, repodata -> vocabulary, never back; the
 * solver core knows nothing of conda; the solver and the vocabulary use no Node API and no package
 * (they run in browsers). Each rule names the folder it guards and what that folder may not import.
 */
function forbid(files, patterns) {
  return { files, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}
const noPackages = { regex: '^[^.]', message: 'solver/ and vocabulary/ run in browsers: no Node API and no package.' };
const up = (folders, message) => ({ regex: `^(\\./|(\\.\\./)+)(${folders})(/|\\.js$)`, message });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'fixtures/**', 'bench/out/**', 'test-artifacts/**', 'action/conda-resolve.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  forbid(['vocabulary/**/*.ts'], [noPackages, up('src|solver|repodata', 'vocabulary/ imports only itself.')]),
  // After the vocabulary/ rule: Python's words use the conda vocabulary, never the other way round.
  forbid(['vocabulary/pypi/**/*.ts'], [noPackages, up('src|solver|repodata', 'vocabulary/pypi/ imports only vocabulary/.')]),
  forbid(
    ['vocabulary/*.ts'],
    [
      noPackages,
      up('src|solver|repodata', 'vocabulary/ imports only itself.'),
      { regex: '^\\./pypi(/|$)', message: 'The conda vocabulary does not depend on the PyPI one (vocabulary/pypi/ sits on top).' },
    ],
  ),
  forbid(['solver/**/*.ts'], [noPackages, up('src|repodata', 'solver/ imports only solver/ and vocabulary/.')]),
  // After the solver/ rule: for one file the last matching options win.
  forbid(
    ['solver/core/**/*.ts'],
    [noPackages, up('src|repodata|vocabulary|conda', 'solver/core knows nothing of conda: it imports only solver/core.')],
  ),
  forbid(['repodata/**/*.ts'], [up('src|solver', 'repodata/ imports only repodata/ and vocabulary/.')]),
  // The conda side of repodata/ does not depend on the Python index client (only index.ts exports it).
  {
    files: ['repodata/**/*.ts'],
    ignores: ['repodata/pypi/**', 'repodata/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            up('src|solver', 'repodata/ imports only repodata/ and vocabulary/.'),
            { regex: '^(\\./|(\\.\\./)+)pypi/', message: 'Conda repodata does not import the Python index client (repodata/pypi/).' },
          ],
        },
      ],
    },
  },
  // The Python index client: repodata's HTTP, cache and limits, the vocabulary; never the conda vocabulary of records and specs.
  forbid(
    ['repodata/pypi/**/*.ts'],
    [
      up('src|solver', 'repodata/ imports only repodata/ and vocabulary/.'),
      {
        regex: '^(\\.\\./)+vocabulary/(match-spec|record|version|version-spec|platform)\\.js$',
        message: 'repodata/pypi/ uses the Python vocabulary (vocabulary/pypi/), not conda records and specs.',
      },
    ],
  ),
  forbid(
    ['src/*.ts', 'src/library/**/*.ts', 'src/solving/**/*.ts', 'src/inputs/**/*.ts', 'src/inspect/**/*.ts', 'src/lock/**/*.ts'],
    [up('cli|http', 'Only the CLI and the HTTP layer sit above the resolve pipeline.')],
  ),
  forbid(
    ['src/exporters/**/*.ts'],
    [
      up(
        'cli|http|solving|inputs',
        'Exporters turn records into text: they import only vocabulary/, src/exporters/ and the lock writers in src/locks/.',
      ),
      {
        regex: '^(\\.\\./)+locks/(.*/)?(read|lock-file|lock-record|lock-yaml)(\\.js)?$',
        message: 'Exporters use the lock writers of src/locks/, never its readers (they need the pipeline).',
      },
    ],
  ),
  // One folder per lock format: its reader (part of the pipeline) beside its writer (an exporter).
  forbid(['src/locks/**/*.ts'], [up('cli|http', 'Only the CLI and the HTTP layer sit above the lock readers.')]),
  // After the src/locks/ rule: a writer is an exporter, so it follows the exporters' rule.
  forbid(
    ['src/locks/**/write*.ts', 'src/locks/**/facts.ts', 'src/locks/serde-yaml.ts'],
    [
      up('cli|http|solving|inputs', 'Lock writers are exporters: they import only vocabulary/, src/exporters/ and other writers.'),
      {
        regex: '(^|/)(read|lock-file|lock-record|lock-yaml)(\\.js)?$',
        message: 'A lock writer does not import a reader (readers need the pipeline).',
      },
    ],
  ),
  forbid(['src/http/**/*.ts'], [up('cli', 'The HTTP layer does not import the CLI.')]),
  // The /ui and /docs pages' scripts run in browsers as ES modules; undefined names are the type
  // checker's to find (src/http/static/tsconfig.json: checkJs with the DOM's types).
  { files: ['src/http/static/**/*.js'], languageOptions: { sourceType: 'module' }, rules: { 'no-undef': 'off' } },
  forbid(['src/cluster/**/*.ts'], [up('cli|http', 'src/cluster/ (Redis queue and cache) sits below the HTTP layer and the CLI.')]),
);
