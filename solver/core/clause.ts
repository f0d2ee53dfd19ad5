/**
 * The kinds of clause the core writes, one member per kind, each with its SAT form.
 *
 * A dependency problem needs only a few shapes of clause, and each comes from something in the
 * package domain; keeping that origin with the clause is what lets an explanation say "a 1
 * requires b >=2" instead of showing literals. The literals themselves live packed in the
 * `ClauseStore`; a `Clause` is what the literals mean.
 *
 * In the SAT forms, A and B are solvables' variables and "root" is the variable that is true
 * from the start.
 */
import {
  ROOT_VARIABLE,
  solvableOfVariable,
  type ClauseId,
  type NameId,
  type SolvableId,
  type VariableId,
  type VersionSetId,
} from './ids.js';

/**
 * A requirement: if A is selected, one of the version set's candidates B1 … Bn is. A is the root
 * for the user's specs.
 *
 * In SAT terms: (¬A ∨ B1 ∨ … ∨ Bn); with no candidates it is the unit (¬A). A solvable that
 * matches its own requirement makes it the tautology (¬A ∨ A).
 */
export interface RequiresClause {
  readonly kind: 'requires';
  readonly parent: VariableId;
  readonly versionSet: VersionSetId;
  /** The version set's name (what the decision heuristic groups by). */
  readonly name: NameId;
}

/**
 * A's `constrains` entry rejects B: they cannot both be selected. One clause per rejected
 * candidate, written once B's name is reached.
 *
 * In SAT terms: (¬A ∨ ¬B); the unit (¬A) when A rejects itself.
 */
export interface ConstrainsClause {
  readonly kind: 'constrains';
  readonly parent: VariableId;
  readonly target: VariableId;
  readonly versionSet: VersionSetId;
}

/**
 * A and B share a name, so at most one of them is selected. At-most-one is propagated natively
 * (see `propagation.ts`); this clause is only written down when a conflict or a proof needs it,
 * and it is never watched.
 *
 * In SAT terms: (¬A ∨ ¬B), with A < B.
 */
export interface ForbidClause {
  readonly kind: 'forbid';
  readonly a: VariableId;
  readonly b: VariableId;
  readonly name: NameId;
}

/**
 * A's dependencies could not be read, so A may not be selected.
 *
 * In SAT terms: (¬A).
 */
export interface UnknownClause {
  readonly kind: 'unknown';
  readonly variable: VariableId;
  readonly reason: string;
}

/**
 * Derived by conflict analysis (first UIP). `why` locates, in the analyser's why pool, the
 * clauses and level-0 assignments it was derived from, so an unsat core (and so an explanation)
 * never shows a learnt clause; `why` is null once the pool was full. `lbd` is the number of
 * decision levels among its literals when learnt (lower is more useful).
 *
 * In SAT terms: any clause implied by the others.
 */
export interface LearntClause {
  readonly kind: 'learnt';
  readonly why: WhyRange | null;
  readonly lbd: number;
}

export interface WhyRange {
  readonly start: number;
  readonly length: number;
}

export type Clause = RequiresClause | ConstrainsClause | ForbidClause | UnknownClause | LearntClause;

/** What an original clause says, in the provider's ids, for explanations. */
export type CoreClause =
  | { readonly kind: 'requires'; readonly parent: SolvableId | null; readonly versionSet: VersionSetId }
  | {
      readonly kind: 'constrains';
      readonly parent: SolvableId;
      readonly target: SolvableId;
      readonly versionSet: VersionSetId;
    }
  | { readonly kind: 'forbid'; readonly a: SolvableId; readonly b: SolvableId; readonly name: NameId }
  | { readonly kind: 'unknown'; readonly solvable: SolvableId; readonly reason: string };

/** `clause` in the provider's ids; throws for a learnt clause, which no explanation shows. */
export function describeClause(clause: Clause, id: ClauseId): CoreClause {
  switch (clause.kind) {
    case 'requires':
      return {
        kind: 'requires',
        parent: clause.parent === ROOT_VARIABLE ? null : solvableOfVariable(clause.parent),
        versionSet: clause.versionSet,
      };
    case 'constrains':
      return {
        kind: 'constrains',
        parent: solvableOfVariable(clause.parent),
        target: solvableOfVariable(clause.target),
        versionSet: clause.versionSet,
      };
    case 'forbid':
      return { kind: 'forbid', a: solvableOfVariable(clause.a), b: solvableOfVariable(clause.b), name: clause.name };
    case 'unknown':
      return { kind: 'unknown', solvable: solvableOfVariable(clause.variable), reason: clause.reason };
    case 'learnt':
      throw new Error(`clause ${id} is not an original clause`);
  }
}
