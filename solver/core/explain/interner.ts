/**
 * The display contract an explanation needs from the ecosystem: the core holds only ids, and only
 * the provider's ecosystem knows how a name, a version or a version set is written and ordered.
 */
import type { NameId, SolvableId, VersionSetId } from '../ids.js';
import type { ExcludedCandidate } from '../provider.js';

/** How explanations show names, versions and version sets (the provider's ecosystem decides). */
export interface ExplainInterner {
  displayName(name: NameId): string;
  /** The version set with its name, as a user would write it: `python >=3.10`. */
  displayVersionSet(versionSet: VersionSetId): string;
  displayVersion(solvable: SolvableId): string;
  /** Orders solvables of one name by version, lowest first. */
  compareVersions(a: SolvableId, b: SolvableId): number;
  /** Candidates that match the version set but were excluded (strict priority, exclude-newer...). */
  excludedMatching(versionSet: VersionSetId): readonly ExcludedCandidate[];
  /** Something worth telling about a name nothing (suitable) provides, e.g. that it is virtual. */
  noteOnName?(name: NameId): string | undefined;
}
