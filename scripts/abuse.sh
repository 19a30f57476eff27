#!/usr/bin/env bash
# Runs the hostile-client battery (loadtest abuse) against a fresh
# in-memory node: it builds bin/stocknode and bin/loadtest, starts the node
# on free ports with its metrics on an admin listener, runs the attacks and
# stops the node. Arguments go to loadtest abuse:
#   make abuse
#   make abuse ABUSE_ARGS='-attacks cl-te,blake2f -duration 10s'
#   bash scripts/abuse.sh -json > abuse.json
# The node's log goes to $ABUSE_LOG, or to a temporary file that is removed
# unless the node died (its end is then printed). The exit status is
# loadtest's: 3 when an attack failed or was skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/stocknode ./cmd/stocknode
go build -o bin/loadtest ./loadtest
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rpc=$(port); admin=$(port); natsport=$(port)
log=${ABUSE_LOG:-}
keep=1
if [ -z "$log" ]; then log=$(mktemp -t stocknode-abuse.XXXXXX); keep=0; fi
# --public refuses the public development faucet key: give it a key of
# its own (the preview genesis funds whichever faucet key it is given).
faucet_key=()
case " ${NODE_ARGS:-} " in
*" --public "*) [[ "${NODE_ARGS:-}" == *--faucet.key* ]] || faucet_key=(--faucet.key "0x$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')") ;;
esac
bin/stocknode --dev --http.port "$rpc" --nats.listen "127.0.0.1:$natsport" ${NODE_ARGS:-} "${faucet_key[@]}" --metrics --pprof.addr "127.0.0.1:$admin" >"$log" 2>&1 &
pid=$!
stop() {
	if kill -0 "$pid" 2>/dev/null; then
		kill -INT "$pid"
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$pid" 2>/dev/null || true
	else
		keep=1
		echo "the node (pid $pid) had exited; the end of its log ($log):" >&2
		tail -n 20 "$log" >&2
	fi
	wait "$pid" 2>/dev/null || true
	[ "$keep" = 1 ] || rm -f "$log"
}
trap stop EXIT
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$rpc/health" >/dev/null && break
	sleep 0.2
done
# The replica's seed (in a temporary directory with --dev), from the line
# that gives a replica its flags.
nkey=$(sed -n 's/.*--nats.nkey \([^"]*\)".*/\1/p' "$log" | head -n 1)
echo "stocknode --dev (pid $pid) on http://127.0.0.1:$rpc, its log's NATS on 127.0.0.1:$natsport, metrics on http://127.0.0.1:$admin/metrics" >&2
status=0
bin/loadtest abuse -url "http://127.0.0.1:$rpc" -pid "$pid" -metrics "http://127.0.0.1:$admin/metrics" \
	-nats-url "nats://127.0.0.1:$natsport" -nats-nkey "$nkey" "$@" || status=$?
exit "$status"
