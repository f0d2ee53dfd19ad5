import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PypiIndexPageError } from '../../../repodata/pypi/errors.js';
import { scanHtml, unescapeHtml } from '../../../repodata/pypi/html-tokens.js';
import { parseHtmlPage, parseJsonPage, parseProjectPage } from '../../../repodata/pypi/pages.js';

const context = { project: 'foo-bar', index: 'https://example.org/simple/', indexRank: 0, url: 'https://example.org/simple/foo-bar/' };

describe('PEP 503 HTML pages', () => {
  const html = `<!DOCTYPE html>
<html><head><meta name="pypi:repository-version" content="1.1"><title>Links for foo-bar</title></head>
<body>
  <!-- <a href="commented-1.0.tar.gz">no</a> -->
  <a href="../../packages/foo_bar-1.0-py3-none-any.whl#sha256=ABCDEF0123" data-requires-python="&gt;=3.8,&lt;4" data-core-metadata="sha256=00aa">foo_bar-1.0-py3-none-any.whl</a><br/>
  <a href='https://files.example.org/foo_bar-0.9.tar.gz#md5=ff' data-yanked="broken &amp; unsafe" data-dist-info-metadata=true>foo_bar-0.9.tar.gz</a>
  <a href=foo_bar-0.8.zip data-yanked>foo_bar-0.8.zip</a>
  <script>document.write('<a href="x-9.9.tar.gz">')</script>
</body></html>`;

  it('resolves relative links, reads hash fragments, unescapes data-requires-python, keeps yanked files flagged', () => {
    const page = parseHtmlPage(html, context);
    expect(page.apiVersion).toBe('1.1');
    expect(page.files.map((f) => f.filename)).toEqual(['foo_bar-1.0-py3-none-any.whl', 'foo_bar-0.9.tar.gz', 'foo_bar-0.8.zip']);
    const [wheel, sdist, zip] = page.files;
    expect(wheel!.url).toBe('https://example.org/packages/foo_bar-1.0-py3-none-any.whl');
    expect(wheel!.hashes).toEqual({ sha256: 'abcdef0123' });
    expect(wheel!.requiresPython).toBe('>=3.8,<4');
    expect(wheel!.coreMetadata).toEqual({ hashes: { sha256: '00aa' } });
    expect(wheel!.yanked).toBe(false);
    expect(sdist!.yanked).toBe('broken & unsafe');
    expect(sdist!.hashes).toEqual({ md5: 'ff' });
    // PEP 714: the old attribute is still read.
    expect(sdist!.coreMetadata).toEqual({ hashes: {} });
    expect(zip!.yanked).toBe(true);
    expect(zip!.url).toBe('https://example.org/simple/foo-bar/foo_bar-0.8.zip');
    expect(zip!.coreMetadata).toBe(false);
  });

  it('resolves links against <base href>', () => {
    const page = parseHtmlPage(
      '<html><head><base href="https://mirror.example/x/"></head><body><a href="a-1.0.tar.gz">a</a></body></html>',
      context,
    );
    expect(page.files[0]!.url).toBe('https://mirror.example/x/a-1.0.tar.gz');
  });

  it('accepts an empty project page', () => {
    expect(parseHtmlPage('<!DOCTYPE html><html><body><h1>Links for foo</h1></body></html>', context).files).toEqual([]);
  });

  it.each([
    ['a login page', '<html><body><form action="/login"><input name="password"></form></body></html>', /form or a script/],
    [
      'a page of links that are not distributions',
      '<html><body><a href="/about">About</a><a href="/docs">Docs</a></body></html>',
      /none of its 2 links is a distribution file/,
    ],
    ['plain text', 'Service temporarily unavailable', /not HTML/],
    ['binary data', 'PK\u0003\u0004\u0000\u0000<a', /binary/],
    [
      'a newer major API version',
      '<html><head><meta name="pypi:repository-version" content="2.0"></head><body></body></html>',
      /API version 2\.0/,
    ],
    ['a stray tag in text', 'error <b>500</b>', /neither an HTML document nor JSON/],
  ])('refuses %s with a clear error', (_what, body, message) => {
    const error = (() => {
      try {
        parseHtmlPage(body, context);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(PypiIndexPageError);
    expect((error as PypiIndexPageError).code).toBe('CR_ERR_PYPI_INDEX_PAGE');
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('"foo-bar"');
  });

  it('never throws anything but its own error, and ends, on random input', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.array(fc.constantFrom('<a href="', '">', '</a>', '<', '>', '"', "'", '&gt;', '<!--', '<script>', '.whl', '=', ' data-yanked'), {
          maxLength: 40,
        }),
        (text, pieces) => {
          const input = text + pieces.join('');
          try {
            parseHtmlPage(input, context);
          } catch (error) {
            expect(error).toBeInstanceOf(PypiIndexPageError);
          }
          scanHtml(input);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('unescapes character references', () => {
    expect(unescapeHtml('&gt;=3.7,!=3.8.*&#44;&#x3c;4 &amp;&unknown; &lt')).toBe('>=3.7,!=3.8.*,<4 &&unknown; <');
  });
});

describe('PEP 691 JSON pages', () => {
  const doc = {
    meta: { 'api-version': '1.1' },
    name: 'foo-bar',
    versions: ['0.9', '1.0'],
    files: [
      {
        filename: 'foo_bar-1.0-py3-none-any.whl',
        url: '/files/foo_bar-1.0-py3-none-any.whl',
        hashes: { sha256: 'AB' },
        'requires-python': '>=3.9',
        'core-metadata': { sha256: 'cd' },
        size: 1234,
        'upload-time': '2024-01-02T03:04:05.000000Z',
      },
      {
        filename: 'foo_bar-0.9.tar.gz',
        url: 'https://files.example/foo_bar-0.9.tar.gz',
        hashes: {},
        yanked: 'bad release',
        'dist-info-metadata': true,
      },
      { filename: 'foo_bar-0.8.tar.gz', url: 'foo_bar-0.8.tar.gz', hashes: {}, yanked: true, 'core-metadata': false },
    ],
  };

  it('reads files, PEP 700 versions, size and upload time, yanked reasons and core-metadata', () => {
    const page = parseJsonPage(JSON.stringify(doc), context);
    expect(page.versions).toEqual(['0.9', '1.0']);
    expect(page.apiVersion).toBe('1.1');
    const [wheel, sdist, old] = page.files;
    expect(wheel).toMatchObject({
      url: 'https://example.org/files/foo_bar-1.0-py3-none-any.whl',
      hashes: { sha256: 'ab' },
      requiresPython: '>=3.9',
      coreMetadata: { hashes: { sha256: 'cd' } },
      size: 1234,
      uploadTime: '2024-01-02T03:04:05.000000Z',
      yanked: false,
    });
    expect(sdist).toMatchObject({ yanked: 'bad release', coreMetadata: { hashes: {} }, size: null });
    expect(old).toMatchObject({ yanked: true, coreMetadata: false, url: 'https://example.org/simple/foo-bar/foo_bar-0.8.tar.gz' });
  });

  it('chooses the parser by Content-Type, and sniffs JSON when the type is generic', () => {
    expect(parseProjectPage(JSON.stringify(doc), 'application/vnd.pypi.simple.v1+json', context).versions).toEqual(['0.9', '1.0']);
    expect(parseProjectPage(JSON.stringify(doc), 'application/octet-stream', context).files).toHaveLength(3);
    expect(parseProjectPage('<html><body><a href="a-1.tar.gz">a</a></body></html>', null, context).files).toHaveLength(1);
    expect(() => parseProjectPage('{}', 'application/vnd.pypi.simple.v2+json', context)).toThrow(/unsupported type/);
  });

  it.each([
    ['not JSON', '{"meta": ', /not valid JSON/],
    ['no meta', '{"files": []}', /api-version/],
    ['a newer major version', '{"meta": {"api-version": "2.0"}, "files": []}', /API version 2\.0/],
    ['files that are not a list', '{"meta": {"api-version": "1.0"}, "files": {}}', /no "files" list/],
    ['a file without a URL', '{"meta": {"api-version": "1.0"}, "files": [{"filename": "a-1.tar.gz"}]}', /files\[0\]/],
  ])('refuses %s', (_what, body, message) => {
    expect(() => parseJsonPage(body, context)).toThrow(message);
  });
});

describe('links to local files', () => {
  it('an HTTP index cannot point the client at files on this machine; a file:// index can', () => {
    const html = '<html><body><a href="file:///etc/secret-1.0.tar.gz">x</a><a href="ok-1.0.tar.gz">ok</a></body></html>';
    expect(parseHtmlPage(html, context).files.map((f) => f.url)).toEqual(['https://example.org/simple/foo-bar/ok-1.0.tar.gz']);
    const json = JSON.stringify({
      meta: { 'api-version': '1.0' },
      files: [{ filename: 'secret-1.0.tar.gz', url: 'file:///etc/secret-1.0.tar.gz', hashes: {} }],
    });
    expect(parseJsonPage(json, context).files).toEqual([]);
    const local = { ...context, url: 'file:///srv/simple/foo-bar/index.html' };
    expect(parseHtmlPage(html, local).files.map((f) => f.url)).toEqual([
      'file:///etc/secret-1.0.tar.gz',
      'file:///srv/simple/foo-bar/ok-1.0.tar.gz',
    ]);
  });
});
