#!/usr/bin/env bash
# Runs the hot-path benchmarks (the codec's in codec/, the server path and
# the head snapshot in node/rpc, the heavy-call bound in callbound/) into bench.txt, and with BASE=<rev>
# also at that revision and compares the two with benchstat.
#   make bench                 # ./bench.txt
#   make bench BASE=HEAD~3     # ./bench-base.txt, ./bench.txt and benchstat's table
#   COUNT=1 BENCHTIME=100x make bench   # a quick check that they run, not for numbers
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-6}
run() { # dir out
  # A revision from before the benchmarks moved beside their code has them in ./bench/.
  # The heavy-call bound was ./pool/ before it was named callbound.
  local pkgs=(./codec/ ./node/rpc/)
  [ -d "$1/bench" ] && pkgs+=(./bench/)
  [ -d "$1/pool" ] && pkgs+=(./pool/)
  [ -d "$1/callbound" ] && pkgs+=(./callbound/)
  (cd "$1" && go test -run '^$' -bench "${BENCH:-.}" -benchmem -count "$count" ${BENCHTIME:+-benchtime "$BENCHTIME"} "${pkgs[@]}") | tee "$2" | grep -E '^Benchmark' || true
}
run . bench.txt
if [ -n "${BASE:-}" ]; then
  tree=$(mktemp -d)
  git worktree add -q --detach "$tree" "$BASE"
  trap 'git worktree remove --force "$tree"' EXIT
  run "$tree" bench-base.txt
  go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da bench-base.txt bench.txt
fi
