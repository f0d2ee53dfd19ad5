/**
 * The vocabulary's MatchSpec behind the provider's `SolverSpec` seam, with the short display the
 * explanations use (`numpy >=2`, `python 3.9.*`, `conda-forge::numpy 1.26.*`), which reads better in a
 * sentence than conda's canonical `numpy[version='>=2']`.
 */
import { parseMatchSpec, type MatchSpec } from '../../vocabulary/match-spec.js';
import { SolveSpecError } from '../errors.js';
import type { SolverSpec, SpecParser } from './spec.js';

export const vocabularySpecParser: SpecParser = (input): SolverSpec => {
  const spec = typeof input === 'string' ? parseMatchSpec(input) : input;
  if (!spec.nameIsExact) throw new SolveSpecError(spec.source, 'the package name must be exact, not a pattern');
  let shown: string | undefined;
  return {
    name: spec.name,
    channel: spec.channel,
    matches: (record) => spec.matches(record),
    display: () => (shown ??= displaySpec(spec)),
  };
};

export function displaySpec(spec: MatchSpec): string {
  const extra =
    spec.buildNumber ||
    spec.md5 ||
    spec.sha256 ||
    spec.url ||
    spec.fn ||
    spec.license ||
    spec.licenseFamily ||
    spec.trackFeatures ||
    spec.features;
  if (extra) return spec.toString();
  let text = spec.name;
  if (spec.channel !== null) text = `${spec.channel}${spec.subdir !== null ? `/${spec.subdir}` : ''}::${text}`;
  else if (spec.subdir !== null) text = `${text}[subdir=${spec.subdir}]`;
  if (spec.version !== null && !spec.version.matchesAll) text += ` ${spec.version.text}`;
  if (spec.build !== null && spec.build !== '*') text += `${spec.version === null || spec.version.matchesAll ? ' *' : ''} ${spec.build}`;
  return text;
}
