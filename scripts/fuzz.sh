#!/usr/bin/env bash
# Runs each fuzz target for a while: scripts/fuzz.sh GO FUZZTIME PKG:Target...
#
# A target that fails with a new failing input written to its
# testdata/fuzz/<Target>/ fails at once: that is a finding. One that fails
# without writing one, with Go's bare "context deadline exceeded", is the
# fuzz coordinator's own race at the -fuzztime boundary on a loaded machine
# (go.dev/issue/75804, fixed in Go 1.27; this module builds with 1.26): it
# is run once more, and fails the suite if it fails again.
set -euo pipefail

go_cmd=${1:?usage: fuzz.sh GO FUZZTIME PKG:Target...}
fuzztime=${2:?usage: fuzz.sh GO FUZZTIME PKG:Target...}
shift 2

inputs() { { find "$1/testdata/fuzz/$2" -type f 2>/dev/null || true; } | wc -l; }

for t in "$@"; do
  pkg=${t%%:*} target=${t#*:}
  for attempt in 1 2; do
    echo "fuzz $pkg $target for $fuzztime"
    before=$(inputs "$pkg" "$target")
    log=$(mktemp)
    if "$go_cmd" test -count=1 -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tee "$log"; then
      rm -f -- "${log:?}"
      break
    fi
    after=$(inputs "$pkg" "$target")
    race=0
    if [ "$after" -eq "$before" ] && grep -q '^    context deadline exceeded$' "$log"; then
      race=1
    fi
    rm -f -- "${log:?}"
    if [ "$race" -eq 0 ] || [ "$attempt" -eq 2 ]; then
      echo "fuzz $pkg $target failed" >&2
      exit 1
    fi
    echo "fuzz $pkg $target: Go's fuzz coordinator missed its own deadline (go.dev/issue/75804), no input written: once more" >&2
  done
done
