import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  channelIdentity,
  InvalidChannelError,
  parseChannel,
  redactSecrets,
  removeCredentials,
  sameChannel,
  tryParseChannel,
  type ParseChannelOptions,
} from '../../vocabulary/channel.js';

describe('parseChannel', () => {
  it.each<[string, ParseChannelOptions, { name: string; baseUrl: string; kind: string; platform?: string | null }]>([
    ['conda-forge', {}, { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge', kind: 'alias', platform: null }],
    ['  conda-forge  ', {}, { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge', kind: 'alias' }],
    [
      'conda-forge/label/dev',
      {},
      { name: 'conda-forge/label/dev', baseUrl: 'https://conda.anaconda.org/conda-forge/label/dev', kind: 'alias' },
    ],
    [
      'conda-forge/linux-64',
      {},
      { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge', kind: 'alias', platform: 'linux-64' },
    ],
    [
      'https://conda.anaconda.org/conda-forge',
      {},
      { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge', kind: 'alias' },
    ],
    [
      'https://conda.anaconda.org/conda-forge/',
      {},
      { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge', kind: 'alias' },
    ],
    [
      'HTTPS://Conda.Anaconda.ORG/conda-forge',
      {},
      { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge', kind: 'alias' },
    ],
    [
      'https://conda.anaconda.org/conda-forge/noarch',
      {},
      { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge', kind: 'alias', platform: 'noarch' },
    ],
    [
      'https://repo.anaconda.com/pkgs/main',
      {},
      { name: 'https://repo.anaconda.com/pkgs/main', baseUrl: 'https://repo.anaconda.com/pkgs/main', kind: 'url' },
    ],
    ['pkgs/main', {}, { name: 'https://repo.anaconda.com/pkgs/main', baseUrl: 'https://repo.anaconda.com/pkgs/main', kind: 'url' }],
    [
      'https://example.com:8443/chan/',
      {},
      { name: 'https://example.com:8443/chan', baseUrl: 'https://example.com:8443/chan', kind: 'url' },
    ],
    ['http://127.0.0.1:8080/', {}, { name: 'http://127.0.0.1:8080', baseUrl: 'http://127.0.0.1:8080', kind: 'url' }],
    ['file:///srv/chan/', {}, { name: 'file:///srv/chan', baseUrl: 'file:///srv/chan', kind: 'file' }],
    ['/srv/chan', {}, { name: 'file:///srv/chan', baseUrl: 'file:///srv/chan', kind: 'file' }],
    ['/srv/my chan', {}, { name: 'file:///srv/my%20chan', baseUrl: 'file:///srv/my%20chan', kind: 'file' }],
    ['/srv/a#b', {}, { name: 'file:///srv/a%23b', baseUrl: 'file:///srv/a%23b', kind: 'file' }],
    ['./chan', { cwd: '/home/me/work' }, { name: 'file:///home/me/work/chan', baseUrl: 'file:///home/me/work/chan', kind: 'file' }],
    ['../chan/', { cwd: '/home/me/work' }, { name: 'file:///home/me/chan', baseUrl: 'file:///home/me/chan', kind: 'file' }],
    ['.', { cwd: '/home/me/work' }, { name: 'file:///home/me/work', baseUrl: 'file:///home/me/work', kind: 'file' }],
    ['~/chan', { home: '/home/me' }, { name: 'file:///home/me/chan', baseUrl: 'file:///home/me/chan', kind: 'file' }],
    ['C:\\Users\\me\\chan', {}, { name: 'file:///C:/Users/me/chan', baseUrl: 'file:///C:/Users/me/chan', kind: 'file' }],
    ['.\\chan', { cwd: 'C:\\work' }, { name: 'file:///C:/work/chan', baseUrl: 'file:///C:/work/chan', kind: 'file' }],
    ['\\\\server\\share\\chan', {}, { name: 'file://server/share/chan', baseUrl: 'file://server/share/chan', kind: 'file' }],
    ['/srv/chan/linux-64', {}, { name: 'file:///srv/chan', baseUrl: 'file:///srv/chan', kind: 'file', platform: 'linux-64' }],
    // A custom alias (CONDA_CHANNEL_ALIAS).
    [
      'conda-forge',
      { alias: 'https://mirror.example.com/conda/' },
      { name: 'conda-forge', baseUrl: 'https://mirror.example.com/conda/conda-forge', kind: 'alias' },
    ],
    [
      'https://mirror.example.com/conda/bioconda',
      { alias: 'https://mirror.example.com/conda' },
      { name: 'bioconda', baseUrl: 'https://mirror.example.com/conda/bioconda', kind: 'alias' },
    ],
    [
      'https://conda.anaconda.org/conda-forge',
      { alias: 'https://mirror.example.com/conda' },
      { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge', kind: 'alias' },
    ],
    ['conda-forge', { alias: '' }, { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge', kind: 'alias' }],
    // A file:// alias (a local mirror, as conda allows): the name stays short, the channel is a folder.
    ['conda-forge', { alias: 'file:///srv/mirror/' }, { name: 'conda-forge', baseUrl: 'file:///srv/mirror/conda-forge', kind: 'file' }],
    [
      'conda-forge/linux-64',
      { alias: 'file:///srv/mirror' },
      { name: 'conda-forge', baseUrl: 'file:///srv/mirror/conda-forge', kind: 'file', platform: 'linux-64' },
    ],
  ])('%j %j', (text, options, expected) => {
    const c = parseChannel(text, options);
    expect(c).toMatchObject(expected);
    expect(c.credentials).toBeNull();
    expect(String(c)).toBe(expected.name);
    expect(c.subdirUrl('linux-64')).toBe(`${expected.baseUrl}/linux-64`);
    expect(c.publicSubdirUrl('noarch')).toBe(`${expected.baseUrl}/noarch`);
  });

  it('keeps an anaconda.org token apart and puts it back only in request URLs', () => {
    const c = parseChannel('https://conda.anaconda.org/t/xy-1234abcd/private-ch');
    expect(c.name).toBe('private-ch');
    expect(c.baseUrl).toBe('https://conda.anaconda.org/private-ch');
    expect(c.credentials).toEqual({ token: 'xy-1234abcd', userInfo: null });
    expect(c.subdirUrl('linux-64')).toBe('https://conda.anaconda.org/t/xy-1234abcd/private-ch/linux-64');
    expect(c.publicSubdirUrl('linux-64')).toBe('https://conda.anaconda.org/private-ch/linux-64');
  });

  it('keeps user:password apart', () => {
    const c = parseChannel('https://user:p%40ss@host.example/chan/');
    expect(c.name).toBe('https://host.example/chan');
    expect(c.credentials).toEqual({ token: null, userInfo: 'user:p%40ss' });
    expect(c.subdirUrl('noarch')).toBe('https://user:p%40ss@host.example/chan/noarch');
    expect(c.publicSubdirUrl('noarch')).toBe('https://host.example/chan/noarch');
  });

  it('applies the alias credentials to names on the alias', () => {
    const c = parseChannel('conda-forge', { alias: 'https://me:pw@mirror.example.com/t/tok-9/conda' });
    expect(c.name).toBe('conda-forge');
    expect(c.baseUrl).toBe('https://mirror.example.com/conda/conda-forge');
    expect(c.subdirUrl('osx-arm64')).toBe('https://me:pw@mirror.example.com/conda/t/tok-9/conda-forge/osx-arm64');
    expect(c.publicSubdirUrl('osx-arm64')).toBe('https://mirror.example.com/conda/conda-forge/osx-arm64');
  });

  it.each([
    ['', {}, 'empty channel'],
    ['   ', {}, 'empty channel'],
    [
      'defaults',
      {},
      '"defaults" stands for several channels (https://repo.anaconda.com/pkgs/main, https://repo.anaconda.com/pkgs/r); expand it first',
    ],
    ['conda forge', {}, 'unexpected " " in a channel name'],
    ['conda-forge::numpy', {}, 'unexpected ":" in a channel name'],
    ['ftp://host/chan', {}, 'unsupported URL scheme "ftp" (use https, http or file)'],
    ['https://host/chan?x=1', {}, 'a channel URL cannot have a query or fragment'],
    ['https://', {}, 'not a valid URL'],
    ['./chan', {}, 'a relative path needs a working directory; give an absolute path'],
    ['~/chan', {}, 'cannot expand "~" without a home directory; give an absolute path'],
    ['chan\nnel', {}, 'control characters are not allowed'],
  ])('rejects %j', (text, options, reason) => {
    const run = () => parseChannel(text, options);
    expect(run).toThrow(InvalidChannelError);
    expect(run).toThrow(`Cannot use channel ${JSON.stringify(text)}: ${reason}`);
    expect(tryParseChannel(text, options)).toBeNull();
  });

  it('rejects a bad alias', () => {
    expect(() => parseChannel('conda-forge', { alias: 'not a url' })).toThrow(InvalidChannelError);
    expect(() => parseChannel('conda-forge', { alias: 'ftp://srv' })).toThrow(InvalidChannelError);
  });

  it('never shows a token or password in names, public URLs, JSON or error messages', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9-]{8,24}$/).filter((t) => t !== 'conda-forge');
    const password = fc.stringMatching(/^[A-Za-z0-9]{8,16}$/);
    const name = fc.constantFrom('conda-forge', 'private', 'org/label/x');
    fc.assert(
      fc.property(token, password, name, fc.constantFrom('conda.anaconda.org', 'mirror.example.com:8443'), (tok, pw, ch, host) => {
        const text = `https://user:${pw}@${host}/t/${tok}/${ch}`;
        const c = parseChannel(text);
        for (const shown of [c.name, c.baseUrl, c.publicSubdirUrl('linux-64'), String(c), JSON.stringify(c)]) {
          expect(shown).not.toContain(tok);
          expect(shown).not.toContain(pw);
        }
        expect(c.subdirUrl('linux-64')).toContain(`/t/${tok}/`);
        const err = (() => {
          try {
            parseChannel(`${text}?bad`);
          } catch (e) {
            return e as Error;
          }
          throw new Error('expected an error');
        })();
        expect(err.message).not.toContain(tok);
        expect(err.message).not.toContain(pw);
      }),
      { numRuns: 200 },
    );
  });
});

describe('channel comparison', () => {
  it.each([
    ['conda-forge', 'https://conda.anaconda.org/conda-forge', true],
    ['conda-forge', 'https://conda.anaconda.org/conda-forge/', true],
    ['https://conda.anaconda.org/conda-forge', 'https://conda.anaconda.org/conda-forge/', true],
    ['conda-forge', 'https://conda.anaconda.org/conda-forge/linux-64', true],
    ['conda-forge', 'https://conda.anaconda.org/t/tok-1/conda-forge', true],
    ['conda-forge', 'bioconda', false],
    ['conda-forge', 'conda-forge/label/dev', false],
    ['conda-forge', 'https://mirror.example.com/conda-forge', false],
    ['https://repo.anaconda.com/pkgs/main', 'pkgs/main', true],
    ['file:///srv/chan', '/srv/chan/', true],
    ['@', '@', true],
    ['@', 'conda-forge', false],
  ])('%s ~ %s: %s', (a, b, expected) => {
    expect(sameChannel(a, b)).toBe(expected);
    expect(sameChannel(b, a)).toBe(expected);
  });

  it('gives null identity for strings that are not channels', () => {
    expect(channelIdentity('@')).toBeNull();
    expect(channelIdentity('conda-forge')).toEqual({ name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge' });
  });
});

describe('redactSecrets', () => {
  it.each([
    ['https://conda.anaconda.org/t/abc-123/conda-forge/linux-64', 'https://conda.anaconda.org/t/<TOKEN>/conda-forge/linux-64'],
    [
      'fetch failed: https://user:pw@host.example/chan/noarch/repodata.json (404)',
      'fetch failed: https://host.example/chan/noarch/repodata.json (404)',
    ],
    ['a /t/tok-only', 'a /t/<TOKEN>'],
    ['"https://h/t/x1/c"', '"https://h/t/<TOKEN>/c"'],
    ['http://a:b@h1/t/k/c and https://c:d@h2/x', 'http://h1/t/<TOKEN>/c and https://h2/x'],
    ['mail me at user@example.com', 'mail me at user@example.com'],
    ['no secrets here', 'no secrets here'],
  ])('%s', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
    expect(redactSecrets(expected)).toBe(expected);
  });

  it('removes any token and password embedded in text, and is idempotent', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.stringMatching(/^[A-Za-z0-9_-]{6,20}$/),
        fc.stringMatching(/^[A-Za-z0-9]{6,12}$/),
        fc.string(),
        (before, tok, pw, after) => {
          const text = `${before} https://u:${pw}@host.example/t/${tok}/chan ${after}`;
          const out = redactSecrets(text);
          expect(out).toContain('https://host.example/t/<TOKEN>/chan');
          expect(out.includes(`/t/${tok}/`)).toBe(false);
          expect(out.includes(`:${pw}@`)).toBe(false);
          expect(redactSecrets(out)).toBe(out);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('removeCredentials', () => {
  it.each([
    ['https://u:p@conda.anaconda.org/t/tk/ch/linux-64/a-1-0.conda', 'https://conda.anaconda.org/ch/linux-64/a-1-0.conda'],
    ['https://host/prefix/t/tk/ch/noarch/a-1-0.conda', 'https://host/prefix/ch/noarch/a-1-0.conda'],
    ['https://host/ch/noarch/a-1-0.conda', 'https://host/ch/noarch/a-1-0.conda'],
    ['not a url', 'not a url'],
  ])('%s', (url, expected) => {
    expect(removeCredentials(url)).toBe(expected);
  });
});

describe('parseChannel fuzz', () => {
  it('never throws anything but InvalidChannelError on arbitrary strings', () => {
    const channelish = fc.stringMatching(/^[a-zA-Z0-9_.:/\\@~ %#?+-]{0,30}$/);
    fc.assert(
      fc.property(fc.oneof(fc.string(), channelish), fc.constantFrom(undefined, '/home/me', 'C:\\work'), (s, cwd) => {
        try {
          const c = parseChannel(s, { cwd, home: '/home/me' });
          expect(new URL(c.subdirUrl('noarch')).pathname.endsWith('/noarch')).toBe(true);
          expect(new URL(c.publicSubdirUrl('noarch')).pathname).not.toContain('//');
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidChannelError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
