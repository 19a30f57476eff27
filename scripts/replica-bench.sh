#!/usr/bin/env bash
# The sequencer log's cost and a read replica's lag, CPU and read
# throughput (issue 15, PERFORMANCE.md "Sequencer log and read replicas").
#
#   1. log cost: the flood (-accounts 1024 -senders 64 -duration 6s) against
#      a fresh --datadir node built from the tree before the log ($BEFORE)
#      and from this tree, alternating, $ROUNDS rounds each;
#   2. a sequencer (--nats.listen) and a replica (--follow) on this
#      machine: the replica's lag behind the sequencer's newFlashblocks
#      under a $RATE transfers/s flood (loadtest replag), the CPU each
#      process spent per sealed block meanwhile (/proc/PID/stat), and the
#      CPU the sequencer (its embedded NATS server) spends per extra log
#      reader (loadtest logread, 8 readers against none, same flood);
#   3. eth_getBalance(pending) requests/s on the replica and on the
#      sequencer, alternating, $ROUNDS rounds, on the idle chain;
#   4. the log on a three-node NATS cluster (three nats-server processes
#      built from the module's nats-server, --nats.replicas 3): the flood,
#      the replica's lag, the servers' CPU per block and per log reader.
#
# Usage: make replica-bench [ROUNDS=3 RATE=5000 BEFORE=<rev>]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
RATE=${RATE:-5000}
BEFORE=${BEFORE:-$(git rev-parse 8627a6f)} # the tree before issue 15 (the sequencer log)
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
	git worktree remove --force "$work-before" 2>/dev/null || true
}
trap cleanup EXIT

go build -o bin/stocknode ./cmd/stocknode
go build -o bin/loadtest ./loadtest
if [[ ! -x bin/stocknode-before || "$(cat bin/stocknode-before.rev 2>/dev/null)" != "$BEFORE" ]]; then
	git worktree add --detach -q "$work-before" "$BEFORE"
	(cd "$work-before" && go build -o "$OLDPWD/bin/stocknode-before" ./cmd/stocknode)
	echo "$BEFORE" >bin/stocknode-before.rev
