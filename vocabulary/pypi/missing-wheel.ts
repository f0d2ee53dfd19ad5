/**
 * The error for a release none of whose wheels the target accepts, worded so the user sees what
 * would help: the platforms the release has wheels for, whether its wheels for this platform are
 * for other Pythons, and whether a newer `__glibc` or `__osx` would let one in.
 */
import { NoCompatibleWheelError } from './distribution-errors.js';
import type { WheelFileName } from './distribution-file-name.js';
import type { TargetTags } from './tags.js';

/** How many platform tags the message lists before "and N more". */
const LISTED_PLATFORMS = 10;

const MANYLINUX = /^manylinux_([0-9]+)_([0-9]+)_(.+)$/;
const LEGACY_MANYLINUX: Readonly<Record<string, readonly [number, number]>> = {
  manylinux1: [2, 5],
  manylinux2010: [2, 12],
  manylinux2014: [2, 17],
};
const MACOS = /^macosx_([0-9]+)_([0-9]+)_(.+)$/;

function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** A wheel's platform tags without the legacy aliases it also names (`manylinux2014_x86_64` beside `manylinux_2_17_x86_64`). */
function wheelPlatforms(wheel: WheelFileName): string[] {
  const platforms = [...new Set(wheel.tags.map((tag) => tag.platform))];
  const canonical = platforms.filter((platform) => !/^manylinux(1|2010|2014)_/.test(platform));
  return canonical.length > 0 ? canonical : platforms;
}

function glibcOf(platform: string): { glibc: readonly [number, number]; arch: string } | undefined {
  const match = MANYLINUX.exec(platform);
  if (match) return { glibc: [Number(match[1]), Number(match[2])], arch: match[3]! };
  const legacy = /^(manylinux1|manylinux2010|manylinux2014)_(.+)$/.exec(platform);
  return legacy ? { glibc: LEGACY_MANYLINUX[legacy[1]!]!, arch: legacy[2]! } : undefined;
}

function older(a: readonly [number, number], b: readonly [number, number]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}

/** A hint that a newer glibc or macOS than the target's would admit a wheel, or undefined. */
function newerSystemHint(target: TargetTags, wheels: readonly WheelFileName[]): string | undefined {
  const linuxArch = target.platforms.find((platform) => platform.startsWith('linux_'))?.slice('linux_'.length);
  const acceptsInterpreter = (wheel: WheelFileName) =>
    wheel.tags.some((tag) => target.tags.some((accepted) => accepted.startsWith(`${tag.interpreter}-${tag.abi}-`)));
  if (linuxArch !== undefined) {
    let oldest: readonly [number, number] | undefined;
    for (const wheel of wheels) {
      if (!acceptsInterpreter(wheel)) continue;
      for (const tag of wheel.tags) {
        const found = glibcOf(tag.platform);
        if (found && found.arch === linuxArch && (oldest === undefined || older(found.glibc, oldest))) oldest = found.glibc;
      }
    }
    if (oldest !== undefined) {
      const version = `${oldest[0]}.${oldest[1]}`;
      return `its oldest manylinux wheel for ${linuxArch} needs glibc ${version} (give the target a newer one with __glibc=${version} if it has it)`;
    }
  }
  if (target.platform.startsWith('osx-')) {
    const formats =
      target.platform === 'osx-arm64' ? ['arm64', 'universal2'] : ['x86_64', 'intel', 'fat64', 'fat3', 'universal2', 'universal'];
    let oldest: readonly [number, number] | undefined;
    for (const wheel of wheels) {
      if (!acceptsInterpreter(wheel)) continue;
      for (const tag of wheel.tags) {
        const match = MACOS.exec(tag.platform);
        if (!match || !formats.includes(match[3]!)) continue;
        const version: [number, number] = [Number(match[1]), Number(match[2])];
        if (oldest === undefined || older(version, oldest)) oldest = version;
      }
    }
    if (oldest !== undefined) {
      const version = `${oldest[0]}.${oldest[1]}`;
      return `its oldest macOS wheel for ${target.platform} needs macOS ${version} (give the target __osx=${version} if it has it)`;
    }
  }
  return undefined;
}

/**
 * The text of the error: "numpy 2.1.3 has wheels for manylinux_2_17_x86_64, macosx_14_0_arm64 and
 * win_amd64, none for linux-aarch64 (CPython 3.13, glibc 2.28)", and a hint when one helps.
 * `wheels` are the release's wheels; `hasSdist` says whether it has an sdist (which conda-resolve
 * uses only when its metadata is static, and never builds).
 */
export function describeMissingWheel(
  project: string,
  version: string,
  target: TargetTags,
  wheels: readonly WheelFileName[],
  options: { hasSdist?: boolean } = {},
): string {
  const dash = target.description.indexOf(', ');
  const targetText = dash < 0 ? target.description : `${target.description.slice(0, dash)} (${target.description.slice(dash + 2)})`;
  if (wheels.length === 0) {
    return `${project} ${version} has no wheels${options.hasSdist ? ', only an sdist' : ''}, none for ${targetText}`;
  }
  const platforms = [...new Set(wheels.flatMap(wheelPlatforms))];
  const listed =
    platforms.length > LISTED_PLATFORMS
      ? [...platforms.slice(0, LISTED_PLATFORMS), `${platforms.length - LISTED_PLATFORMS} more`]
      : platforms;
  let text = `${project} ${version} has wheels for ${listText(listed)}, none for ${targetText}`;

  // Wheels built for this platform, but for other Pythons.
  const accepted = new Set(target.platforms);
  accepted.add('any');
  const samePlatform = wheels.filter((wheel) => wheel.tags.some((tag) => accepted.has(tag.platform)));
  if (samePlatform.length > 0) {
    const interpreters = [
      ...new Set(
        samePlatform.flatMap((wheel) =>
          wheel.tags
            .filter((tag) => accepted.has(tag.platform))
            .map((tag) => (tag.abi === 'none' || tag.abi === tag.interpreter ? tag.interpreter : `${tag.interpreter}-${tag.abi}`)),
        ),
      ),
    ];
    text += `; its wheels for this platform are for ${listText(interpreters)}`;
  } else {
    const hint = newerSystemHint(target, wheels);
    if (hint !== undefined) text += `; ${hint}`;
  }
  if (options.hasSdist) text += '; it has an sdist, which would need a build (conda-resolve never builds)';
  return text;
}

/** The typed error carrying `describeMissingWheel`'s text. */
export function noCompatibleWheelError(
  project: string,
  version: string,
  target: TargetTags,
  wheels: readonly WheelFileName[],
  options: { hasSdist?: boolean } = {},
): NoCompatibleWheelError {
  return new NoCompatibleWheelError(project, version, target.platform, describeMissingWheel(project, version, target, wheels, options));
}
