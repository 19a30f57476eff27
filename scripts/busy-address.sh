#!/usr/bin/env bash
# The explorer on a busy address, end to end: one fresh in-memory node, a
# transfer flood that pays one address until it has received COUNT (default
# 100,000) transactions, then its history pages over HTTP, every request
# rendered (loadtest http -method pages -bust, one connection, 10 s): the
# first page, pages deep in the history (cursors spread over its blocks),
# and Etherscan txlist pages 1, 50 and 100 of 100. Prints p50/p99 of each.
#   make busy-address
#   COUNT=20000 bash scripts/busy-address.sh
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-100000}
busy=0xB0B0000000000000000000000000000000000001
source scripts/devnode.sh
received() { curl -sf "$url/address/$busy" | sed -nE 's/.*<dd>([0-9]+) transactions,.*/\1/p'; }
while [ "$(received)" -lt "$count" ]; do
	bin/loadtest flood -url "$url" -to "$busy" -accounts 1024 -senders 32 -duration 10s -receipt-sample 0 >/dev/null
	echo "received so far: $(received)"
done
# The index follows sealed blocks; wait until it has them all.
while curl -sf "$url/address/$busy" | grep -q 'id="index-progress"'; do sleep 0.5; done
rpc() { curl -sf -H 'content-type: application/json' -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":$2}" "$url" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["result"],16))'; }
head=$(rpc eth_blockNumber '[]')
deep=""
for i in 1 2 3 4 5 6 7 8 9; do deep+="/address/$busy?before=$((head * i / 10))-0-0,"; done
api="/api?module=account&action=txlist&address=$busy&offset=100&sort=desc&page"
echo "$(received) transactions to $busy, head $head"
measure() {
	echo "$1:"
	bin/loadtest http -url "$url" -method pages -bust -paths "$2" -c 1 -duration 10s | sed -n '1,3p' | sed 's/^/  /'
}
measure "first page" "/address/$busy"
measure "pages deep in the history" "${deep%,}"
measure "Etherscan txlist pages 1, 50, 100 of 100" "$api=1,$api=50,$api=100"