fi

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# start BIN PORT ARGS...: runs a node, waits for /health, sets pid.
start() {
	local bin=$1 port=$2
	shift 2
	"$bin" --http.port "$port" --verbosity 2 "$@" >/dev/null 2>>"$work/nodes.log" &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 150); do
		curl -sf "http://127.0.0.1:$port/health" >/dev/null && return
		sleep 0.2
	done
	echo "node $bin $* did not come up" >&2
	exit 1
}
stop() { kill -INT "$1"; wait "$1" 2>/dev/null || true; }
cputicks() { awk '{print $14+$15}' "/proc/$1/stat"; }
head_of() { curl -s "http://127.0.0.1:$1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["head"])'; }
clk=$(getconf CLK_TCK)

echo "== 1. the log's cost on the sequencer: before ($BEFORE) and with the log, alternating"
for r in $(seq "$ROUNDS"); do
	for which in before now; do
		bin=bin/stocknode
		[[ $which == before ]] && bin=bin/stocknode-before
		port=$(freeport)
		start "$bin" "$port" --dev=false --datadir "$work/$which-$r"
		bin/loadtest flood -url "http://127.0.0.1:$port" -accounts 1024 -senders 64 -duration 6s -json >"$work/flood-$which-$r.json"
		stop "$pid"
	done
done
python3 - "$work" "$ROUNDS" <<'EOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
print("| | accepted/s | included/s | time to pending p50 | p99 |")
print("|---|---|---|---|---|")
med = {}
for which in ("before", "now"):
    rs = [json.load(open(f"{work}/flood-{which}-{r}.json")) for r in range(1, rounds + 1)]
    col = lambda f: " / ".join(f(x) for x in rs)
    label = "before the log" if which == "before" else "with the log"
    acc = col(lambda x: "{:,.0f}".format(x["acceptedPerSecond"]))
    inc = col(lambda x: "{:,.0f}".format(x["includedPerSecond"]))
    p50 = col(lambda x: "{:.0f}".format(x["timeToPending"]["p50"] / 1e6))
    p99 = col(lambda x: "{:.0f}".format(x["timeToPending"]["p99"] / 1e6))
    print(f"| {label} | {acc} | {inc} | {p50} ms | {p99} ms |")
    med[which] = {k: statistics.median(f(x) for x in rs) for k, f in {
        "acc": lambda x: x["acceptedPerSecond"], "inc": lambda x: x["includedPerSecond"],
        "p50": lambda x: x["timeToPending"]["p50"] / 1e6, "p99": lambda x: x["timeToPending"]["p99"] / 1e6}.items()}
b, n = med["before"], med["now"]
print(f"medians: accepted {n['acc']:,.0f} vs {b['acc']:,.0f}/s (ratio {n['acc']/b['acc']:.2f}), included {n['inc']:,.0f} vs {b['inc']:,.0f}/s (ratio {n['inc']/b['inc']:.2f}), "
      f"time to pending p50 {n['p50']:.0f} vs {b['p50']:.0f} ms, p99 {n['p99']:.0f} vs {b['p99']:.0f} ms")
EOF

echo
echo "== 2. a sequencer and a replica: lag under a $RATE transfers/s flood, CPU per sealed block, CPU per log reader"
sport=$(freeport) rport=$(freeport) nport=$(freeport)
start bin/stocknode "$sport" --dev=false --datadir "$work/seq" --nats.listen "127.0.0.1:$nport"
seq_pid=$pid
start bin/stocknode "$rport" --dev --follow --nats.url "nats://127.0.0.1:$nport" --nats.nkey "$work/seq/nats-auth/replica.nk"
rep_pid=$pid
# Fund the flood's accounts first, so that the measured flood is transfers only.
bin/loadtest flood -url "http://127.0.0.1:$sport" -accounts 1024 -senders 64 -duration 1s >/dev/null
sleep 2
seq_cpu0=$(cputicks "$seq_pid") rep_cpu0=$(cputicks "$rep_pid") head0=$(head_of "$sport")
bin/loadtest replag -sequencer "ws://127.0.0.1:$sport/ws" -replica "ws://127.0.0.1:$rport/ws" -duration 12s -json >"$work/replag.json" &
replag_pid=$!
bin/loadtest flood -url "http://127.0.0.1:$sport" -accounts 1024 -senders 64 -duration 10s -rate "$RATE" -drain 1s -json >"$work/flood-replica.json"
wait "$replag_pid"
seq_cpu1=$(cputicks "$seq_pid") rep_cpu1=$(cputicks "$rep_pid") head1=$(head_of "$sport")
# The same flood again with 8 log readers beside the replica.
seq_cpu2=$(cputicks "$seq_pid") head2=$(head_of "$sport")
bin/loadtest logread -nats "nats://127.0.0.1:$nport" -nkey "$work/seq/nats-auth/replica.nk" -readers 8 -duration 11s -json >"$work/logread.json" &
logread_pid=$!
bin/loadtest flood -url "http://127.0.0.1:$sport" -accounts 1024 -senders 64 -duration 10s -rate "$RATE" -drain 1s -json >"$work/flood-readers.json"
wait "$logread_pid"
seq_cpu3=$(cputicks "$seq_pid") head3=$(head_of "$sport")
python3 - "$work" "$clk" "$seq_cpu0" "$seq_cpu1" "$rep_cpu0" "$rep_cpu1" "$head0" "$head1" "$seq_cpu2" "$seq_cpu3" "$head2" "$head3" <<'EOF'
import json, sys
work, clk = sys.argv[1], int(sys.argv[2])
s0, s1, r0, r1, h0, h1, s2, s3, h2, h3 = map(int, sys.argv[3:])
lag = json.load(open(f"{work}/replag.json"))
fl = json.load(open(f"{work}/flood-replica.json"))
fr = json.load(open(f"{work}/flood-readers.json"))
rd = json.load(open(f"{work}/logread.json"))
ms = lambda ticks: ticks * 1000 / clk
blocks, blocks2 = h1 - h0, h3 - h2
print(f"flood: {fl['acceptedPerSecond']:,.0f} accepted/s, {fl['includedPerSecond']:,.0f} included/s offered {fl.get('offeredRate', 0):,.0f}/s")
L = lag["lag"]
print(f"replica lag behind the sequencer's newFlashblocks: p50 {L['p50']/1e6:.2f} ms, p90 {L['p90']/1e6:.2f} ms, p99 {L['p99']/1e6:.2f} ms, max {L['max']/1e6:.2f} ms "
      f"over {lag['matched']} pre-confirmations ({lag['missingOnReplica']} missing)")
print(f"CPU over {blocks} sealed blocks: sequencer {ms(s1-s0)/blocks:.1f} ms/block, replica {ms(r1-r0)/blocks:.1f} ms/block "
      f"(replica/sequencer {(r1-r0)/max(1,s1-s0):.2f})")
per_reader = (ms(s3 - s2) / max(1, blocks2) - ms(s1 - s0) / max(1, blocks)) / rd["readers"]
print(f"8 log readers beside it: sequencer {ms(s3-s2)/max(1,blocks2):.1f} ms/block ({fr['includedPerSecond']:,.0f} included/s), "
      f"so {per_reader:.2f} ms/block per reader; each read {rd['entriesPerSecondPerReader']:.0f} entries/s, {rd['rlpBytesPerSecondPerReader']/1000:.0f} KB/s")
EOF

echo
echo "== 3. eth_getBalance(pending) requests/s: replica against sequencer, alternating, idle chain"
sleep 2
for r in $(seq "$ROUNDS"); do
	for which in seq rep; do
		port=$sport
		[[ $which == rep ]] && port=$rport
		bin/loadtest http -url "http://127.0.0.1:$port" -method getBalance -tag pending -c 16 -duration 5s -json >"$work/http-$which-$r.json"
	done
done
python3 - "$work" "$ROUNDS" <<'EOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def rps(which):
    out = []
    for r in range(1, rounds + 1):
        out.append(json.load(open(f"{work}/http-{which}-{r}.json"))["runs"][0]["requestsPerSecond"])
    return out
s, p = rps("seq"), rps("rep")
print("sequencer: " + " / ".join(f"{x:,.0f}" for x in s) + " req/s")
print("replica:   " + " / ".join(f"{x:,.0f}" for x in p) + " req/s")
print(f"median ratio replica/sequencer: {statistics.median(p)/statistics.median(s):.2f}")
EOF

echo
echo "== 4. a three-node NATS cluster: the sequencer's log replicated on three NATS server processes (bin/stocknode-nats) (--nats.replicas 3), a replica following one of them"
stop "$rep_pid"
stop "$seq_pid"
go build -o bin/stocknode-nats ./cmd/stocknode-nats
cports=() rports=()
for i in 1 2 3; do cports+=("$(freeport)") rports+=("$(freeport)"); done
nats_pids=()
for i in 0 1 2; do
	routes=""
	for j in 0 1 2; do [[ $j != "$i" ]] && routes+="nats://127.0.0.1:${rports[$j]},"; done
	cat >"$work/nats$i.conf" <<CONF
server_name: n$i
listen: 127.0.0.1:${cports[$i]}
max_payload: 8MB
jetstream { store_dir: "$work/nats$i" }
cluster { name: bench, listen: 127.0.0.1:${rports[$i]}, routes: [${routes%,}] }
CONF
	bin/stocknode-nats -c "$work/nats$i.conf" 2>>"$work/nats.log" &
	nats_pids+=("$!")
	pids+=("$!")
done
urls="nats://127.0.0.1:${cports[0]},nats://127.0.0.1:${cports[1]},nats://127.0.0.1:${cports[2]}"
sport=$(freeport) rport=$(freeport)
start bin/stocknode "$sport" --dev=false --datadir "$work/seq-cluster" --nats.url "$urls" --nats.replicas 3
seq_pid=$pid
start bin/stocknode "$rport" --dev --follow --nats.url "nats://127.0.0.1:${cports[1]}"
rep_pid=$pid
natscpu() { local t=0; for p in "${nats_pids[@]}"; do t=$((t + $(cputicks "$p"))); done; echo "$t"; }
bin/loadtest flood -url "http://127.0.0.1:$sport" -accounts 1024 -senders 64 -duration 1s >/dev/null
sleep 2
n0=$(natscpu) s0=$(cputicks "$seq_pid") h0=$(head_of "$sport")
bin/loadtest replag -sequencer "ws://127.0.0.1:$sport/ws" -replica "ws://127.0.0.1:$rport/ws" -duration 12s -json >"$work/replag-cluster.json" &
replag_pid=$!
bin/loadtest flood -url "http://127.0.0.1:$sport" -accounts 1024 -senders 64 -duration 10s -rate "$RATE" -drain 1s -json >"$work/flood-cluster.json"
wait "$replag_pid"
n1=$(natscpu) s1=$(cputicks "$seq_pid") h1=$(head_of "$sport")
# 8 log readers on the third server, which neither the sequencer's appends
# nor the replica use directly: their cost there is what a reader costs.
n2=$(natscpu) h2=$(head_of "$sport")
bin/loadtest logread -nats "nats://127.0.0.1:${cports[2]}" -readers 8 -duration 11s -json >"$work/logread-cluster.json" &
logread_pid=$!
bin/loadtest flood -url "http://127.0.0.1:$sport" -accounts 1024 -senders 64 -duration 10s -rate "$RATE" -drain 1s -json >"$work/flood-cluster-readers.json"
wait "$logread_pid"
n3=$(natscpu) h3=$(head_of "$sport")
python3 - "$work" "$clk" "$n0" "$n1" "$s0" "$s1" "$h0" "$h1" "$n2" "$n3" "$h2" "$h3" <<'PY'
import json, sys
work, clk = sys.argv[1], int(sys.argv[2])
n0, n1, s0, s1, h0, h1, n2, n3, h2, h3 = map(int, sys.argv[3:])
ms = lambda ticks: ticks * 1000 / clk
fl = json.load(open(f"{work}/flood-cluster.json"))
fr = json.load(open(f"{work}/flood-cluster-readers.json"))
lag = json.load(open(f"{work}/replag-cluster.json"))
rd = json.load(open(f"{work}/logread-cluster.json"))
b1, b2 = max(1, h1 - h0), max(1, h3 - h2)
L = lag["lag"]
print(f"flood on the cluster: {fl['acceptedPerSecond']:,.0f} accepted/s, {fl['includedPerSecond']:,.0f} included/s, "
      f"time to pending p50 {fl['timeToPending']['p50']/1e6:.0f} ms, p99 {fl['timeToPending']['p99']/1e6:.0f} ms")
print(f"replica lag: p50 {L['p50']/1e6:.2f} ms, p90 {L['p90']/1e6:.2f} ms, p99 {L['p99']/1e6:.2f} ms, max {L['max']/1e6:.2f} ms "
      f"over {lag['matched']} pre-confirmations ({lag['missingOnReplica']} missing)")
print(f"CPU over {b1} blocks: the three nats-servers {ms(n1-n0)/b1:.1f} ms/block together, the sequencer {ms(s1-s0)/b1:.1f} ms/block")
per_reader = (ms(n3 - n2) / b2 - ms(n1 - n0) / b1) / rd["readers"]
print(f"8 log readers on the third server: the servers {ms(n3-n2)/b2:.1f} ms/block ({fr['includedPerSecond']:,.0f} included/s), "
      f"so {per_reader:.2f} ms/block per reader; each read {rd['entriesPerSecondPerReader']:.0f} entries/s")
PY
