/**
 * conda-resolve as a library: resolve environments for several platforms and render them in any
 * export format, the same path the CLI takes.
 *
 *   import { resolveEnvironments, exportResolution, toNative } from 'conda-resolve';
 *   const resolution = await resolveEnvironments({ specs: ['python=3.12'], platforms: ['linux-64', 'win-64'] });
 *   const json = toNative(resolution);
 *   const lock = exportResolution(resolution, 'pixi');
 *
 * The API, all of it exported here (this file only curates it; the library's own code is in
 * `src/library/`):
 * - `resolveEnvironments(request, options)` -> `Resolution`: one `PlatformResolution` per platform,
 *   with its records, or its `error`, `errorCode` and (when unsatisfiable) structured `explanation`.
 *   Types: `ResolveRequest`, `InputFile`, `ResolveEnvironmentsOptions`, `Resolution`,
 *   `PlatformResolution`, `PreparedRequest` (the checked request a resolution carries),
 *   `ChannelPriority`, `Explanation`.
 * - `toNative(resolution)` -> the CLI's native JSON (`SolveResult`, `NativePackage`).
 * - `exportResolution(resolution, format, options)` -> the text of an export format, with the
 *   exporter registry: `registerBuiltinExporters`, `loadRegistry` (adds installed plugins),
 *   `ExporterRegistry`, `UnknownFormatError`, and for writing exporters `Exporter`,
 *   `ExportEnvironment`, `ExportContext`.
 * - Where solves run (`options.solver`): `PlatformSolver` (`PlatformSolveInput`,
 *   `PlatformSolveOutcome`), `InProcessSolver` (this thread, the default) and `SolvePool`
 *   (worker threads; `SolvePoolOptions`).
 * - Errors: `CondaResolveError` (every error thrown carries a `code` from `ERROR_CODES`),
 *   `InvalidArgumentError`, `ResolveAbortedError`.
 * - `TOOL_NAME`, `TOOL_VERSION`.
 *
 * Lower layers have their own entry points: `conda-resolve/solver` (the pure solver, no I/O),
 * `conda-resolve/repodata` (channels, fetching, caching; `RepodataStore` for `options.store`) and
 * `conda-resolve/vocabulary` (versions, match specs, records, platforms).
 */
export type { ChannelPriority, Explanation } from '../solver/index.js';
export { CondaResolveError, ERROR_CODES } from './errors.js';
export type { ExportEnvironment, Exporter, ExportContext } from './exporters/index.js';
export { ExporterRegistry, UnknownFormatError, loadRegistry, registerBuiltinExporters } from './exporters/index.js';
export type { NativePackage, SolveResult } from './native-result.js';
export type { InputFile, PreparedRequest, ResolveRequest } from './request.js';
// Inspecting resolutions: `treeOf(r)`, `whyOf(r, name)`; `whyNot(current, withSpec, parseExtraSpec(spec))` where `withSpec` resolves the request with `spec` appended to `specs`.
export { buildGraph, parseExtraSpec, treeOf, whyNot, whyOf, withAddedSpec } from './inspect/index.js';
export type { DependencyGraph, GraphEdge, PlatformTree, PlatformWhy, TreeNode, WhyAnswer, WhyNotAnswer } from './inspect/index.js';
export { toNative, type PlatformResolution, type Resolution } from './resolve.js';
export { InProcessSolver } from './solving/platform-runner.js';
export { SolvePool, type SolvePoolOptions } from './solving/solve-pool.js';
export type { PlatformSolveInput, PlatformSolveOutcome, PlatformSolver } from './solving/types.js';
export { TOOL_NAME, TOOL_VERSION } from './version.js';
export { exportResolution } from './library/export-resolution.js';
export { InvalidArgumentError, ResolveAbortedError } from './library/errors.js';
export { resolveEnvironments, type ResolveEnvironmentsOptions } from './library/resolve-environments.js';
