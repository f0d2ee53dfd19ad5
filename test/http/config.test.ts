import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/http/config.js';

describe('loadConfig', () => {
  it('uses the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8000,
      bodyLimit: 1024 * 1024,
      maxSpecs: 200,
      maxPlatforms: 8,
      requestTimeoutMs: 60_000,
      rateLimit: { max: 300, windowMs: 60_000 },
      defaultChannels: ['conda-forge'],
      allowedChannels: ['conda-forge'],
      allowLocalChannels: false,
      corsOrigins: [],
      prewarm: [],
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads CONDA_RESOLVE_* variables and lets flags win over them', () => {
    const env = {
      CONDA_RESOLVE_HOST: '0.0.0.0',
      CONDA_RESOLVE_PORT: '9000',
      CONDA_RESOLVE_ALLOWED_CHANNELS: 'conda-forge, bioconda ,https://example.org/chan',
      CONDA_RESOLVE_ALLOW_LOCAL_CHANNELS: '1',
      CONDA_RESOLVE_CACHE_DIR: '/var/cache/cr',
      CONDA_RESOLVE_BODY_LIMIT: '512KiB',
      CONDA_RESOLVE_TIMEOUT: '2.5',
      CONDA_RESOLVE_RATE_LIMIT: '0',
      CONDA_RESOLVE_PREWARM: 'conda-forge/linux-64,file:///srv/chan/osx-arm64',
    };
    const config = loadConfig(env, { port: '0', 'allow-channel': ['*'] });
    expect(config.host).toBe('0.0.0.0');
    expect(config.port).toBe(0);
    // --allow-channel adds to the default channels.
    expect(config.allowedChannels).toEqual(['conda-forge', '*']);
    expect(config.allowLocalChannels).toBe(true);
    expect(config.cacheDir).toBe('/var/cache/cr');
    expect(config.bodyLimit).toBe(512 * 1024);
    expect(config.requestTimeoutMs).toBe(2500);
    expect(config.rateLimit).toBeNull();
    expect(config.prewarm).toEqual([
      { channel: 'conda-forge', platform: 'linux-64' },
      { channel: 'file:///srv/chan', platform: 'osx-arm64' },
    ]);
  });

  it('defaults the allowlist to the configured default channels', () => {
    expect(loadConfig({ CONDA_RESOLVE_DEFAULT_CHANNELS: 'bioconda,conda-forge' }).allowedChannels).toEqual(['bioconda', 'conda-forge']);
  });

  it.each([
    [{ CONDA_RESOLVE_PORT: 'eighty' }, {}, 'Cannot use CONDA_RESOLVE_PORT "eighty": expected an integer from 0 to 65535'],
    [{}, { port: '70000' }, 'Cannot use --port "70000": expected an integer from 0 to 65535'],
    [{}, { 'body-limit': '1 lightyear' }, 'Cannot use --body-limit "1 lightyear"'],
    [{}, { timeout: '0' }, 'Cannot use --timeout "0"'],
    [{ CONDA_RESOLVE_ALLOW_LOCAL_CHANNELS: 'maybe' }, {}, 'Cannot use CONDA_RESOLVE_ALLOW_LOCAL_CHANNELS="maybe"'],
    [{}, { prewarm: ['conda-forge'] }, 'Cannot use --prewarm "conda-forge": expected CHANNEL/PLATFORM'],
    [{}, { prewarm: ['conda-forge/noarch'] }, 'Cannot use --prewarm "conda-forge/noarch"'],
    [{}, { 'cors-origin': ['example.org'] }, 'Cannot use CORS origin "example.org"'],
    [{}, { 'log-level': 'loud' }, 'Cannot use --log-level "loud"'],
    [
      {},
      { 'max-repodata-size': '3GiB' },
      'Cannot use --max-repodata-size "3GiB": expected a size such as 1048576, 512KiB or 2MiB (from 1 MiB to 2 GiB)',
    ],
    [{ CONDA_RESOLVE_DOWNLOAD_TIMEOUT: 'soon' }, {}, 'Cannot use CONDA_RESOLVE_DOWNLOAD_TIMEOUT "soon"'],
    [
      {},
      { 'max-repodata-size': '64MiB', 'max-request-decoding': '512MiB' },
      'Cannot use --max-request-decoding "512MiB": expected a size such as 1048576, 512KiB or 2MiB (from 1 MiB to 256 MiB)',
    ],
  ])('rejects a bad value, naming where it came from (%j %j)', (env, flags, message) => {
    expect(() => loadConfig(env, flags)).toThrow(ConfigError);
    expect(() => loadConfig(env, flags)).toThrow(message);
  });

  it('caps decoded repodata at 1 GiB and downloads at 600 s unless told otherwise', () => {
    expect(loadConfig({})).toMatchObject({ maxRepodataBytes: 1024 ** 3, downloadTimeoutMs: 600_000 });
    const config = loadConfig(
      { CONDA_RESOLVE_MAX_REPODATA_SIZE: '2GiB', CONDA_RESOLVE_DOWNLOAD_TIMEOUT: '90' },
      { 'max-repodata-size': '512MiB' },
    );
    expect(config).toMatchObject({ maxRepodataBytes: 512 * 1024 ** 2, downloadTimeoutMs: 90_000 });
  });

  it('gives each request a decoding budget of 2 x the subdir cap unless told otherwise, never past the global 4 x', () => {
    expect(loadConfig({}).maxRequestDecodingBytes).toBe(2 * 1024 ** 3);
    expect(loadConfig({}, { 'max-repodata-size': '64MiB' }).maxRequestDecodingBytes).toBe(128 * 1024 ** 2);
    expect(loadConfig({ CONDA_RESOLVE_MAX_REQUEST_DECODING: '100MiB' }, { 'max-repodata-size': '64MiB' }).maxRequestDecodingBytes).toBe(
      100 * 1024 ** 2,
    );
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ CONDA_RESOLVE_PORT: '', CONDA_RESOLVE_ALLOWED_CHANNELS: ' ' }).port).toBe(8000);
  });
});
