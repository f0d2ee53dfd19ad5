/**
 * Which of a release's files to read: the wheel the target prefers (`bestWheel`: tag rank, then
 * build tag, as pip orders them); an sdist only when the caller accepts one; otherwise the
 * no-compatible-wheel error, worded by vocabulary/pypi/missing-wheel.ts (the platforms the release
 * has wheels for, what would help).
 */
import type { NoCompatibleWheelError } from '../../vocabulary/pypi/distribution-errors.js';
import { parseDistributionFileName, type SdistFileName, type WheelFileName } from '../../vocabulary/pypi/distribution-file-name.js';
import { noCompatibleWheelError } from '../../vocabulary/pypi/missing-wheel.js';
import { bestWheel, type TargetTags } from '../../vocabulary/pypi/tags.js';
import { comparePypiVersions, parsePypiVersion, type PypiVersion } from '../../vocabulary/pypi/version.js';
import type { PypiFile, PypiProject } from './types.js';

export interface SelectOptions {
  /** Take an sdist when no wheel fits (its metadata is then usable only if static). Default false. */
  readonly allowSdist?: boolean;
}

/** The files of one release of `project`, as parsed names (files that are neither wheel nor sdist, or misnamed, left out). */
export function releaseFiles(
  project: PypiProject,
  version: PypiVersion | string,
): { wheels: { file: PypiFile; name: WheelFileName }[]; sdists: { file: PypiFile; name: SdistFileName }[] } {
  const wanted = typeof version === 'string' ? parsePypiVersion(version) : version;
  const wheels: { file: PypiFile; name: WheelFileName }[] = [];
  const sdists: { file: PypiFile; name: SdistFileName }[] = [];
  for (const file of project.files) {
    let name;
    try {
      name = parseDistributionFileName(file.filename, { project: project.name });
    } catch {
      continue;
    }
    if (name === undefined || name.name !== project.name || comparePypiVersions(name.version, wanted) !== 0) continue;
    if (name.kind === 'wheel') wheels.push({ file, name });
    else sdists.push({ file, name });
  }
  return { wheels, sdists };
}

/**
 * The file to read the release's metadata from for `target`. Throws `NoCompatibleWheelError`
 * (`CR_ERR_PYPI_NO_COMPATIBLE_WHEEL`) when no wheel fits (and no sdist is accepted or there is none).
 * Yanked files are candidates like any other: the flag is on the file for the resolver (PEP 592:
 * usable only for an `==` pin).
 */
export function selectFile(project: PypiProject, version: PypiVersion | string, target: TargetTags, options: SelectOptions = {}): PypiFile {
  const { wheels, sdists } = releaseFiles(project, version);
  const best = bestWheel(
    target,
    wheels.map((w) => ({ ...w, tags: w.name.tags, build: w.name.build })),
  );
  if (best !== undefined) return best.file;
  if (options.allowSdist && sdists.length > 0) return sdists[0]!.file;
  const text = typeof version === 'string' ? version : version.toString();
  const error: NoCompatibleWheelError = noCompatibleWheelError(
    project.name,
    text,
    target,
    wheels.map((w) => w.name),
    { hasSdist: sdists.length > 0 },
  );
  throw error;
}
