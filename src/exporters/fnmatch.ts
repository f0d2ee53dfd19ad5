/**
 * Python's `fnmatch.fnmatchcase`: shell-style patterns (`*`, `?`, `[seq]`, `[!seq]`), matched
 * against the whole name, case-sensitively. conda's `detect_environment_exporter` matches a file's
 * basename against each exporter's default filenames this way (on POSIX, where `fnmatch` does not
 * fold case), so `-o pixi.lock` picks `rattler-lock-v6`.
 */

const cache = new Map<string, RegExp>();

export function fnmatch(name: string, pattern: string): boolean {
  let regex = cache.get(pattern);
  if (!regex) {
    regex = new RegExp(`^(?:${translate(pattern)})$`, 's');
    cache.set(pattern, regex);
  }
  return regex.test(name);
}

function escapeRegex(ch: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(ch) ? `\\${ch}` : ch;
}

/** `fnmatch.translate`, without the `(?s:...)\Z` wrapper. */
function translate(pattern: string): string {
  let out = '';
  let i = 0;
  const n = pattern.length;
  while (i < n) {
    const c = pattern[i++];
    if (c === '*') {
      while (pattern[i] === '*') i++;
      out += '.*';
    } else if (c === '?') {
      out += '.';
    } else if (c === '[') {
      let j = i;
      if (j < n && pattern[j] === '!') j++;
      if (j < n && pattern[j] === ']') j++;
      while (j < n && pattern[j] !== ']') j++;
      if (j >= n) {
        out += '\\[';
      } else {
        let set = pattern.slice(i, j).replace(/\\/g, '\\\\').replace(/]/g, '\\]');
        i = j + 1;
        if (set.startsWith('!')) set = '^' + set.slice(1);
        else if (set.startsWith('^') || set.startsWith('[')) set = '\\' + set;
        out += `[${set}]`;
      }
    } else {
      out += escapeRegex(c);
    }
  }
  return out;
}
