/**
 * Signatures: the one grouping key. A signature is what a reason or failure says, leaving out the
 * versions it covers and the specs `mergeReasons` unites, so candidates ruled out the same way
 * share a group, and sibling requirements that fail the same way merge.
 */
import type { CandidateReason, RequirementFailure, Requirer } from './types.js';

export function reasonSignature(reason: CandidateReason): string {
  switch (reason.kind) {
    case 'requires':
      return `requires:${reason.name}:${failureSignature(reason.failure)}`;
    case 'conflicts':
      return `conflicts:${requirerSignature(reason.requirer)}`;
    case 'constrained':
      return `constrained:${reason.by}:${reason.spec}`;
    case 'constrains':
      return `constrains:${requirerSignature(reason.requirer)}`;
    case 'unusable':
      return `unusable:${reason.reason}`;
    case 'combination':
      return 'combination';
  }
}

function failureSignature(failure: RequirementFailure): string {
  switch (failure.kind) {
    case 'missing':
      return `missing:${failure.name}:${failure.excluded.map((e) => e.reason).join(',')}:${failure.available.length > 0}`;
    case 'cycle':
      return `cycle:${failure.spec}`;
    case 'unsatisfiable':
      return `unsat:${failure.groups.map((g) => reasonSignature(g.reason)).join(';')}`;
  }
}

/** The requirer's spec names the rival's package, so a `constrains` signature needs no target name. */
function requirerSignature(requirer: Requirer): string {
  return requirer.kind === 'requested' ? `requested:${requirer.spec}` : `${requirer.name}:${requirer.spec}`;
}
