#!/usr/bin/env bash
# Runs every native fuzzer in the repository for FUZZTIME (default 20s) each.
set -euo pipefail
fuzztime=${FUZZTIME:-20s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for fz in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "== $pkg $fz"
    go test -run '^$' -fuzz "^${fz}\$" -fuzztime "$fuzztime" "$pkg"
  done
done
