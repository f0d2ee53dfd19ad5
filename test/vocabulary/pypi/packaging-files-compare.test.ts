/**
 * Our wheel tags, file names and core metadata against Python's `packaging` on the same inputs, one
 * python3 process for all the tests (one interpreter start-up and import instead of one per test).
 * The tags of a target are computed in Python with packaging's own functions given the target
 * explicitly (`cpython_tags`, `compatible_tags`, `mac_platforms`, and `_linux_platforms` with the
 * glibc, musl and architecture patched in), never from this machine.
 *
 * Needs packaging 26.1 or newer (abi3t, PEP 803), standalone or pip's vendored copy; skipped with a
 * message otherwise. packaging 26.3 refuses tag sets with an empty member or an interpreter that is
 * not an identifier, and puts `linux_<arch>` first: with an older packaging the script applies the
 * first rule itself, and our order keeps `linux_<arch>` last (tags.ts says why).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCoreMetadata, requiresDistOf, type CoreMetadata } from '../../../vocabulary/pypi/core-metadata.js';
import { formatWheelTag, parseSdistFileName, parseWheelFileName } from '../../../vocabulary/pypi/distribution-file-name.js';
import { targetTags, type TagTarget } from '../../../vocabulary/pypi/tags.js';

/** The `packaging` module to use, or why there is none. */
function findPackaging(): { module: string } | { missing: string } {
  for (const module of ['packaging', 'pip._vendor.packaging']) {
    const probe = spawnSync('python3', ['-c', `import ${module} as p; print(p.__version__)`], { encoding: 'utf8' });
    if (probe.status !== 0) continue;
    const [major = 0, minor = 0] = probe.stdout.trim().split('.').map(Number);
    if (major > 26 || (major === 26 && minor >= 1)) return { module };
  }
  return { missing: 'python3 with packaging >= 26.1 (or a pip vendoring it) is not available' };
}

const PACKAGING = findPackaging();
if ('missing' in PACKAGING) console.warn(`[conda-resolve tests] ${PACKAGING.missing}: the comparison with Python's packaging is skipped`);
const describePython = 'module' in PACKAGING ? describe : describe.skip;

