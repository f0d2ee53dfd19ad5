/**
 * Configuration read as conda reads it: the search path in conda's order, lists merged with the
 * highest source's items first, scalars and map keys taken from the highest source, `#!final`,
 * `condarc.d/` folders, and `CONDA_<KEY>` variables above every file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { condarcSearchPath } from '../../src/config/search-path.js';
import { loadConfig, ConfigFileError } from '../../src/config/load.js';
import { mergeLayers } from '../../src/config/merge.js';
import { expandChannel } from '../../src/config/channels.js';
import { tempDir } from '../cli/run-cli.js';

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('the search path', () => {
  it("lists conda's locations lowest precedence first, leaving out unset variables", () => {
    const paths = condarcSearchPath({ CONDA_ROOT: '/opt/conda', CONDARC: '/x/rc' }, '/home/u', 'linux').map((e) => e.path);
    expect(paths).toEqual([
      '/etc/conda/.condarc',
      '/etc/conda/condarc',
      '/etc/conda/condarc.d',
      '/var/lib/conda/.condarc',
      '/var/lib/conda/condarc',
      '/var/lib/conda/condarc.d',
      '/opt/conda/.condarc',
      '/opt/conda/condarc',
      '/opt/conda/condarc.d',
      '/home/u/.config/conda/.condarc',
      '/home/u/.config/conda/condarc',
      '/home/u/.config/conda/condarc.d',
      '/home/u/.conda/.condarc',
      '/home/u/.conda/condarc',
      '/home/u/.conda/condarc.d',
      '/home/u/.condarc',
      '/x/rc',
    ]);
  });

  it('puts $XDG_CONFIG_HOME before ~/.config and $CONDA_PREFIX after ~/.condarc, without duplicates', () => {
    const paths = condarcSearchPath({ XDG_CONFIG_HOME: '/home/u/.config', CONDA_PREFIX: '/env' }, '/home/u', 'linux').map((e) => e.path);
    expect(paths.filter((p) => p === '/home/u/.config/conda/.condarc')).toHaveLength(1);
    expect(paths.indexOf('/home/u/.condarc')).toBeLessThan(paths.indexOf('/env/.condarc'));
  });
});

describe("merging (conda's precedence examples)", () => {
  it("lists: the later file's items first, then the earlier file's, without duplicates; CONDA_CHANNELS first of all", () => {
    const home = tempDir('cr-home-');
    write(join(home, '.condarc'), 'channels:\n  - conda-forge\n  - defaults\n');
    const rc = write(join(home, 'other', 'rc.yml'), 'channels:\n  - bioconda\n  - conda-forge\n');
    const config = loadConfig({ env: { HOME: home, CONDARC: rc, CONDA_CHANNELS: 'pytorch,bioconda' } });
    expect(config.get('channels')).toEqual(['pytorch', 'bioconda', 'conda-forge', 'defaults']);
    expect(config.sourceOf('channels')).toEqual(['CONDA_CHANNELS', rc, join(home, '.condarc')]);
  });

  it('scalars: the highest source wins; a variable beats every file', () => {
    const home = tempDir('cr-home-');
    write(join(home, '.conda', '.condarc'), 'channel_alias: https://low.example\nssl_verify: false\n');
    write(join(home, '.condarc'), 'channel_alias: https://high.example\n');
    let config = loadConfig({ env: { HOME: home } });
    expect(config.get('channel_alias')).toBe('https://high.example');
    expect(config.sourceOf('channel_alias')).toEqual([join(home, '.condarc')]);
    expect(config.get('ssl_verify')).toBe(false);
    config = loadConfig({ env: { HOME: home, CONDA_CHANNEL_ALIAS: 'https://env.example', CONDA_SSL_VERIFY: 'true' } });
    expect(config.get('channel_alias')).toBe('https://env.example');
    expect(config.get('ssl_verify')).toBe(true);
  });

  it('maps: merged key by key, the higher source winning a key both set', () => {
    const home = tempDir('cr-home-');
    write(join(home, '.conda', '.condarc'), 'custom_channels:\n  a: https://low.example\n  b: https://b.example\n');
    write(join(home, '.condarc'), 'custom_channels:\n  a: https://high.example\n');
    expect(loadConfig({ env: { HOME: home } }).get('custom_channels')).toEqual({ a: 'https://high.example', b: 'https://b.example' });
  });

  it('#!final in a lower file keeps its value against higher files and variables', () => {
    const root = tempDir('cr-root-');
    const home = tempDir('cr-home-');
    write(join(root, '.condarc'), 'channel_priority: strict  #!final\nchannels:  #!final\n  - conda-forge\n');
    write(join(home, '.condarc'), 'channel_priority: disabled\nchannels:\n  - bioconda\n');
    const config = loadConfig({ env: { HOME: home, CONDA_ROOT: root, CONDA_CHANNEL_PRIORITY: 'flexible' } });
    expect(config.get('channel_priority')).toBe('strict');
    expect(config.get('channels')).toEqual(['conda-forge']);
  });

  it("conda's admin example: #!final channels and channel_alias in $CONDA_ROOT/.condarc beat the user's defaults", () => {
    // docs/source/user-guide/configuration/admin-multi-user-install.rst of conda/conda.
    const root = tempDir('cr-root-');
    const home = tempDir('cr-home-');
    write(
      join(root, '.condarc'),
      'channels:                                   #!final\n  - admin\n\nchannel_alias: https://conda.anaconda.org/  #!final\n',
    );
    write(join(home, '.condarc'), 'channels:\n  - defaults\nchannel_alias: https://user.example\n');
    const config = loadConfig({ env: { HOME: home, CONDA_ROOT: root, CONDA_CHANNEL_ALIAS: 'https://env.example' } });
    expect(config.get('channels')).toEqual(['admin']);
    expect(config.get('channel_alias')).toBe('https://conda.anaconda.org/');
    expect(config.sourceOf('channels')).toEqual([join(root, '.condarc')]);
  });

  it('flags beat variables, which beat files', () => {
    const home = tempDir('cr-home-');
    write(join(home, '.condarc'), 'channel_priority: disabled\nremote_max_retries: 1\n');
    const flags = [{ source: '--channel-priority', values: { channel_priority: 'flexible' as const } }];
    const config = loadConfig({ env: { HOME: home, CONDA_CHANNEL_PRIORITY: 'strict', CONDA_REMOTE_MAX_RETRIES: '5' }, flags });
    expect(config.get('channel_priority')).toBe('flexible');
    expect(config.get('remote_max_retries')).toBe(5);
    expect(config.sourceOf('remote_max_retries')).toEqual(['CONDA_REMOTE_MAX_RETRIES']);
  });

  it("reads condarc.d files in name order, after the folder's own .condarc", () => {
    const home = tempDir('cr-home-');
    write(join(home, '.conda', '.condarc'), 'remote_max_retries: 1\n');
    write(join(home, '.conda', 'condarc.d', 'b.yml'), 'remote_max_retries: 3\n');
    write(join(home, '.conda', 'condarc.d', 'a.yaml'), 'remote_max_retries: 2\n');
    write(join(home, '.conda', 'condarc.d', 'ignored.txt'), 'remote_max_retries: 9\n');
    expect(loadConfig({ env: { HOME: home } }).get('remote_max_retries')).toBe(3);
  });

  it("conda's defaults fill keys nobody set; the old booleans of channel_priority still work", () => {
    const home = tempDir('cr-home-');
    write(join(home, '.condarc'), 'channel_priority: false\n');
    const config = loadConfig({ env: { HOME: home } });
    expect(config.get('channel_priority')).toBe('disabled');
    expect(config.get('remote_max_retries')).toBe(3);
    expect(config.sourceOf('remote_max_retries')).toEqual(['default']);
  });

  it('mergeLayers keeps the order of unnamed layers as given', () => {
    const merged = mergeLayers([
      { source: 'a', values: { channels: ['x'] } },
      { source: 'b', values: { channels: ['y', 'x'] } },
    ]);
    expect(merged.values.channels).toEqual(['y', 'x']);
  });
});

describe('bad configuration', () => {
  it('names the file and line of YAML that does not parse', () => {
    const home = tempDir('cr-home-');
    write(join(home, '.condarc'), 'channels:\n  - a\n bad: [\n');
    expect(() => loadConfig({ env: { HOME: home } })).toThrow(ConfigFileError);
    expect(() => loadConfig({ env: { HOME: home } })).toThrow(new RegExp(`"${join(home, '.condarc')}", line \\d+: not valid YAML`));
  });

  it('names the key of a value of the wrong shape, and the variable', () => {
    const home = tempDir('cr-home-');
    write(join(home, '.condarc'), 'channels: conda-forge\n');
    expect(() => loadConfig({ env: { HOME: home } })).toThrow(/Cannot use "channels" in ".*\.condarc": expected a list of strings/);
    expect(() => loadConfig({ env: { HOME: tempDir(), CONDA_REMOTE_MAX_RETRIES: 'many' } })).toThrow(
      /CONDA_REMOTE_MAX_RETRIES="many": expected a whole number/,
    );
  });

  it('skips keys it does not use, as conda does', () => {
    const home = tempDir('cr-home-');
    write(join(home, '.condarc'), 'auto_activate_base: false\nenvs_dirs: [/x]\nchannels: [a]\n');
    expect(loadConfig({ env: { HOME: home } }).get('channels')).toEqual(['a']);
  });
});

describe('configured channel names', () => {
  const settings = {
    defaultChannels: ['https://repo.example/main'],
    customChannels: { internal: 'https://artifactory.example/conda/' },
    customMultichannels: { both: ['conda-forge', 'internal'] },
  };
  it('expands defaults, custom channels (with labels) and multichannels', () => {
    expect(expandChannel('defaults', settings)).toEqual(['https://repo.example/main']);
    expect(expandChannel('internal', settings)).toEqual(['https://artifactory.example/conda/internal']);
    expect(expandChannel('internal/label/dev', settings)).toEqual(['https://artifactory.example/conda/internal/label/dev']);
    expect(expandChannel('both', settings)).toEqual(['conda-forge', 'https://artifactory.example/conda/internal']);
    expect(expandChannel('./internal', settings)).toEqual(['./internal']);
  });
});
