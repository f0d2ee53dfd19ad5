/**
 * Python's `packaging` as an oracle for the PEP 440/508 vocabulary (vocabulary/pypi/): the tests'
 * property checks and bench/pypi-versions.ts send it a batch of inputs in one `python3` process.
 *
 * Which `packaging`: pip's vendored copy (`pip._vendor.packaging`, on every machine with pip) when
 * it is recent enough, else an installed `packaging`. "Recent enough" is 26.0: we follow its
 * behaviour (the narrowed `<V.postN` and `>V` exclusions, pre-releases in `contains`); an older one
 * answers differently on purpose, so it is not used. Without either, callers skip with the reason.
 */
import { spawnSync } from 'node:child_process';

export interface PythonPackaging {
  readonly python: string;
  /** The module to import from: `pip._vendor.packaging` or `packaging`. */
  readonly module: string;
  readonly version: string;
}

const MINIMUM_MAJOR = 26;
let found: PythonPackaging | string | undefined;

/** The packaging to compare with, or the reason there is none. */
export function pythonPackaging(): PythonPackaging | string {
  if (found !== undefined) return found;
  const python = process.env.PYTHON ?? 'python3';
  const probe = spawnSync(
    python,
    [
      '-c',
      `import json
out = {}
for name in ("pip._vendor.packaging", "packaging"):
    try:
        mod = __import__(name, fromlist=["version"])
        out[name] = mod.__version__
    except Exception:
        pass
print(json.dumps(out))`,
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (probe.status !== 0) {
    found = `${python} is not runnable (${probe.error?.message ?? probe.stderr.trim()})`;
    return found;
  }
  const versions = JSON.parse(probe.stdout) as Record<string, string>;
  const usable = Object.entries(versions).find(([, v]) => Number(v.split('.')[0]) >= MINIMUM_MAJOR);
  found = usable
    ? { python, module: usable[0], version: usable[1] }
    : `no packaging >= ${MINIMUM_MAJOR} for ${python} (found ${JSON.stringify(versions)}); pip install 'packaging>=26'`;
  return found;
}

/**
 * Runs `body` (Python, with `data` the decoded input and `V`, `S`, `M`, `R` packaging's version,
 * specifiers, markers and requirements modules) in one process; `body` sets `out`, returned decoded.
 */
export function runPythonPackaging<T>(packaging: PythonPackaging, body: string, input: unknown): T {
  const script = `import json, sys
from ${packaging.module} import version as V, specifiers as S, markers as M, requirements as R
data = json.load(sys.stdin)
out = None
${body}
json.dump(out, sys.stdout)
`;
  const run = spawnSync(packaging.python, ['-c', script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 300_000,
  });
  if (run.status !== 0) throw new Error(`python packaging failed: ${run.stderr.slice(-2000)}`);
  return JSON.parse(run.stdout) as T;
}

/**
 * Several `runPythonPackaging` bodies in one process (one interpreter start-up and one import of
 * packaging instead of one per body): each body runs in a function of its own with its own `data`,
 * and the answers come back in the order of `jobs`.
 */
export function runPythonPackagingBatch(packaging: PythonPackaging, jobs: readonly { body: string; input: unknown }[]): unknown[] {
  const functions = jobs.map(
    ({ body }, i) => `def job_${i}(data):
    out = None
${body
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
    return out`,
  );
  const body = `${functions.join('\n\n')}

out = [job(d) for job, d in zip([${jobs.map((_, i) => `job_${i}`).join(', ')}], data)]`;
  return runPythonPackaging<unknown[]>(
    packaging,
    body,
    jobs.map((job) => job.input),
  );
}
