#!/usr/bin/env bash
# Does explorer traffic slow the RPC hot path? On one fresh in-memory node
# (the preview chain with its example tokens, and a transfer flood so pages
# have history), ROUNDS alternating rounds of eth_getBalance (loadtest http,
# 64 connections, 6 s) alone, beside explorer browsing (PAGE_RATE pages/s
# offered over 4 connections, each request with a query parameter of its
# own so every page is rendered: the explorer's page cache never answers),
# and beside a page flood (8 connections as fast as the node answers, the
# same nine pages: the page cache answers most, --explorer.renders bounds
# the rest). Then the median
# RPC requests/s of each, their ratios to "alone", and the pages' latency.
#   make explorer-load
#   ROUNDS=7 PAGE_RATE=200 bash scripts/explorer-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
page_rate=${PAGE_RATE:-100}
source scripts/devnode.sh
out=$(mktemp -d)
trap 'kill -INT $devnode_pid 2>/dev/null; wait $devnode_pid 2>/dev/null || true; rm -rf "$out"' EXIT
# History for the pages: a short flood of transfers among dev accounts.
bin/loadtest flood -url "$url" -accounts 256 -senders 16 -duration 4s >/dev/null
rpc() { curl -sf -H 'content-type: application/json' -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":$2}" "$url" | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]'"$3"')'; }
tx=$(rpc eth_getBlockByNumber '["0x1",false]' '["transactions"][0]')
token=$(curl -sf "$url/v1/tokenized-stocks" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tokens"][0]["contract_address"])')
dev0=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 # the first development account: holds the example tokens
busy=$(($(rpc eth_blockNumber '[]' '') - 2))       # a block of the flood
paths="/,/tokens,/token/$token,/block/1,/block/$busy,/tx/$tx,/address/$dev0,/address/$dev0?view=transfers,/faucet"
echo "pages: $paths"

rpcrate() { sed -E 's/.*: ([0-9]+) req\/s.*/\1/'; }
declare -A runs lat
for r in $(seq "$rounds"); do
	line=$(bin/loadtest http -url "$url" -method getBalance -c 64 -duration 6s | head -1)
	echo "round $r alone:    $line"
	runs[alone]+="$(echo "$line" | rpcrate) "
	for mode in browsing flood; do
		args=(-c 8)
		[ "$mode" = browsing ] && args=(-c 4 -rate "$page_rate" -bust)
		bin/loadtest http -url "$url" -method pages -paths "$paths" "${args[@]}" -duration 6s -warmup 400ms >"$out/pages" &
		ppid=$!
		line=$(bin/loadtest http -url "$url" -method getBalance -c 64 -duration 6s | head -1)
		wait $ppid
		echo "round $r $mode: $line"
		sed -n '1,3p' "$out/pages" | sed 's/^/    pages: /'
		runs[$mode]+="$(echo "$line" | rpcrate) "
		lat[$mode]+="$(sed -n 2p "$out/pages")"$'\n'
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
medianDur() { sed -nE "s/.*$1=([0-9.]+)(µs|ms|s) .*/\1 \2/p" | awk '{v=$1; if ($2=="µs") v/=1000; if ($2=="s") v*=1000; print v}' | sort -n | awk '{a[NR]=$1} END {printf "%.2f ms", a[int((NR+1)/2)]}'; }
alone=$(echo "${runs[alone]}" | median)
echo
echo "median of $rounds rounds, eth_getBalance req/s:"
echo "  alone                          $alone"
for mode in browsing flood; do
	m=$(echo "${runs[$mode]}" | median)
	printf "  with %-26s %s  ratio %s  pages p50 %s p99 %s\n" "$mode $( [ "$mode" = browsing ] && echo "($page_rate pages/s)" || echo "(8 conns)")" "$m" \
		"$(awk "BEGIN {printf \"%.2f\", $m/$alone}")" "$(echo "${lat[$mode]}" | medianDur p50)" "$(echo "${lat[$mode]}" | medianDur p99)"
done