const SCRIPT = String.raw`
import json, sys, importlib, sysconfig
P = importlib.import_module(MODULE)
T = importlib.import_module(MODULE + ".tags")
U = importlib.import_module(MODULE + ".utils")
ML = importlib.import_module(MODULE + "._manylinux")
MU = importlib.import_module(MODULE + "._musllinux")
MD = importlib.import_module(MODULE + ".metadata")
NEW_RULES = tuple(int(x) for x in P.__version__.split(".")[:2]) >= (26, 3)
LINUX = {"linux-64": "x86_64", "linux-32": "i686", "linux-aarch64": "aarch64", "linux-armv6l": "armv6l",
         "linux-armv7l": "armv7l", "linux-ppc64": "ppc64", "linux-ppc64le": "ppc64le", "linux-s390x": "s390x",
         "linux-riscv64": "riscv64"}
MAC = {"osx-64": "x86_64", "osx-arm64": "arm64"}
WIN = {"win-64": "win_amd64", "win-32": "win32", "win-arm64": "win_arm64"}

def vp(target, name):
    for p in target.get("virtualPackages", []):
        if p["name"] == name:
            return tuple(int(x) for x in p["version"].split(".")[:2])
    return None

def platforms(target):
    plat = target["platform"]
    if plat in LINUX:
        glibc, musl = vp(target, "__glibc"), vp(target, "__musl")
        ML._get_glibc_version = lambda: glibc or (-1, -1)
        ML._is_linux_armhf = lambda executable: True  # conda's armv7l is hard-float
        ML._is_linux_i686 = lambda executable: True
        MU._get_musl_version = lambda executable: MU._MuslVersion(*musl) if musl else None
        sysconfig.get_platform = lambda: "linux-" + LINUX[plat]
        found = list(T._linux_platforms(is_32bit=False))
        native = "linux_" + LINUX[plat]
        return [p for p in found if p != native] + [native]  # packaging 26.3 puts it first; we keep it last
    if plat in MAC:
        osx = vp(target, "__osx")
        return list(T.mac_platforms(osx, MAC[plat])) if osx else []
    return [WIN[plat]] if plat in WIN else []

def tags(target):
    major, minor = (int(x) for x in target["pythonVersion"].split(".")[:2])
    plats = platforms(target)
    if not plats:
        # packaging before 26.3 reads an empty platform list as "this machine's": keep only the pure-Python tags.
        interpreter = {"pypy": "pp3", "graalpy": None}.get(target.get("implementation"), "cp%d%d" % (major, minor))
        return [str(t) for t in T.compatible_tags((major, minor), interpreter, ["placeholder"]) if t.platform == "any"]
    if target.get("implementation") == "pypy":
        pypy = target["implementationVersion"].split(".")
        abi = "pypy%d%d_pp%s%s" % (major, minor, pypy[0], pypy[1])
        found = list(T.generic_tags("pp%d%d" % (major, minor), [abi], plats)) + list(T.compatible_tags((major, minor), "pp3", plats))
    elif target.get("implementation") == "graalpy":
        graal = target["implementationVersion"].split(".")
        abi = "graalpy%s%s_%d%d_native" % (graal[0], graal[1], major, minor)
        found = list(T.generic_tags("graalpy%d%d" % (major, minor), [abi], plats)) + list(T.compatible_tags((major, minor), None, plats))
    else:
        abi = "cp%d%d%s" % (major, minor, "t" if target.get("freeThreading") and (major, minor) >= (3, 13) else "")
        found = list(T.cpython_tags((major, minor), [abi], plats)) + list(T.compatible_tags((major, minor), "cp%d%d" % (major, minor), plats))
    # packaging before 26.3 spelt the three-way macOS format "fat32"; its name is "fat3" (26.3 fixed it).
    return [str(t).replace("_fat32", "_fat3") if not NEW_RULES else str(t) for t in found]

def wheel(name):
    try:
        project, version, build, tagset = U.parse_wheel_filename(name)
    except Exception as e:
        return {"error": type(e).__name__}
    if not NEW_RULES:
        components = name[:-4].split("-")
        written = components[-3:]
        if any("" in c.split(".") for c in written) or not all(i.isidentifier() for i in written[0].split(".")):
            return {"error": "InvalidWheelFilename (26.3 rule)"}
        if components[0] == "" or components[0].endswith("\n"):
            return {"error": "InvalidWheelFilename (26.3 rule)"}
    return {"name": project, "version": str(version), "build": list(build), "tags": sorted(str(t) for t in tagset)}

def sdist(name):
    try:
        project, version = U.parse_sdist_filename(name)
    except Exception as e:
        return {"error": type(e).__name__}
    if not NEW_RULES and name.rpartition("-")[0] == "":
        return {"error": "InvalidSdistFilename (26.3 rule)"}
    return {"name": project, "version": str(version)}

def metadata(path):
    with open(path, "rb") as f:
        raw, unparsed = MD.parse_email(f.read())
    return {"raw": {k: v for k, v in raw.items() if k in ("metadata_version", "name", "version", "requires_dist", "requires_python", "provides_extra", "dynamic", "license", "license_expression", "summary")}, "unparsed": sorted(unparsed)}

def site_metadata():
    import glob, site
    return sorted(p for d in site.getsitepackages() for p in glob.glob(d + "/*.dist-info/METADATA"))

request = json.load(sys.stdin)
handlers = {"tags": tags, "wheel": wheel, "sdist": sdist, "metadata": metadata}
answer = {kind: [handlers[kind](item) for item in items] for kind, items in request.items() if kind in handlers}
if request.get("siteMetadata"):
    answer["siteMetadata"] = site_metadata()
    answer["siteMetadataParsed"] = [metadata(path) for path in answer["siteMetadata"]]
json.dump(answer, sys.stdout)
`;

