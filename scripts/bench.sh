#!/usr/bin/env bash
# Runs every benchmark in the repository and writes bench/REPORT.md: the root
# module's benchmarks into bench/bench.txt, the Extism comparison (its own
# module under bench/extism) into bench/extism.txt, the MCP comparison (its
# own module under bench/mcp) into bench/mcp.txt, then the report with each
# ratio against its baseline and target (go run ./xtask bench report).
#
# Environment:
#   BENCHTIME   -benchtime for every benchmark (default 1s; 100x for a quick
#               smoke run whose figures mean nothing)
#   BENCHCOUNT  -count, runs per benchmark; the report takes medians (default 1)
#   BENCH       -bench pattern (default .)
#   BENCHCHECK  set to 1 to exit 1 when a measured figure misses its target
#   GO          the go command (default go)
#
# bench/mcp and bench/start measure in rounds of their own whatever
# BENCHTIME says (MCPBENCH_ROUNDS, MCPBENCH_DURATION, STARTBENCH_ROUNDS and
# STARTBENCH_RUNS tune them; see bench/README.md).
#
# A package whose benchmarks fail still leaves its figures and the report;
# the script then exits 1.
set -uo pipefail
cd "$(dirname "$0")/.."

go=${GO:-go}
benchtime=${BENCHTIME:-1s}
count=${BENCHCOUNT:-1}
pattern=${BENCH:-.}
# -p 1: one package's benchmarks at a time; go test otherwise runs as many
# packages at once as there are processors, and each measures the others.
flags=(-p 1 -run '^$' -bench "$pattern" -benchmem -benchtime="$benchtime" -count="$count")
status=0

mkdir -p bench
echo "== root module -> bench/bench.txt" >&2
"$go" test "${flags[@]}" -tags talon_testtools ./... | tee bench/bench.txt
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== bench/extism -> bench/extism.txt" >&2
(cd bench/extism && "$go" test "${flags[@]}" .) | tee bench/extism.txt
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== bench/mcp -> bench/mcp.txt" >&2
(cd bench/mcp && "$go" test "${flags[@]}" .) | tee bench/mcp.txt
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

check=()
[ "${BENCHCHECK:-0}" = 1 ] && check=(-check)
"$go" run ./xtask bench report "${check[@]}" -in bench/bench.txt -in bench/extism.txt -in bench/mcp.txt -out bench/REPORT.md || status=1
exit "$status"
