#!/usr/bin/env bash
# Captures a CPU and an allocation profile of stocknode under load: the node
# runs in memory with --pprof on a free admin port, loadtest drives the
# realistic mix (64 connections) and the profiles land in ./profiles/.
#   make profile                  # the mix
#   make profile METHOD=call      # one method (getBalance, call, blockNumber, mix)
set -euo pipefail
cd "$(dirname "$0")/.."
method=${METHOD:-mix}
seconds=${SECONDS_:-10}
go build -o bin/stocknode ./cmd/stocknode
go build -o bin/loadtest ./loadtest
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rpc=$(port); admin=$(port)
bin/stocknode --dev --http.port "$rpc" --pprof --pprof.addr "127.0.0.1:$admin" --verbosity 1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null || true' EXIT
sleep 2
mkdir -p profiles
bin/loadtest http -url "http://127.0.0.1:$rpc" -method "$method" -tag latest -c 64 -duration "$((seconds + 4))s" > profiles/load.txt &
load=$!
sleep 2
curl -s "http://127.0.0.1:$admin/debug/pprof/profile?seconds=$seconds" -o profiles/cpu.pprof
curl -s "http://127.0.0.1:$admin/debug/pprof/allocs" -o profiles/allocs.pprof
wait $load
cat profiles/load.txt
echo "profiles/cpu.pprof, profiles/allocs.pprof:"
go tool pprof -top -nodecount 25 bin/stocknode profiles/cpu.pprof 2>/dev/null | sed -n '1,32p'
