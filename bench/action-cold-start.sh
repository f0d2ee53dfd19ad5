#!/usr/bin/env bash
# The action's local mode from a cold checkout, before and after the one-file CLI (issue 17): the
# runner's steps after setup-pixi and the `cli` environment's install (the same in both, and not
# reachable from this machine), i.e. what the "Prepare" step runs and then the first resolve.
#   before (commit BEFORE, default 432853f): npm ci (fresh npm cache, from the registry) + tsc
#            build + `conda-resolve --version` + a resolve of the demo channel
#   after  (HEAD): `node action/conda-resolve.mjs --version` + the same resolve
# Usage: bash bench/action-cold-start.sh [BEFORE_COMMIT]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
before="${1:-432853f}"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
resolve_demo() { node "$1" -c "$2/fixtures/channels/demo" -p linux-64 -p osx-arm64 python=3.12 numpy >/dev/null; }

git clone -q --no-checkout "${repo}" "${work}/before" && git -C "${work}/before" checkout -q "${before}"
git clone -q "${repo}" "${work}/after"
export CONDA_RESOLVE_CACHE_DIR="${work}/cache"

cd "${work}/before"
t0="$(now)"
npm ci --no-audit --no-fund --ignore-scripts --cache "${work}/npm-cache" >/dev/null 2>&1
t_ci="$(since "${t0}")"
t1="$(now)"
npm run build >/dev/null 2>&1
t_build="$(since "${t1}")"
node dist/src/cli/bin.cjs --version >/dev/null
resolve_demo dist/src/cli/bin.cjs "${work}/before"
echo "before (${before}): npm ci ${t_ci} s + build ${t_build} s; first resolve done after $(since "${t0}") s"

cd "${work}/after"
t0="$(now)"
node action/conda-resolve.mjs --version >/dev/null
t_version="$(since "${t0}")"
resolve_demo action/conda-resolve.mjs "${work}/after"
echo "after  (HEAD): --version ${t_version} s; first resolve done after $(since "${t0}") s"
