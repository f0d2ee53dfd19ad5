#!/usr/bin/env bash
# Put first on PATH as `curl` by the action tests: records the exact argv in CURL_SPY_LOG, then
# runs the real curl (CURL_SPY_REAL) with the same arguments and exit status, so a test can check
# both the command line the action builds and what really happened. Bash, not Node: the spy runs
# once per request of every remote-mode test, and a Node start-up each time was most of their cost.
# Each call is written as its argument count and then its arguments, each ended by a NUL byte
# (arguments cannot contain one), which helpers.ts reads back.
if [ -z "${CURL_SPY_LOG:-}" ] || [ -z "${CURL_SPY_REAL:-}" ]; then
  echo 'curl spy: CURL_SPY_LOG and CURL_SPY_REAL must be set' >&2
  exit 70
fi
printf '%s\0' "$#" "$@" >>"${CURL_SPY_LOG}"
exec "${CURL_SPY_REAL}" "$@"