function python<T>(request: Record<string, unknown>): T {
  const module = 'module' in PACKAGING ? PACKAGING.module : 'packaging';
  const run = spawnSync('python3', ['-c', `MODULE = ${JSON.stringify(module)}\n${SCRIPT}`], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

function outcome<T>(fn: () => T): T | { error: string } {
  try {
    return fn();
  } catch (error) {
    return { error: (error as Error).name };
  }
}

const seed = Date.now() % 2 ** 31;

/** The conda targets whose tags are compared: every platform conda-resolve knows, in its variants. */
function tagTargets(): TagTarget[] {
  const targets: TagTarget[] = [];
  const linux: [string, string[]][] = [
    ['linux-64', ['2.5', '2.12', '2.17', '2.28', '2.34', '3.1']],
    ['linux-32', ['2.17']],
    ['linux-aarch64', ['2.17', '2.28', '2.39']],
    ['linux-armv7l', ['2.28']],
    ['linux-armv6l', ['2.28']],
    ['linux-ppc64le', ['2.28']],
    ['linux-ppc64', ['2.17']],
    ['linux-s390x', ['2.28']],
    ['linux-riscv64', ['2.31']],
  ];
  for (const [platform, glibcs] of linux) {
    for (const glibc of glibcs) targets.push({ platform, pythonVersion: '3.12', virtualPackages: [{ name: '__glibc', version: glibc }] });
  }
  targets.push({ platform: 'linux-64', pythonVersion: '3.12' });
  targets.push({ platform: 'linux-64', pythonVersion: '3.11', virtualPackages: [{ name: '__musl', version: '1.2' }] });
  targets.push({
    platform: 'linux-aarch64',
    pythonVersion: '3.13',
    virtualPackages: [
      { name: '__glibc', version: '2.28' },
      { name: '__musl', version: '1.1' },
    ],
  });
  for (const osx of ['10.9', '10.15', '11.0', '13.0', '14.5', '15.0']) {
    targets.push({ platform: 'osx-64', pythonVersion: '3.10', virtualPackages: [{ name: '__osx', version: osx }] });
    if (osx >= '11' || osx.startsWith('1') === false)
      targets.push({ platform: 'osx-arm64', pythonVersion: '3.13', virtualPackages: [{ name: '__osx', version: osx }] });
  }
  for (const platform of ['win-64', 'win-32', 'win-arm64', 'freebsd-64', 'emscripten-wasm32']) {
    for (const pythonVersion of ['3.8', '3.9', '3.14']) targets.push({ platform, pythonVersion });
  }
  targets.push({ platform: 'freebsd-64', pythonVersion: '3.10', implementation: 'pypy', implementationVersion: '7.3.17' });
  targets.push({ platform: 'freebsd-64', pythonVersion: '3.11', implementation: 'graalpy' });
  for (const platform of ['linux-64', 'win-64', 'osx-arm64']) {
    const virtualPackages = [
      { name: '__glibc', version: '2.28' },
      { name: '__osx', version: '14.0' },
    ];
    targets.push({ platform, pythonVersion: '3.13', freeThreading: true, virtualPackages });
    targets.push({ platform, pythonVersion: '3.14', freeThreading: true, virtualPackages });
    targets.push({ platform, pythonVersion: '3.10', implementation: 'pypy', implementationVersion: '7.3.17', virtualPackages });
    targets.push({ platform, pythonVersion: '3.11', implementation: 'graalpy', implementationVersion: '24.2.1', virtualPackages });
  }
  return targets;
}

describePython("wheel tags against Python's packaging", () => {
  it('gives the same tags, in the same order, for every conda target conda-resolve knows', () => {
    const targets = tagTargets();
    const expected = answers().tags;
    targets.forEach((target, index) => {
      expect(targetTags(target).tags, JSON.stringify(target)).toEqual(expected[index]);
    });
  });
});

const NAMES = ['foo', 'Foo_Bar', 'foo.bar', 'foo__bar', 'a', 'x1', 'zope.interface', 'bár', '#x', 'foo\n', 'Ω', '1'];
const VERSIONS = [
  '1.0',
  '1.x',
  '2!1.0rc1.post2.dev3+local.7',
  'v1.0',
  '1.0-1',
  '1_0',
  '01.02',
  '1.0.post',
  '1..0',
  '1.0a',
  'abc',
  '1.0+ubuntu_1',
  '0',
  '1.0.DEV3',
];
const BUILDS = ['1', '1000abc', 'abc', '0', '', '2_b'];
const INTERPRETERS = ['py3', 'py2.py3', 'cp312', '2', 'py3.', 'pp310', 'Cp312', '_x', '', 'py3.py2'];
const ABIS = ['none', 'cp312', 'abi3', 'abi3.none', '', 'CP312t'];
const PLATFORMS = ['any', 'manylinux_2_17_x86_64.manylinux2014_x86_64', 'win_amd64', 'linux_x86_64', '', 'macosx_11_0_arm64.', 'ANY'];

const piece = (values: readonly string[]) => fc.constantFrom(...values);
const noise = fc.string({ unit: fc.constantFrom('-', '_', '.', 'a', '1', 'A', 'é'), maxLength: 16 });

const wheelNames = fc.oneof(
  fc
    .tuple(
      piece(NAMES),
      piece(VERSIONS),
      fc.option(piece(BUILDS), { nil: undefined }),
      piece(INTERPRETERS),
      piece(ABIS),
      piece(PLATFORMS),
      piece(['.whl', '.whl', '.whl', '.WHL', '.wheel']),
    )
    .map(
      ([name, version, build, interpreter, abi, platform, extension]) =>
        [name, version, ...(build === undefined ? [] : [build]), interpreter, abi, platform].join('-') + extension,
    ),
  noise.map((text) => `${text}.whl`),
);
const sdistNames = fc.oneof(
  fc.tuple(piece(NAMES), piece(VERSIONS), piece(['.tar.gz', '.zip'])).map(([name, version, extension]) => `${name}-${version}${extension}`),
  fc.tuple(noise, piece(['.tar.gz', '.zip'])).map(([text, extension]) => text + extension),
);

/** The sampled names of a kind, the same for the Python batch and the test. */
const samples = new Map<string, string[]>();
function nameSample(kind: 'wheel' | 'sdist', names: fc.Arbitrary<string> = kind === 'wheel' ? wheelNames : sdistNames): string[] {
  let sample = samples.get(kind);
  if (!sample) samples.set(kind, (sample = [...new Set(fc.sample(names, { numRuns: 1500, seed }))]));
  return sample;
}

const FIXTURES = fileURLToPath(new URL('../../../fixtures/pypi/metadata/', import.meta.url));
const fixtureFiles = (): string[] =>
  readdirSync(FIXTURES)
    .filter((name) => name.endsWith('.METADATA'))
    .map((name) => FIXTURES + name);

interface MetadataAnswer {
  raw: Record<string, string | string[]>;
  unparsed: string[];
}
interface Answers {
  tags: string[][];
  wheel: { error?: string }[];
  sdist: { error?: string }[];
  metadata: MetadataAnswer[];
  siteMetadata: string[];
  siteMetadataParsed: MetadataAnswer[];
}
let answered: Answers | undefined;
/** Python's answers for every test, from one python3 process run the first time a test asks. */
function answers(): Answers {
  answered ??= python<Answers>({
    tags: tagTargets(),
    wheel: nameSample('wheel'),
    sdist: nameSample('sdist'),
    metadata: fixtureFiles(),
    siteMetadata: true,
  });
  return answered;
}

/** Parse sampled names here and in Python; where packaging refuses a name we must refuse it, else agree on every part. */
function compareNames(kind: 'wheel' | 'sdist', names: fc.Arbitrary<string>, ours: (name: string) => unknown): void {
  const sample = nameSample(kind, names);
  const expected = answers()[kind];
  sample.forEach((name, index) => {
    const result = outcome(() => ours(name));
    if (expected[index]!.error !== undefined) expect(result, name).toHaveProperty('error');
    else expect(result, name).toEqual(expected[index]);
  });
}

describePython("file names against Python's packaging", () => {
  it(`reads random wheel names as parse_wheel_filename does (seed ${seed})`, () => {
    compareNames('wheel', wheelNames, (name) => {
      const wheel = parseWheelFileName(name);
      return {
        name: wheel.name,
        version: String(wheel.version),
        build: wheel.build ? [wheel.build.number, wheel.build.suffix] : [],
        tags: wheel.tags.map(formatWheelTag).sort(),
      };
    });
  });

  it(`reads random sdist names as parse_sdist_filename does (seed ${seed})`, () => {
    compareNames('sdist', sdistNames, (name) => {
      const sdist = parseSdistFileName(name);
      return { name: sdist.name, version: String(sdist.version) };
    });
  });
});

const LISTS = new Set(['requires_dist', 'provides_extra', 'dynamic']);

describePython("core metadata against Python's packaging", () => {
  it("reads the fixtures and this machine's installed METADATA files as packaging.metadata.parse_email does", () => {
    const { siteMetadata: site, siteMetadataParsed, metadata } = answers();
    const files = [...fixtureFiles(), ...site];
    const expected = [...metadata, ...siteMetadataParsed];
    const flat = (value: string) => value.replace(/\s+/g, ' ').trim();
    files.forEach((file, index) => {
      const { raw, unparsed } = expected[index]!;
      const ours: CoreMetadata = parseCoreMetadata(readFileSync(file), file);
      expect(requiresDistOf(ours)).toHaveLength(ours.requiresDist.length);
      const pairs: [string, unknown][] = [
        ['metadata_version', ours.metadataVersion],
        ['name', ours.displayName],
        ['version', ours.versionText],
        ['requires_python', ours.requiresPython],
        ['summary', ours.summary],
        ['license', ours.license],
        ['license_expression', ours.licenseExpression],
        ['requires_dist', ours.requiresDist],
        ['provides_extra', ours.providesExtra],
        ['dynamic', ours.dynamic],
      ];
      for (const [key, value] of pairs) {
        if (unparsed.includes(key.replace('_', '-'))) continue;
        const theirs = raw[key];
        const normal = (v: unknown) =>
          Array.isArray(v) ? v.map((item: string) => flat(item)) : v === undefined ? (LISTS.has(key) ? [] : undefined) : flat(v as string);
        expect(normal(value), `${file}: ${key}`).toEqual(normal(theirs));
      }
    });
    expect(files.length).toBeGreaterThan(8);
  });
});
