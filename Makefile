# stocknode: see README.md. Every target works on a machine with only Go;
# `make test` installs what the client tests need (Node.js packages).
GO      ?= go
BIN     := bin/stocknode
NATS_BIN := bin/stocknode-nats
DATADIR ?= ./stocknode-data
ARGS    ?=

.PHONY: build run dev test test-short vet clean contracts conformance bench profile loadtest compare abuse index-bench rest-load explorer-load busy-address replica-bench cluster failover-bench nats-server

# COMMIT stamps `stocknode version` when the build records no VCS data.
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

build:
	$(GO) build -ldflags "-X main.commit=$(COMMIT)" -o $(BIN) ./cmd/stocknode

## run: the preview chain in $(DATADIR), a block every 200 ms.
run: build
	./$(BIN) --datadir $(DATADIR) $(ARGS)

## dev: the preview chain in memory, fresh every start.
dev: build
	./$(BIN) --dev $(ARGS)

# The static analysis tools, pinned and installed into bin/tools by `go install`.
TOOLS              := $(CURDIR)/bin/tools
STATICCHECK_VERSION := v0.8.2
GOIMPORTS_VERSION   := v0.52.0

$(TOOLS)/staticcheck-$(STATICCHECK_VERSION):
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	touch $@

$(TOOLS)/goimports-$(GOIMPORTS_VERSION):
	GOBIN=$(TOOLS) $(GO) install golang.org/x/tools/cmd/goimports@$(GOIMPORTS_VERSION)
	touch $@

## vet: go vet, staticcheck, and gofmt/goimports (the project's imports grouped last).
vet: $(TOOLS)/staticcheck-$(STATICCHECK_VERSION) $(TOOLS)/goimports-$(GOIMPORTS_VERSION)
	$(GO) vet ./...
	$(TOOLS)/staticcheck ./...
	@files=$$($(TOOLS)/goimports -local github.com/stocknode/stocknode -l $$(git ls-files '*.go')); \
	if [ -n "$$files" ]; then echo "not formatted (run: $(TOOLS)/goimports -local github.com/stocknode/stocknode -w FILE):"; echo "$$files"; exit 1; fi

## test: every test, with the race detector.
test: vet
	bash scripts/ensure-node.sh
	bash scripts/ensure-chromium.sh
	cd e2e && npm ci --no-audit --no-fund
	cd contracts && npm ci --no-audit --no-fund
	cd examples && npm ci --no-audit --no-fund
	$(GO) test -race -count=1 -timeout 20m -skip '^$(ALONE)$$' ./...
	$(GO) test -race -count=1 -timeout 5m -run '^$(ALONE)$$' ./e2e

# ALONE is the test that times NATS elections in a cluster under a flood
# (blocks go on within 2 s of a stream leader's crash). make test runs it on
# its own, after the rest: beside the other packages' race-detector tests on
# two cores, the servers' 100 ms heartbeats went unanswered and a stream
# leader's crash stopped blocks for 2.12 s once, against 0.7 s alone (PERFORMANCE.md,
# "Sub-second NATS elections": 0.69-0.76 s in make failover-bench).
ALONE := TestKillsUnderFloodLoseNothing

## test-short: the fast tests without the race detector.
test-short:
	$(GO) test -short -count=1 ./...

clean:
	rm -rf bin

## contracts: recompile contracts/src/*.sol (pinned solc-js, Node.js) into the committed contracts/artifacts/.
contracts:
	cd contracts && npm ci --no-audit --no-fund && node compile.mjs

## conformance: the JSON-RPC conformance fixtures (conformance/tests) against stocknode and geth v1.16.7.
conformance:
	bash conformance/run.sh

## loadtest: the load generator in bin/loadtest (http, flood, ws-fanout, ws-logs modes; loopback targets only).
loadtest:
	$(GO) build -o bin/loadtest ./loadtest

## nats-server: the module's nats-server with Raft timers for sub-second elections (bin/stocknode-nats, cmd/stocknode-nats), for the cluster and the failover benchmark.
nats-server:
	$(GO) build -o $(NATS_BIN) ./cmd/stocknode-nats

## cluster: the failover topology on loopback: three NATS servers, two sequencer candidates (--ha) and a read replica, all processes; prints URLs, pids and roles; Ctrl-C stops all.
cluster: build nats-server
	$(GO) run ./cmd/stocknode-cluster -bin $(BIN) -nats-bin $(NATS_BIN) $(ARGS)

## failover-bench: 20 kill -9 of the sequencer, 5 handovers, and kill -9 of each NATS server under a 1,000 transfers/s flood through the replica (FAILOVER_ARGS: loadtest failover flags).
failover-bench: build nats-server
	$(GO) run ./loadtest failover -bin $(BIN) -nats-bin $(NATS_BIN) $(FAILOVER_ARGS)

## compare: stocknode vs geth v1.16.7 and anvil 1.7.1 on one genesis: reads (req/s, p99, CPU per request; loadtest and wrk), eth_getProof, traces with callTracer, WebSocket fan-outs and a transaction flood, best of two rounds, about 27 minutes; flags in COMPARE_ARGS.
compare:
	bash compare/run.sh $(COMPARE_ARGS)

## bench: hot-path benchmarks (codec/, node/rpc/, callbound/) into bench.txt; BASE=<rev> also benchmarks that revision and compares with benchstat.
bench:
	BASE=$(BASE) bash scripts/bench.sh

## profile: CPU and allocation profiles of stocknode under load in ./profiles (METHOD=mix|getBalance|call).
profile:
	METHOD=$(METHOD) bash scripts/profile.sh

## abuse: hostile clients (connection floods, heavy eth_calls, huge answers, malformed HTTP and WebSocket) against a fresh --dev node, with a canary; flags in ABUSE_ARGS (e.g. '-attacks cl-te,blake2f -duration 10s').
abuse:
	bash scripts/abuse.sh $(ABUSE_ARGS)

## index-bench: the address index's page latencies (p50, p99) over an address with 100,000 transactions, then its indexing rate.
index-bench:
	$(GO) test -run '^$$' -bench HistoryPage -benchtime 2000x -count 1 -v ./explorer/index/
	$(GO) test -run '^$$' -bench IndexBlock -benchtime 200x -count 1 ./explorer/index/

## busy-address: a fresh node, a flood paying one address 100,000 transactions (COUNT=), then that address's explorer and Etherscan pages over HTTP, p50/p99.
busy-address:
	bash scripts/busy-address.sh

## explorer-load: eth_getBalance requests/s with and without explorer page traffic beside it on one fresh node (ROUNDS=5), medians, their ratio and the pages' render p50/p99.
explorer-load:
	bash scripts/explorer-load.sh

## replica-bench: the sequencer log's cost (flood against the tree before it, ROUNDS=3), a read replica's lag under a RATE=5000 transfers/s flood, CPU per sealed block and per log reader, its read throughput against the sequencer's, and the same on a three-node NATS cluster (about 7 minutes).
replica-bench:
	bash scripts/replica-bench.sh

## rest-load: Tokenized Stocks REST requests/s against eth_getBalance requests/s on one fresh node, alternating rounds (ROUNDS=5), medians and their ratio.
rest-load:
	bash scripts/rest-load.sh
