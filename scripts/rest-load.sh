#!/usr/bin/env bash
# The Tokenized Stocks REST API's requests/s against eth_getBalance's, in
# the same run on one fresh in-memory node: ROUNDS alternating rounds of
# each (loadtest http, 64 keep-alive connections, 6 s), then the median of
# each and their ratio. The machine's noise moves both; the alternation
# spreads it over both.
#   make rest-load
#   ROUNDS=7 bash scripts/rest-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
source scripts/devnode.sh
declare -A runs
for r in $(seq "$rounds"); do
	for m in rest getBalance; do
		line=$(bin/loadtest http -url "$url" -method "$m" -c 64 -duration 6s | head -1)
		echo "round $r: $line"
		runs[$m]+="$(echo "$line" | sed -E 's/.*: ([0-9]+) req\/s.*/\1/') "
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rest=$(echo "${runs[rest]}" | median)
balance=$(echo "${runs[getBalance]}" | median)
echo "median of $rounds rounds: REST $rest req/s, eth_getBalance $balance req/s, ratio $(awk "BEGIN {printf \"%.2f\", $rest/$balance}")"
