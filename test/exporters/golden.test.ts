/**
 * Golden tests: the exporters, fed the records behind `../shared/spec/reference`, write those files
 * byte for byte (only the tool name in `created-by` differs; `created_at` is the frozen time).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerBuiltinExporters } from '../../src/exporters/builtin.js';
import { condaLockV1Document } from '../../src/locks/conda-lock/write.js';
import { rattlerLockV6Document } from '../../src/locks/pixi-lock/write-v6.js';
import { ExportError } from '../../src/exporters/types.js';
import { emitYaml } from '../../src/exporters/yaml/index.js';
import { describeShared, SPEC_DIR } from '../helpers/shared.js';
import { CONTEXT, demoEnvironment, solvedEnvironments, withOurToolName } from './reference-records.js';

const reference = (file: string) => withOurToolName(readFileSync(join(SPEC_DIR, 'reference', file), 'utf8'));

describeShared('exporters write the reference files of formats.md byte for byte', () => {
  const registry = registerBuiltinExporters();

  it('two-platform.conda-lock.yml (conda-lock-v1, channels known)', () => {
    const text = registry.render('conda-lock-v1', solvedEnvironments(['conda-forge']), CONTEXT);
    expect(text).toBe(reference('two-platform.conda-lock.yml'));
  });

  it('two-platform.pixi.lock (rattler-lock-v6 via the pixi alias, channels known)', () => {
    expect(registry.get('pixi').name).toBe('rattler-lock-v6');
    const text = registry.render('pixi', solvedEnvironments(['conda-forge']), CONTEXT);
    expect(text).toBe(reference('two-platform.pixi.lock'));
  });

  it('the ruamel.yaml 0.17.21 variants differ only in where long URLs go', () => {
    const environments = solvedEnvironments(['conda-forge']);
    expect(emitYaml(condaLockV1Document(environments, CONTEXT), { longWordsOnOwnLine: false })).toBe(
      reference('two-platform.conda-lock.ruamel-0.17.21.yml'),
    );
    expect(emitYaml(rattlerLockV6Document(environments), { longWordsOnOwnLine: false })).toBe(
      reference('two-platform.pixi.ruamel-0.17.21.lock'),
    );
  });

  it('demo.explicit.txt, demo.requirements.txt, demo.environment.yaml, demo.environment.json (an installed prefix)', () => {
    const demo = [demoEnvironment()];
    expect(registry.render('explicit', demo, CONTEXT)).toBe(reference('demo.explicit.txt'));
    expect(registry.render('requirements', demo, CONTEXT)).toBe(reference('demo.requirements.txt'));
    expect(registry.render('environment-yaml', demo, CONTEXT)).toBe(reference('demo.environment.yaml'));
    expect(registry.render('environment-json', demo, CONTEXT)).toBe(reference('demo.environment.json'));
  });

  describe('presto-shaped-envs.all-formats.txt (what a resolve produces: two platforms, no channels)', () => {
    // The file holds one section per format, each after a `##### format=NAME (exporter NAME) #####` line.
    const sections = [
      ...reference('presto-shaped-envs.all-formats.txt').matchAll(
        /^##### format=(\S+) \(exporter (\S+)\) #####\n([\s\S]*?)(?=^##### |(?![\s\S]))/gm,
      ),
    ];

    it('has a section for each of the six exporters', () => {
      expect(sections.map((m) => m[2]).sort()).toEqual([
        'conda-lock-v1',
        'environment-json',
        'environment-yaml',
        'explicit',
        'rattler-lock-v6',
        'requirements',
      ]);
    });

    for (const [, format, exporterName, body] of sections) {
      it(`format=${format}`, () => {
        const environments = solvedEnvironments([]);
        const failure = /^CondaValueError: (.*)\n$/.exec(body);
        if (failure) {
          const error = (() => {
            try {
              registry.render(format, environments, CONTEXT);
            } catch (e) {
              return e;
            }
            return null;
          })();
          expect(error).toBeInstanceOf(ExportError);
          expect((error as ExportError).message).toBe(failure[1]);
          return;
        }
        expect(registry.get(format).name).toBe(exporterName);
        expect(registry.render(format, environments, CONTEXT)).toBe(body);
      });
    }
  });
});
