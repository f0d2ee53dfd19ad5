/**
 * The GitHub runner's reading of the `GITHUB_OUTPUT` / `GITHUB_ENV` files, ported from
 * actions/runner (`SetEnvFileCommand` in src/Runner.Worker/FileCommandManager.cs; outputs use the
 * same reader): lines split on LF (the Linux and macOS runner), `NAME=VALUE` or `NAME<<DELIMITER`
 * followed by value lines up to a line equal to DELIMITER. The value excludes the newline before
 * the delimiter line. A missing delimiter or empty name is an error, as on GitHub.
 */

export class FileCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileCommandError';
  }
}

/** Name/value pairs in file order; a later pair with the same name wins when applied. */
export function parseFileCommands(text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  let index = 0;

  // Returns the next line without its LF, and the length of the newline consumed (0 at EOF).
  const readLine = (): { line: string; newline: number } | null => {
    if (index >= text.length) return null;
    const lf = text.indexOf('\n', index);
    if (lf < 0) {
      const line = text.slice(index);
      index = text.length;
      return { line, newline: 0 };
    }
    const line = text.slice(index, lf);
    index = lf + 1;
    return { line, newline: 1 };
  };

  for (let next = readLine(); next !== null; next = readLine()) {
    const { line } = next;
    if (line === '') continue;
    const equals = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      const name = line.slice(0, equals);
      if (name === '') throw new FileCommandError(`Invalid format "${line}": the name must not be empty`);
      pairs.push([name, line.slice(equals + 1)]);
    } else if (heredoc >= 0 && (equals < 0 || heredoc < equals)) {
      const name = line.slice(0, heredoc);
      const delimiter = line.slice(heredoc + 2);
      if (name === '' || delimiter === '') {
        throw new FileCommandError(`Invalid format "${line}": the name and the delimiter must not be empty`);
      }
      const start = index;
      let end = index;
      let valueLine = readLine();
      while (valueLine === null || valueLine.line !== delimiter) {
        if (valueLine === null) throw new FileCommandError(`Invalid value: matching delimiter not found "${delimiter}"`);
        end = index - valueLine.newline;
        valueLine = readLine();
      }
      pairs.push([name, end > start ? text.slice(start, end) : '']);
    } else {
      throw new FileCommandError(`Invalid format "${line}"`);
    }
  }
  return pairs;
}
