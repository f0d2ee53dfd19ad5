#!/usr/bin/env bash
# A stand-in for `pixi` in the action tests (local mode). It records its argv, then does what pixi
# v0.70 does for `pixi [--quiet] run --manifest-path M --environment E [--skip-deps] TASK ARGS...`:
# checks that environment E exists and has TASK, appends ARGS to the task's command the way pixi
# does (each one single-quoted, ' written as '"'"') and runs the result with a POSIX shell in the
# manifest's folder, with INIT_CWD (where pixi was started) and PIXI_PROJECT_ROOT set. Without
# --quiet it prints pixi's "Pixi task" line on stderr, as pixi does.
#
# Bash, not Node: it runs twice per local-mode action run, and a Node start-up each time was a
# large part of those tests' cost. The manifest is read once per test file, in the test process:
# helpers.ts parses it (toml-subset.mjs) and writes PIXI_STAND_IN_TASKS, a bash file that sets
# STAND_IN_MANIFEST (its absolute path), STAND_IN_ENVS (environment -> 1) and STAND_IN_TASKS
# (environment/task -> command), STAND_IN_DEPS (environment/task -> the dependency tasks in the
# order pixi would list them, one a line) and STAND_IN_DEP_ERRORS (environment/task -> the error
# when a dependency is unknown). A manifest other than that one is refused.
#
# Differences from pixi, on purpose: no environment is installed (Node.js is this machine's), and
# dependency tasks (the manifest has none now) would be listed on stderr but not run. When
# PIXI_STAND_IN_VERSION names a file, `conda-resolve --version` prints that file (the output of
# one real run, made by helpers.ts) instead of starting the CLI again: see helpers.ts.
#
# PIXI_STAND_IN_LOG (required) names a file that receives each call as its argument count, its
# working directory and then its arguments, each ended by a NUL byte (helpers.ts reads it back).
if [ -z "${PIXI_STAND_IN_LOG:-}" ] || [ -z "${PIXI_STAND_IN_TASKS:-}" ]; then
  echo 'pixi stand-in: PIXI_STAND_IN_LOG and PIXI_STAND_IN_TASKS must be set' >&2
  exit 70
fi
printf '%s\0' "$#" "${PWD}" "$@" >>"${PIXI_STAND_IN_LOG}"

die() {
  printf 'Error:   × %s\n' "$1" >&2
  exit "${2:-1}"
}

# Global flags may come before the subcommand; run's own flags come before the task name, and
# everything from the task name on is the task and its arguments (clap's trailing_var_arg).
quiet=no
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
  case "$1" in
    --quiet | -q) quiet=yes ;;
    *) die "stand-in does not know the global option $1" 2 ;;
  esac
  shift
done
[ "${1-}" = run ] || die "stand-in supports only \"pixi run\", not \"${1-}\"" 2
shift
manifest=''
has_manifest=no
environment=default
skip_deps=no
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
  case "$1" in
    --quiet | -q) quiet=yes ;;
    --skip-deps) skip_deps=yes ;;
    --manifest-path | --environment | -e)
      [ $# -ge 2 ] || die "$1 needs a value" 2
      if [ "$1" = --manifest-path ]; then
        manifest="$2"
        has_manifest=yes
      else environment="$2"; fi
      shift
      ;;
    *) die "stand-in does not know the run option $1" 2 ;;
  esac
  shift
done
[ $# -gt 0 ] || die 'no task given' 2
task_name="$1"
shift
[ "${has_manifest}" = yes ] || die 'the stand-in needs --manifest-path' 2
case "${manifest}" in /*) ;; *) manifest="${PWD}/${manifest}" ;; esac
[ -e "${manifest}" ] || die "could not find a manifest at ${manifest}"

# shellcheck source=/dev/null
. "${PIXI_STAND_IN_TASKS}"
if [ "${manifest}" != "${STAND_IN_MANIFEST}" ] && [ "$(realpath -m -- "${manifest}")" != "$(realpath -m -- "${STAND_IN_MANIFEST}")" ]; then
  die "the stand-in knows only the manifest ${STAND_IN_MANIFEST}, not ${manifest}" 2
fi
manifest="${STAND_IN_MANIFEST}"
[ -n "${STAND_IN_ENVS[${environment}]+x}" ] || die "the environment '${environment}' does not exist"
key="${environment}/${task_name}"
[ -n "${STAND_IN_TASKS[${key}]+x}" ] || die "could not find the task '${task_name}' in environment '${environment}'"
command="${STAND_IN_TASKS[${key}]}"
[ -n "${command}" ] || die "task '${task_name}' has no single-string cmd (the stand-in supports only that)"

if [ "${skip_deps}" = no ]; then
  while IFS= read -r dep; do
    [ -z "${dep}" ] || printf "pixi stand-in: dependency task '%s' not run (npm test builds dist/)\n" "${dep}" >&2
  done <<<"${STAND_IN_DEPS[${key}]-}"
  [ -z "${STAND_IN_DEP_ERRORS[${key}]-}" ] || die "${STAND_IN_DEP_ERRORS[${key}]}"
fi

quoted=''
for arg in "$@"; do
  quoted="${quoted}${quoted:+ }'${arg//\'/\'\"\'\"\'}'"
done
script="${command}${quoted:+ ${quoted}}"
[ "${quiet}" = yes ] || printf '✨ Pixi task (%s in %s): %s\n' "${task_name}" "${environment}" "${script}" >&2

if [ -n "${PIXI_STAND_IN_VERSION:-}" ] && [ "${key}" = cli/conda-resolve ] && [ "${quoted}" = "'--version'" ]; then
  cat -- "${PIXI_STAND_IN_VERSION}"
  exit 0
fi

project_root="${manifest%/*}"
export INIT_CWD="${PWD}" PIXI_PROJECT_ROOT="${project_root}" PIXI_PROJECT_MANIFEST="${manifest}" PIXI_ENVIRONMENT_NAME="${environment}"
cd -- "${project_root}" || die "cannot run the task: cannot enter ${project_root}"
exec /bin/sh -c "${script}"
