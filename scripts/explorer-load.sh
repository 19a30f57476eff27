#!/usr/bin/env bash
# Does explorer traffic slow the RPC hot path? On one fresh in-memory node
# (the preview chain with its example tokens, and a transfer flood so pages
# have history), ROUNDS alternating rounds of eth_getBalance alone and
# eth_getBalance with explorer page traffic beside it (loadtest http:
# 64 RPC connections, PAGE_CONNS page connections, 6 s); then the median
# RPC requests/s of each, their ratio, and the pages' render latency.
#   make explorer-load
#   ROUNDS=7 PAGE_CONNS=16 bash scripts/explorer-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
page_conns=${PAGE_CONNS:-8}
go build -o bin/stocknode ./cmd/stocknode
go build -o bin/loadtest ./loadtest
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
bin/stocknode --dev --http.port "$port" --verbosity 2 >/dev/null 2>&1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	curl -sf "$url/health" >/dev/null && break
	sleep 0.2
done
# History for the pages: a short flood of transfers among dev accounts.
bin/loadtest flood -url "$url" -accounts 256 -senders 16 -duration 4s >/dev/null
rpc() { curl -sf -H 'content-type: application/json' -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":$2}" "$url" | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]'"$3"')'; }
tx=$(rpc eth_getBlockByNumber '["0x1",false]' '["transactions"][0]')
token=$(curl -sf "$url/v1/tokenized-stocks" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tokens"][0]["contract_address"])')
dev0=$(rpc eth_accounts '[]' '[0]' 2>/dev/null || echo 0x71562b71999873DB5b286dF957af199Ec94617F7)
head=$(rpc eth_blockNumber '[]' '')
paths="/,/tokens,/token/$token,/block/1,/block/$((head)),/tx/$tx,/address/$dev0,/search?q=XRBT"
echo "pages: $paths"
declare -A runs
pagelat=""
for r in $(seq "$rounds"); do
	line=$(bin/loadtest http -url "$url" -method getBalance -c 64 -duration 6s | head -1)
	echo "round $r alone:         $line"
	runs[alone]+="$(echo "$line" | sed -E 's/.*: ([0-9]+) req\/s.*/\1/') "
	bin/loadtest http -url "$url" -method pages -paths "$paths" -c "$page_conns" -duration 6s -warmup 400ms >/tmp/explorer-load-pages.$$ &
	ppid=$!
	line=$(bin/loadtest http -url "$url" -method getBalance -c 64 -duration 6s | head -1)
	wait $ppid
	echo "round $r with explorer: $line"
	sed -n '1,3p' /tmp/explorer-load-pages.$$ | sed 's/^/    pages: /'
	runs[with]+="$(echo "$line" | sed -E 's/.*: ([0-9]+) req\/s.*/\1/') "
	pagelat+="$(sed -n 2p /tmp/explorer-load-pages.$$)"$'\n'
done
rm -f /tmp/explorer-load-pages.$$
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
alone=$(echo "${runs[alone]}" | median)
with=$(echo "${runs[with]}" | median)
p50=$(echo "$pagelat" | sed -nE 's/.*p50=([^ ]+).*/\1/p' | tr '\n' ' ')
p99=$(echo "$pagelat" | sed -nE 's/.*p99=([^ ]+).*/\1/p' | tr '\n' ' ')
echo "median of $rounds rounds: eth_getBalance alone $alone req/s, with explorer traffic $with req/s, ratio $(awk "BEGIN {printf \"%.2f\", $with/$alone}")"
echo "page render per round: p50 $p50; p99 $p99"
