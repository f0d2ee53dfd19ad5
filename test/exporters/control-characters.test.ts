/**
 * Issue 32, item 9: a record whose file name, URL or name holds a control character (a newline
 * from a hostile repodata.json) is refused by every exporter, built-in or plugin, with an error
 * naming the record: no line of the channel's choosing reaches an `@EXPLICIT` file.
 */
import { describe, expect, it } from 'vitest';
import { registerBuiltinExporters } from '../../src/exporters/builtin.js';
import { ExporterRegistry } from '../../src/exporters/registry.js';
import { ExportError, type ExportEnvironment } from '../../src/exporters/types.js';
import { CONTEXT, demoEnvironment } from './reference-records.js';

const registry = registerBuiltinExporters(new ExporterRegistry());
const INJECTED = 'bzip2-1.0.8-hda65f42_9.conda\nhttps://evil.example/x-1-0.conda#0123456789abcdef0123456789abcdef';

function tampered(field: 'fn' | 'url' | 'name' | 'build', value: string): ExportEnvironment[] {
  const environment = demoEnvironment();
  const [first, ...rest] = environment.records;
  return [{ ...environment, records: [{ ...first!, [field]: value }, ...rest] }];
}

describe('records with control characters', () => {
  it.each(registry.names())('%s refuses a newline in a file name, naming the record', (format) => {
    const render = () => registry.render(format, tampered('fn', INJECTED), CONTEXT);
    expect(render).toThrow(ExportError);
    expect(render).toThrow(
      /the record of "ca-certificates" \(linux-64\) from conda-forge has a control character in its fn: "bzip2-1\.0\.8-hda65f42_9\.conda\\x0ahttps:/,
    );
    try {
      render();
    } catch (error) {
      expect((error as ExportError).code).toBe('CR_ERR_EXPORT_CONTROL_CHARACTER');
    }
  });

  it('refuses a URL, a name or a build with an escape or a carriage return', () => {
    expect(() =>
      registry.render('explicit', tampered('url', 'https://conda.anaconda.org/conda-forge/linux-64/a.conda\r#'), CONTEXT),
    ).toThrow(/in its url/);
    expect(() => registry.render('explicit', tampered('name', 'ca-certificates\u001b]0;owned\u0007'), CONTEXT)).toThrow(
      /"ca-certificates\\x1b\]0;owned\\x07"/,
    );
    expect(() => registry.render('conda-lock-v1', tampered('build', 'h0\u2028x'), CONTEXT)).toThrow(/in its build/);
  });

  it('applies to plugin exporters too, before their code runs', () => {
    const withPlugin = registerBuiltinExporters(new ExporterRegistry());
    let ran = false;
    withPlugin.register(
      { name: 'plain', aliases: [], description: 'x', mediaType: 'text/plain', defaultFilenames: [], export: () => ((ran = true), 'x') },
      'test-plugin',
    );
    expect(() => withPlugin.render('plain', tampered('fn', INJECTED), CONTEXT)).toThrow(ExportError);
    expect(ran).toBe(false);
  });

  it('leaves clean records alone', () => {
    expect(registry.render('explicit', [demoEnvironment()], CONTEXT)).toContain('@EXPLICIT');
  });
});
