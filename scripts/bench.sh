#!/usr/bin/env bash
# Runs the hot-path benchmarks (bench/, the server path in node/rpc, the
# persistence variants in node/chain) into bench.txt, and with BASE=<rev>
# also at that revision and compares the two with benchstat.
#   make bench                 # ./bench.txt
#   make bench BASE=HEAD~3     # ./bench-base.txt, ./bench.txt and benchstat's table
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-6}
run() { # dir out
  (cd "$1" && go test -run '^$' -bench . -benchmem -count "$count" ./bench/ ./node/rpc/ ./pool/) | tee "$2" | grep -E '^Benchmark' || true
}
run . bench.txt
if [ -n "${BASE:-}" ]; then
  tree=$(mktemp -d)
  git worktree add -q --detach "$tree" "$BASE"
  trap 'git worktree remove --force "$tree"' EXIT
  run "$tree" bench-base.txt
  go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da bench-base.txt bench.txt
fi
