#!/usr/bin/env bash
# JSON-RPC conformance: replays conformance/tests against stocknode and against
# geth v1.16.7, both serving the test chain conformance/chain, and prints both
# summaries side by side. Exits with rpccompat's status for stocknode (0: every
# fixture passes); geth's failures only show where geth deviates from the
# specification.
#
#   bash conformance/run.sh            (or: make conformance)
#
# Environment: GETH (a geth binary; default: v1.16.7 in
# ~/.cache/stocknode-anchors, installed there when absent), KEEP=1 keeps the
# work directory.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
GO=${GO:-go}
GETH_VERSION=v1.16.7
ANCHORS="${HOME}/.cache/stocknode-anchors"
GETH=${GETH:-$ANCHORS/geth}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/stocknode-conformance.XXXXXX")
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -INT "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  if [[ "${KEEP:-}" == 1 ]]; then
    echo "work directory kept: $WORK"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

log() { echo "== $*" >&2; }

# stop PID: SIGINT, then wait for it to exit.
stop() {
  local pid=$1
  kill -INT "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

json_field() { # json_field FILE KEY: a top-level string or number of a flat JSON file
  sed -n "s/^ *\"$2\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1"
}

CHAIN="$ROOT/conformance/chain"
TESTS="$ROOT/conformance/tests"
HEAD_NUMBER=$(json_field "$CHAIN/info.json" headNumber)
HEAD_HASH=$(json_field "$CHAIN/info.json" headHash)
LAST_TX=$(json_field "$CHAIN/info.json" lastTxHash)

log "building stocknode and rpccompat"
"$GO" build -o "$WORK/stocknode" ./cmd/stocknode
"$GO" build -o "$WORK/rpccompat" ./conformance/cmd/rpccompat
RPCCOMPAT="$WORK/rpccompat"

if [[ ! -x "$GETH" ]]; then
  log "installing geth $GETH_VERSION into $ANCHORS"
  mkdir -p "$ANCHORS"
  GOBIN="$ANCHORS" "$GO" install "github.com/ethereum/go-ethereum/cmd/geth@$GETH_VERSION"
  GETH="$ANCHORS/geth"
fi

# ------------------------------------------------------------------ stocknode
log "stocknode: importing the test chain"
SN_DATA="$WORK/stocknode-data"
"$WORK/stocknode" import --datadir "$SN_DATA" --genesis "$CHAIN/genesis.json" "$CHAIN/chain.rlp" | tee "$WORK/stocknode-import.log" >&2
grep -q "$HEAD_HASH" "$WORK/stocknode-import.log" || { echo "stocknode imported a head other than $HEAD_HASH" >&2; exit 2; }

SN_PORT=$("$RPCCOMPAT" -free-port)
SN_URL="http://127.0.0.1:$SN_PORT"
"$WORK/stocknode" --datadir "$SN_DATA" --block-time 0 --http.port "$SN_PORT" >"$WORK/stocknode.log" 2>&1 &
SN_PID=$!
PIDS+=("$SN_PID")
log "stocknode: serving on $SN_URL (pid $SN_PID)"
SN_STATUS=0
"$RPCCOMPAT" -url "$SN_URL" -tests "$TESTS" -label stocknode -out "$WORK/stocknode.json" \
  -wait-block "$HEAD_NUMBER" -wait-tx "$LAST_TX" -wait-timeout 60s -v >"$WORK/stocknode.txt" || SN_STATUS=$?
stop "$SN_PID"
if [[ $SN_STATUS -ge 2 ]]; then
  cat "$WORK/stocknode.txt" >&2
  echo "--- stocknode log:" >&2; tail -n 30 "$WORK/stocknode.log" >&2
  exit 2
fi

# ------------------------------------------------------------------ geth
log "geth: $("$GETH" version | sed -n 's/^Version: //p'): init and import (archive)"
GETH_DATA="$WORK/geth-data"
GETH_COMMON=(--datadir "$GETH_DATA" --state.scheme hash --nodiscover --maxpeers 0 --nat none --ipcdisable --verbosity 2)
"$GETH" "${GETH_COMMON[@]}" init "$CHAIN/genesis.json" >"$WORK/geth-init.log" 2>&1 || { cat "$WORK/geth-init.log" >&2; exit 2; }
"$GETH" "${GETH_COMMON[@]}" --gcmode archive --syncmode full import "$CHAIN/chain.rlp" >"$WORK/geth-import.log" 2>&1 || { tail -n 30 "$WORK/geth-import.log" >&2; exit 2; }

GETH_PORT=$("$RPCCOMPAT" -free-port)
GETH_P2P=$("$RPCCOMPAT" -free-port)
GETH_AUTH=$("$RPCCOMPAT" -free-port)
GETH_URL="http://127.0.0.1:$GETH_PORT"
"$GETH" "${GETH_COMMON[@]}" --gcmode archive --syncmode full --port "$GETH_P2P" --authrpc.port "$GETH_AUTH" \
  --http --http.addr 127.0.0.1 --http.port "$GETH_PORT" --http.api eth,net,web3,debug,txpool >"$WORK/geth.log" 2>&1 &
GETH_PID=$!
PIDS+=("$GETH_PID")
log "geth: serving on $GETH_URL (pid $GETH_PID)"
GETH_STATUS=0
"$RPCCOMPAT" -url "$GETH_URL" -tests "$TESTS" -label geth -out "$WORK/geth.json" \
  -wait-block "$HEAD_NUMBER" -wait-tx "$LAST_TX" -wait-timeout 60s -v >"$WORK/geth.txt" || GETH_STATUS=$?
stop "$GETH_PID"
if [[ $GETH_STATUS -ge 2 ]]; then
  cat "$WORK/geth.txt" >&2
  echo "--- geth log:" >&2; tail -n 30 "$WORK/geth.log" >&2
  exit 2
fi

# ------------------------------------------------------------------ report
echo "### stocknode failures"
grep -A3 '^FAIL' "$WORK/stocknode.txt" || echo "(none)"
echo
echo "### geth $GETH_VERSION failures"
grep '^FAIL' "$WORK/geth.txt" || echo "(none)"
echo
echo "### passed/total per method (* = failures)"
"$RPCCOMPAT" -table "stocknode=$WORK/stocknode.json,geth=$WORK/geth.json"
if [[ -n "${REPORT_DIR:-}" ]]; then
  mkdir -p "$REPORT_DIR"
  cp "$WORK"/stocknode.json "$WORK"/geth.json "$WORK"/stocknode.txt "$WORK"/geth.txt "$REPORT_DIR"/
  echo "reports copied to $REPORT_DIR"
fi
exit "$SN_STATUS"
