import { describe, expect, it } from 'vitest';
import { FileCommandError, parseFileCommands } from './file-commands.js';

describe("GITHUB_OUTPUT / GITHUB_ENV parsing (the runner's rules)", () => {
  it('reads NAME=VALUE lines, keeping everything after the first =', () => {
    expect(parseFileCommands('a=1\n\nb=x=y\nc=\n')).toEqual([
      ['a', '1'],
      ['b', 'x=y'],
      ['c', ''],
    ]);
  });

  it('reads NAME<<DELIMITER blocks without the newline before the delimiter', () => {
    expect(parseFileCommands('r<<EOF\nline 1\nline 2\nEOF\n')).toEqual([['r', 'line 1\nline 2']]);
    expect(parseFileCommands('r<<EOF\nabc\n\nEOF\n')).toEqual([['r', 'abc\n']]);
    expect(parseFileCommands('r<<EOF\n\nEOF\n')).toEqual([['r', '']]);
    expect(parseFileCommands('r<<EOF\nEOF\n')).toEqual([['r', '']]);
    expect(parseFileCommands('r<<EOF\nx=1\nEOFX\nEOF\nn=2')).toEqual([
      ['r', 'x=1\nEOFX'],
      ['n', '2'],
    ]);
  });

  it('keeps carriage returns on Linux (only LF separates lines)', () => {
    expect(parseFileCommands('r<<EOF\na\r\nEOF\n')).toEqual([['r', 'a\r']]);
  });

  it('uses whichever of = and << comes first', () => {
    expect(parseFileCommands('a=b<<c\n')).toEqual([['a', 'b<<c']]);
    expect(parseFileCommands('a<<D=\nv\nD=\n')).toEqual([['a', 'v']]);
  });

  it.each([
    ['r<<EOF\nno end\n', /matching delimiter not found "EOF"/],
    ['=value\n', /name must not be empty/],
    ['<<EOF\nx\nEOF\n', /name and the delimiter must not be empty/],
    ['just text\n', /Invalid format "just text"/],
  ])('rejects %j', (text, message) => {
    expect(() => parseFileCommands(text)).toThrow(FileCommandError);
    expect(() => parseFileCommands(text)).toThrow(message);
  });
});
