import { describe, expect, it } from 'vitest';
import { isNormalizedPypiName, isValidPypiName, normalizePypiName, parsePypiName } from '../../../vocabulary/pypi/name.js';
import { packagingVectors } from './vectors.js';

describe('PEP 503 names', () => {
  it.each(packagingVectors<{ name: string; expected: string }>('test_utils', 'test_canonicalize_name'))(
    'normalises $name',
    ({ name, expected }) => {
      expect(normalizePypiName(name)).toBe(expected);
      expect(isValidPypiName(name)).toBe(true);
      expect(isNormalizedPypiName(expected)).toBe(true);
    },
  );

  it.each(packagingVectors<{ name: string; expected: string }>('test_utils', 'test_canonicalize_name_invalid'))(
    'normalises the invalid $name without checking, refuses it when parsing',
    ({ name, expected }) => {
      expect(normalizePypiName(name)).toBe(expected);
      expect(isValidPypiName(name)).toBe(false);
      expect(() => parsePypiName(name)).toThrow(expect.objectContaining({ code: 'CR_ERR_PYPI_NAME_INVALID' }));
    },
  );

  it.each(packagingVectors<{ name: string; expected: string }>('test_utils', 'test_is_normalized_name'))(
    'tells $name is normalised or not',
    ({ name, expected }) => {
      expect(isNormalizedPypiName(expected)).toBe(true);
      expect(isNormalizedPypiName(name)).toBe(name === expected);
    },
  );

  it('parses and normalises a valid name, names the bad one in the error', () => {
    expect(parsePypiName('Typing_Extensions')).toBe('typing-extensions');
    expect(() => parsePypiName('café')).toThrow('Cannot parse Python project name "café"');
    expect(isValidPypiName('-a')).toBe(false);
    expect(isValidPypiName('a')).toBe(true);
  });
});
