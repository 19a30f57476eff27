#!/usr/bin/env bash
# stocknode against its anchors, geth v1.16.7 and anvil 1.7.1, on one genesis
# with one load generator, one server at a time (make compare). Prints one
# table and writes every measurement as JSON. Bounded: about 27 minutes (-rounds 1: about 15;
# -ws-duration 0 leaves out the WebSocket fan-outs, about 8 of them).
#
#   bash compare/run.sh [compare flags, e.g. -servers stocknode,anvil -duration 3s]
#
# Environment: GETH, ANVIL (binaries; default: v1.16.7 and 1.7.1 in
# ~/.cache/stocknode-anchors, installed there when absent), WRK (default:
# Debian's wrk, installed when absent; the getBalance and eth_call reads are
# measured with it as well as with loadtest), OUT (the JSON
# file; default in the work directory, which keeps the genesis and the servers'
# logs), KEEP=1 also keeps the binaries and geth's datadir, BASELINE=<git rev>
# also builds stocknode at that revision (a git worktree in the work
# directory, removed once built) and measures it as the server stocknode-base
# exactly as stocknode, interleaved in the rounds (compare -baseline): the
# before and after of a change in one run, e.g.
#
#   BASELINE=main bash compare/run.sh -servers stocknode -rounds 3
#
# What runs: stocknode --dev --genesis G --block-time 200ms; geth init G, then
# geth --syncmode full --nodiscover --maxpeers 0 --http (no consensus client,
# so geth seals no blocks: it serves reads of the genesis state only and the
# transaction flood is skipped for it); anvil --init G --gas-limit 60000000 --block-time 0.2 --silent.
# The trace workloads: stocknode and geth each import a trace chain into a fresh
# datadir and serve it without adding blocks (stocknode --block-time 0).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
GO=${GO:-go}
ANCHORS="${HOME}/.cache/stocknode-anchors"
GETH_VERSION=v1.16.7
ANVIL_VERSION=1.7.1
GETH=${GETH:-$ANCHORS/geth}
ANVIL=${ANVIL:-$ANCHORS/npm/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil}

log() { echo "== $*" >&2; }

if [[ ! -x "$GETH" ]]; then
  log "installing geth $GETH_VERSION into $ANCHORS"
  mkdir -p "$ANCHORS"
  GOBIN="$ANCHORS" "$GO" install "github.com/ethereum/go-ethereum/cmd/geth@$GETH_VERSION"
  GETH="$ANCHORS/geth"
fi
if [[ ! -x "$ANVIL" ]]; then
  log "installing anvil $ANVIL_VERSION into $ANCHORS/npm"
  bash scripts/ensure-node.sh
  mkdir -p "$ANCHORS/npm"
  npm install --no-audit --no-fund --prefix "$ANCHORS/npm" "@foundry-rs/anvil@$ANVIL_VERSION" >&2
  ANVIL="$ANCHORS/npm/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
fi

# The reads are measured a second time with wrk; without it (no Debian
# packages to be had), the wrk rows are left out.
WRK=${WRK:-$(bash scripts/ensure-wrk.sh || true)}
[[ -n "$WRK" ]] || log "no wrk: the reads are measured with loadtest only"

# The WebSocket fan-outs hold one descriptor per subscriber, in the probe and
# in the server (anvil does not raise its own soft limit, as Go programs do).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

WORK=$(mktemp -d "${TMPDIR:-/tmp}/stocknode-compare.XXXXXX")
cleanup() {
  if [[ -d "$WORK/baseline-src" ]]; then git worktree remove --force "$WORK/baseline-src" || true; fi
  [[ "${KEEP:-}" == 1 ]] || rm -rf "$WORK/geth-data" "$WORK/stocknode" "$WORK/stocknode-base" "$WORK/loadtest" "$WORK/compare"
}
trap cleanup EXIT

log "building stocknode, loadtest and compare into $WORK"
"$GO" build -o "$WORK/stocknode" ./cmd/stocknode
"$GO" build -o "$WORK/loadtest" ./loadtest
"$GO" build -o "$WORK/compare" ./compare

baseline=()
if [[ -n "${BASELINE:-}" ]]; then
  rev=$(git rev-parse --verify "${BASELINE}^{commit}")
  log "building the baseline stocknode at $BASELINE ($rev) into $WORK/stocknode-base"
  git worktree add --detach "$WORK/baseline-src" "$rev" >&2
  (cd "$WORK/baseline-src" && "$GO" build -o "$WORK/stocknode-base" ./cmd/stocknode)
  git worktree remove --force "$WORK/baseline-src"
  baseline=(-baseline "$WORK/stocknode-base")
fi

"$WORK/compare" -work "$WORK" -out "${OUT:-$WORK/compare.json}" \
  -stocknode "$WORK/stocknode" -geth "$GETH" -anvil "$ANVIL" -loadtest "$WORK/loadtest" -wrk "$WRK" "${baseline[@]}" "$@"
