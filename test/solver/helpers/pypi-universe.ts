/** A PyPI universe in memory for mixed-solve tests: projects as `name -> version -> { wheels, requires }`. */
import { parseWheelFileName } from '../../../vocabulary/pypi/distribution-file-name.js';
import { normalizePypiName } from '../../../vocabulary/pypi/name.js';
import { parseRequirement } from '../../../vocabulary/pypi/requirement.js';
import { parsePypiSpecifierSet } from '../../../vocabulary/pypi/specifier.js';
import { parsePypiVersion } from '../../../vocabulary/pypi/version.js';
import type { PypiData, PypiProjectData, PypiReleaseMetadata } from '../../../solver/pypi/types.js';

export interface ReleaseSpec {
  /** Wheel tags, `py3-none-any` by default. */
  readonly tags?: readonly string[];
  readonly requires?: readonly string[];
  readonly requiresPython?: string;
  readonly yanked?: boolean;
}

export type Universe = Readonly<Record<string, Readonly<Record<string, ReleaseSpec>>>>;

export function pypiData(universe: Universe): PypiData & { asked: string[] } {
  const projects = new Map<string, PypiProjectData>();
  const metadata = new Map<string, PypiReleaseMetadata>();
  for (const [name, releases] of Object.entries(universe)) {
    const normal = normalizePypiName(name);
    projects.set(normal, {
      name: normal,
      releases: Object.entries(releases).map(([version, spec]) => {
        metadata.set(`${normal}==${version}`, {
          name,
          version,
          requiresDist: (spec.requires ?? []).map((r) => parseRequirement(r)),
          requiresPython: spec.requiresPython ? parsePypiSpecifierSet(spec.requiresPython) : null,
          requiresPythonText: spec.requiresPython ?? null,
        });
        return {
          version: parsePypiVersion(version),
          text: version,
          yanked: spec.yanked === true,
          wheels: (spec.tags ?? ['py3-none-any']).map((tag) => {
            const filename = `${name.replace(/-/g, '_')}-${version}-${tag}.whl`;
            return {
              name: parseWheelFileName(filename),
              file: {
                filename,
                url: `https://files.example/${filename}`,
                index: 'https://pypi.org/simple/',
                hashes: { sha256: 'ab'.repeat(32) },
                size: 10,
                uploadTime: null,
                yanked: spec.yanked === true,
                requiresPython: spec.requiresPython ?? null,
              },
            };
          }),
        };
      }),
    });
  }
  const asked: string[] = [];
  return {
    asked,
    project: (name) => {
      asked.push(name);
      return projects.get(name) ?? null;
    },
    metadata: (name, version) => metadata.get(`${name}==${version}`),
  };
}
