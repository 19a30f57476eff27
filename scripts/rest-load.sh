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
go build -o bin/stocknode ./cmd/stocknode
go build -o bin/loadtest ./loadtest
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
bin/stocknode --dev --http.port "$port" --verbosity 2 >/dev/null 2>&1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
	sleep 0.2
done
declare -A runs
for r in $(seq "$rounds"); do
	for m in rest getBalance; do
		line=$(bin/loadtest http -url "http://127.0.0.1:$port" -method "$m" -c 64 -duration 6s | head -1)
		echo "round $r: $line"
		runs[$m]+="$(echo "$line" | sed -E 's/.*: ([0-9]+) req\/s.*/\1/') "
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rest=$(echo "${runs[rest]}" | median)
balance=$(echo "${runs[getBalance]}" | median)
echo "median of $rounds rounds: REST $rest req/s, eth_getBalance $balance req/s, ratio $(awk "BEGIN {printf \"%.2f\", $rest/$balance}")"
