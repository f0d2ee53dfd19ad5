import { describe, expect, it } from 'vitest';
import { comparePypiVersions, parsePypiVersion, tryParsePypiVersion, type PypiVersion } from '../../../vocabulary/pypi/version.js';
import { HAVE_PACKAGING_VECTORS, packagingVectors } from './vectors.js';

const vectors = <T extends Record<string, unknown>>(test: string) => packagingVectors<T>('test_version', `TestVersion.${test}`);

describe.skipIf(!HAVE_PACKAGING_VECTORS)('PEP 440 versions: parsing (pypa/packaging vectors)', () => {
  it.each(vectors<{ version: string }>('test_valid_versions'))('parses $version', ({ version }) => {
    expect(tryParsePypiVersion(version)).toBeDefined();
  });

  it.each(vectors<{ version: string }>('test_invalid_versions'))('refuses $version with a typed error', ({ version }) => {
    expect(tryParsePypiVersion(version)).toBeUndefined();
    expect(() => parsePypiVersion(version)).toThrow(expect.objectContaining({ code: 'CR_ERR_PYPI_VERSION_INVALID' }));
  });

  it.each(vectors<{ version: string; normalized: string }>('test_normalized_versions'))(
    'normalises $version to $normalized',
    ({ version, normalized }) => {
      expect(parsePypiVersion(version).toString()).toBe(normalized);
    },
  );

  it.each(vectors<{ version: string; expected: string }>('test_version_str_repr'))(
    'writes $version as $expected',
    ({ version, expected }) => {
      expect(String(parsePypiVersion(version))).toBe(expected);
    },
  );
});

describe.skipIf(!HAVE_PACKAGING_VECTORS)('PEP 440 versions: parts (pypa/packaging vectors)', () => {
  const plain = (n: number | bigint | undefined) => (n === undefined ? null : Number(n));
  it.each(vectors<{ version: string; public: string }>('test_version_public'))('public of $version', (v) => {
    expect(String(parsePypiVersion(v.version).public)).toBe(v.public);
  });
  it.each(vectors<{ version: string; base_version: string }>('test_version_base_version'))('base of $version', (v) => {
    expect(String(parsePypiVersion(v.version).baseVersion)).toBe(v.base_version);
  });
  it.each(vectors<{ version: string; epoch: number }>('test_version_epoch'))('epoch of $version', (v) => {
    expect(parsePypiVersion(v.version).epoch).toBe(v.epoch);
  });
  it.each(vectors<{ version: string; release: number[] }>('test_version_release'))('release of $version', (v) => {
    expect(parsePypiVersion(v.version).release).toEqual(v.release);
  });
  it.each(vectors<{ version: string; local: string | null }>('test_version_local'))('local of $version', (v) => {
    expect(parsePypiVersion(v.version).local?.join('.') ?? null).toBe(v.local);
  });
  it.each(vectors<{ version: string; pre: [string, number] | null }>('test_version_pre'))('pre of $version', (v) => {
    const pre = parsePypiVersion(v.version).pre;
    expect(pre ? [pre[0], Number(pre[1])] : null).toEqual(v.pre);
  });
  it.each(vectors<{ version: string; post: number | null }>('test_version_post'))('post of $version', (v) => {
    expect(plain(parsePypiVersion(v.version).post)).toBe(v.post);
  });
  it.each(vectors<{ version: string; dev: number | null }>('test_version_dev'))('dev of $version', (v) => {
    expect(plain(parsePypiVersion(v.version).dev)).toBe(v.dev);
  });
  it.each(vectors<{ version: string; expected: boolean }>('test_version_is_prerelease'))('$version is a pre-release: $expected', (v) => {
    expect(parsePypiVersion(v.version).isPrerelease).toBe(v.expected);
  });
  it.each(vectors<{ version: string; expected: boolean }>('test_version_is_devrelease'))('$version is a dev release: $expected', (v) => {
    expect(parsePypiVersion(v.version).isDevrelease).toBe(v.expected);
  });
  it.each(vectors<{ version: string; expected: boolean }>('test_version_is_postrelease'))('$version is a post-release: $expected', (v) => {
    expect(parsePypiVersion(v.version).isPostrelease).toBe(v.expected);
  });
});

describe('PEP 440 versions: ordering', () => {
  it.skipIf(!HAVE_PACKAGING_VECTORS)("orders packaging's VERSIONS list exactly as listed, every pair", () => {
    const list = packagingVectors<{ 0: string }>('test_version', 'VERSIONS').map((row) => parsePypiVersion(row[0]));
    const wrong: string[] = [];
    for (let i = 0; i < list.length; i++) {
      for (let j = 0; j < list.length; j++) {
        if (Math.sign(comparePypiVersions(list[i]!, list[j]!)) !== Math.sign(i - j)) wrong.push(`${list[i]} vs ${list[j]}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  const order = (...texts: string[]) => texts.map(parsePypiVersion);
  const sorted = (versions: PypiVersion[]) => [...versions].sort(comparePypiVersions).map(String);

  it('ignores trailing zeros and spelling, keeps local labels apart', () => {
    expect(parsePypiVersion('1.0').equals(parsePypiVersion('1.0.0'))).toBe(true);
    expect(parsePypiVersion('1.0c1').equals(parsePypiVersion('1.0RC1'))).toBe(true);
    expect(parsePypiVersion('v1.0-1').equals(parsePypiVersion('1.0.post1'))).toBe(true);
    expect(parsePypiVersion('1.0+1').equals(parsePypiVersion('1.0'))).toBe(false);
  });

  it('sorts dev < pre < final < post, numbers after strings in local labels', () => {
    expect(sorted(order('1.0.post1', '1.0', '1.0rc1', '1.0.dev1', '1.0a1.dev2', '1.0a1', '1.0+abc', '1.0+5', '1.0+abc.1'))).toEqual([
      '1.0.dev1',
      '1.0a1.dev2',
      '1.0a1',
      '1.0rc1',
      '1.0',
      '1.0+abc',
      '1.0+abc.1',
      '1.0+5',
      '1.0.post1',
    ]);
  });

  it('compares numbers beyond 2^53 exactly', () => {
    const big = parsePypiVersion('1.18446744073709551616');
    expect(big.release[1]).toBe(18446744073709551616n);
    expect(String(big)).toBe('1.18446744073709551616');
    expect(comparePypiVersions(big, parsePypiVersion('1.18446744073709551615'))).toBeGreaterThan(0);
    expect(parsePypiVersion('1.0009007199254740993').equals(parsePypiVersion('1.9007199254740993'))).toBe(true);
  });

  it('reads a leading v, whitespace around, implicit numbers and post-releases', () => {
    expect(String(parsePypiVersion(' V2!1.2.3-4 \n'))).toBe('2!1.2.3.post4');
    expect(String(parsePypiVersion('1.0-r'))).toBe('1.0.post0');
    expect(String(parsePypiVersion('1.0_preview_2'))).toBe('1.0rc2');
    expect(String(parsePypiVersion('1.0+Ubuntu-007'))).toBe('1.0+ubuntu.7');
  });

  it('gives major, minor and micro as packaging does', () => {
    const v = parsePypiVersion('2!3.14rc1');
    expect([v.major, v.minor, v.micro]).toEqual([3, 14, 0]);
  });

  it('names the text in the error', () => {
    expect(() => parsePypiVersion('1.0 beta')).toThrow('Cannot parse Python package version "1.0 beta": not a PEP 440 version');
  });
});
