/**
 * The MatchSpec strings the exporters write, from conda's `MatchSpec`: its canonical `str()`, its
 * environment-file form, its name, and a dependency's version spec (conda-lock's `dependencies`).
 * Parsing and the canonical forms are the vocabulary's (`vocabulary/match-spec.ts`); this module
 * only picks the part each format needs.
 */
import { parseMatchSpec } from '../../vocabulary/match-spec.js';

/** `MatchSpec(spec).name`. */
export function requestedName(spec: string): string {
  return parseMatchSpec(spec).name;
}

/** `str(MatchSpec(spec))`, as `requirements` writes it: `conda-forge::numpy==1.26.4=py312_0`. */
export function canonicalSpec(spec: string): string {
  return parseMatchSpec(spec).toString();
}

/**
 * `MatchSpec(spec).conda_env_form()`, as environment.yml lists requested specs: the canonical
 * string without its `channel::` prefix, the first `==` written `=` (`numpy=1.26.4=py312_0`).
 */
export function condaEnvForm(spec: string): string {
  return parseMatchSpec(spec).condaEnvForm();
}

/**
 * A dependency's name and version spec as conda-lock-v1 maps them: `MatchSpec(dep).name` and
 * `MatchSpec(dep).version.spec_str`, or `''` for a dependency without a version; the build string
 * is dropped. `python_abi 3.13.* *_cp313` gives `python_abi` and `3.13.*`.
 */
export function dependencyVersion(dep: string): { name: string; version: string } {
  const spec = parseMatchSpec(dep);
  return { name: spec.name, version: spec.version?.toString() ?? '' };
}
