/**
 * Several specs of one name as one short phrase, for "requires python 2.7*, 3.4* .. 3.6*": the
 * builds of one version often each need a different release series, and listing the specs in full
 * repeats the name, while listing the versions that match them says nothing when none do.
 *
 * Only text is read: a spec is `<name> <rest>`; a rest that names one `major.minor` series
 * (`3.5*`, `3.5.*`, `3.5`, `==3.5.*`, `>=3.5,<3.6` with an optional `.0a0`) is a series, and three
 * or more consecutive series of one major become one run. Anything else is kept as written.
 */

/** Items shown before "and N more". */
const MAX_ITEMS = 6;

interface Series {
  readonly major: number;
  readonly minor: number;
  readonly text: string;
}

/** "python 2.7*, 3.4.* .. 3.6.* or >=3.8", or null unless every spec is `name` followed by a constraint. */
export function compactSpecs(name: string, specs: readonly string[]): string | null {
  const prefix = `${name} `;
  if (specs.length === 0 || !specs.every((spec) => spec.startsWith(prefix))) return null;
  const series: Series[] = [];
  const others: string[] = [];
  for (const spec of specs) {
    const rest = spec.slice(prefix.length).trim();
    const parsed = parseSeries(rest);
    if (parsed) series.push(parsed);
    else if (!others.includes(rest)) others.push(rest);
  }
  series.sort((a, b) => a.major - b.major || a.minor - b.minor);
  const items = [...seriesItems(series), ...others];
  const shown = items.length > MAX_ITEMS ? [...items.slice(0, MAX_ITEMS - 1), `${items.length - MAX_ITEMS + 1} more`] : items;
  const text = shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}`;
  return `${name} ${text}`;
}

function parseSeries(rest: string): Series | null {
  let match = /^(?:==)?(\d+)\.(\d+)(?:\.?\*)?$/.exec(rest);
  if (match) return { major: Number(match[1]), minor: Number(match[2]), text: rest };
  match = /^>=(\d+)\.(\d+)(?:\.0)?,<(\d+)\.(\d+)(?:\.0a0)?$/.exec(rest);
  if (match && match[1] === match[3] && Number(match[4]) === Number(match[2]) + 1) {
    return { major: Number(match[1]), minor: Number(match[2]), text: rest };
  }
  return null;
}

/** Each series once; runs of three or more consecutive minors as `first .. last` in `X.Y.*` form. */
function seriesItems(series: readonly Series[]): string[] {
  const unique = series.filter((s, i) => i === 0 || s.major !== series[i - 1].major || s.minor !== series[i - 1].minor);
  const items: string[] = [];
  let start = 0;
  for (let i = 1; i <= unique.length; i++) {
    const consecutive = i < unique.length && unique[i].major === unique[i - 1].major && unique[i].minor === unique[i - 1].minor + 1;
    if (consecutive) continue;
    const run = unique.slice(start, i);
    if (run.length >= 3) items.push(`${run[0].major}.${run[0].minor}.* .. ${run[run.length - 1].major}.${run[run.length - 1].minor}.*`);
    else items.push(...run.map((s) => s.text));
    start = i;
  }
  return items;
}
