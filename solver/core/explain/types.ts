/**
 * The structured reason a request has no solution: plain data (structured-cloneable and
 * JSON-serialisable), so it can cross a worker boundary, be rendered as text by `render.ts`, or be
 * served as JSON. Names, specs and versions are the ecosystem's display strings, and three fields
 * hold the ecosystem's own text (why a candidate is excluded or unusable, a note on a name), which
 * the core cannot interpret; everything else is facts, and only the renderer words them.
 *
 * It is built around the first root spec that cannot join the ones before it (conda takes the
 * user's specs in order), and says, requirement by requirement, why each candidate was ruled out.
 */

/**
 * Versions of one name, lowest first. Three or more versions that are consecutive among all the
 * versions the name has form one run.
 */
export type VersionList = readonly VersionSpan[];

export type VersionSpan =
  | { readonly kind: 'version'; readonly version: string }
  /** Every version of the name from `first` to `last`, both included. */
  | { readonly kind: 'run'; readonly first: string; readonly last: string };

export interface Explanation {
  /** The root spec that cannot be installed together with the specs before it. */
  readonly spec: string;
  /** Its index in the request's specs. */
  readonly specIndex: number;
  /** The specs before it (they can be installed together). */
  readonly earlierSpecs: readonly string[];
  readonly failure: RequirementFailure;
  /**
   * Set when the spec is blocked by what an earlier requested spec needs: that spec, and why none
   * of its candidates can be installed alongside this one. Renderers prefer it, since it names the
   * pair the user has to change.
   */
  readonly together: { readonly spec: string; readonly failure: RequirementFailure } | null;
  /** False when the solver's proof was too large to keep and the explanation may be partial. */
  readonly complete: boolean;
}

export type RequirementFailure =
  /** Nothing that matches the spec may be selected at all. */
  | {
      readonly kind: 'missing';
      readonly spec: string;
      readonly name: string;
      /** Selectable versions of the name that do not match the spec. */
      readonly available: VersionList;
      /**
       * Matching candidates that exist but were excluded, grouped by reason. The reason is the
       * ecosystem's text (the core cannot interpret it), e.g. that strict channel priority hides it.
       */
      readonly excluded: readonly { readonly reason: string; readonly versions: VersionList }[];
      /** The ecosystem's text about the name, e.g. that it is a virtual package. */
      readonly note: string | null;
    }
  /** There are matching candidates, and each of them is ruled out for a reason given per group. */
  | {
      readonly kind: 'unsatisfiable';
      readonly spec: string;
      readonly name: string;
      readonly groups: readonly CandidateGroup[];
    }
  /** The same requirement is already being explained further up the tree. */
  | { readonly kind: 'cycle'; readonly spec: string };

export interface CandidateGroup {
  readonly name: string;
  readonly versions: VersionList;
  /** True when the group holds every candidate of the requirement. */
  readonly all: boolean;
  readonly reason: CandidateReason;
}

/** Who needs a rival record of the same name. */
export type Requirer =
  | { readonly kind: 'requested'; readonly spec: string }
  | {
      readonly kind: 'package';
      readonly spec: string;
      readonly name: string;
      readonly versions: VersionList;
      /** Why that package has to be installed, when the proof says so. */
      readonly necessity: Necessity | null;
    };

/**
 * Why a package has to be installed: `requiredBy` needs `spec`, and every other candidate of it
 * (`alternatives`) is ruled out.
 */
export interface Necessity {
  readonly spec: string;
  readonly requiredBy: Requirer;
  readonly alternatives: readonly CandidateGroup[];
}

export type CandidateReason =
  /** Each candidate of the group requires one of `specs`, and that requirement cannot be met. */
  | {
      readonly kind: 'requires';
      readonly name: string;
      readonly specs: readonly string[];
      /** Candidate versions those specs allow. */
      readonly versions: VersionList;
      readonly failure: RequirementFailure;
    }
  /** A different record of the same name is needed by `requirer`. */
  | { readonly kind: 'conflicts'; readonly requirer: Requirer }
  /** Another selected package's `constrains` entry rules the candidate out. */
  | {
      readonly kind: 'constrained';
      readonly by: string;
      readonly byVersions: VersionList;
      readonly spec: string;
      readonly necessity: Necessity | null;
    }
  /**
   * The candidate's own `constrains` entry rejects a record that `requirer` needs. `specs` holds the
   * entries of every candidate in the group (builds often pin a sibling to their own build string).
   */
  | { readonly kind: 'constrains'; readonly specs: readonly string[]; readonly requirer: Requirer }
  /** The candidate's own metadata cannot be used; `reason` is the ecosystem's text saying why. */
  | { readonly kind: 'unusable'; readonly reason: string }
  /** The candidate is ruled out only in combination with other choices. */
  | { readonly kind: 'combination' };
