#!/usr/bin/env bash
# Runs go test with -json through scripts/slowest: scripts/gotest.sh GO ARGS...
#
# The CI log gets each package's result, the whole output of every failed
# test (and of tests still running when a binary died), and at the end the
# SLOWEST (20) slowest tests and subtests with their seconds: where the
# time of a run went, without a second run to find out. A top-level test
# of SLOWEST_PROGRESS (10) seconds or more is named as it ends, so a long
# package shows it is moving. It fails when go
# test fails or when the summary saw a failure (pipefail: either side).
set -uo pipefail

go_cmd=${1:?usage: gotest.sh GO ARGS...}
shift
bin=$(mktemp -d)
trap 'rm -rf -- "${bin:?}"' EXIT
"$go_cmd" build -o "${bin:?}/slowest" "$(cd "$(dirname "$0")" && pwd)/slowest" || exit
"$go_cmd" test -json "$@" 2>&1 | "${bin:?}/slowest" -n "${SLOWEST:-20}" -progress "${SLOWEST_PROGRESS:-10}"
