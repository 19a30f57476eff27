#!/usr/bin/env bash
# WebSocket newHeads fan-out, stocknode against anvil 1.7.1, one server at a
# time on this machine, with the same probe (loadtest ws-fanout):
#   stocknode with 10,000 and 5,000 subscribers, anvil with 5,000,
# all at 200 ms blocks. Prints each report and the 5,000-subscriber p99 ratio.
# A head's spread is measured on arrival at the subscribers' sockets (the
# kernel's receive timestamps) and, for comparison, on when the probe read
# it. 120 s is about 590 heads: the p99 is then the sixth slowest head, not
# one or two heads a stray burst of other work on the machine slowed down.
# Usage: bash loadtest/wscompare.sh [duration]   (default 120s per run)
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-120s}
cache=${STOCKNODE_ANCHORS:-$HOME/.cache/stocknode-anchors}
anvil=$cache/npm/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil
if [ ! -x "$anvil" ]; then
  mkdir -p "$cache/npm"
  npm install --prefix "$cache/npm" --no-audit --no-fund @foundry-rs/anvil@1.7.1 >/dev/null
fi
go build -o bin/stocknode ./cmd/stocknode
go build -o bin/loadtest ./loadtest
ulimit -n 65536 2>/dev/null || true
out=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run_stocknode() { # n
  local p; p=$(port)
  bin/stocknode --dev --http.port "$p" --verbosity 1 & local pid=$!; pids+=("$pid")
  sleep 2
  bin/loadtest ws-fanout -url "ws://127.0.0.1:$p/ws" -n "$1" -duration "$dur" -pid "$pid" -json > "$out/stocknode-$1.json"
  kill -INT "$pid"; wait "$pid" 2>/dev/null || true
}
run_anvil() { # n
  local p; p=$(port)
  "$anvil" --block-time 0.2 --port "$p" --silent & local pid=$!; pids+=("$pid")
  sleep 2
  bin/loadtest ws-fanout -url "ws://127.0.0.1:$p" -n "$1" -duration "$dur" -pid "$pid" -json > "$out/anvil-$1.json"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run_stocknode 10000
run_stocknode 5000
run_anvil 5000
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
rows = []
for name in ["stocknode-10000", "stocknode-5000", "anvil-5000"]:
    r = json.load(open(os.path.join(out, name + ".json")))
    s, rs = r["spread"], r["readSpread"]
    ms = lambda ns: ns / 1e6
    rows.append((name, r))
    print(f"{name:16} connected {r['connected']:5} heads {r['heads']:3} undelivered {r['headsNotDeliveredToAll']:2} "
          f"spread p50 {ms(s['p50']):6.1f} p99 {ms(s['p99']):6.1f} max {ms(s['max']):6.1f} ms  "
          f"(read: p50 {ms(rs['p50']):6.1f} p99 {ms(rs['p99']):6.1f} ms)  "
          f"server {r.get('serverBytesPerSubscriber', 0)/1024:6.1f} KiB/subscriber")
for key, what in (("spread", "arrival"), ("readSpread", "read")):
    sn = dict(rows)["stocknode-5000"][key]["p99"]
    an = dict(rows)["anvil-5000"][key]["p99"]
    print(f"p99 spread at 5,000 subscribers ({what}): stocknode / anvil = {sn/an:.2f} (target <= 0.50)")
PY
