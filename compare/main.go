// Command compare measures stocknode against its anchors, geth v1.16.7 and
// anvil 1.7.1, in one run on one machine: one genesis for all three (the ten
// development accounts, a predeployed ERC-20 with balances for the 1,024
// addresses the load generator reads), the same load generator
// (bin/loadtest), one server at a time. It prints one table and writes every
// measurement as JSON. compare/run.sh (make compare) builds the binaries and
// installs the anchors; run it through that.
//
//	compare -stocknode BIN -geth BIN -anvil BIN -loadtest BIN -work DIR [-out FILE] [-baseline BIN]
//
// With -baseline, a second stocknode build (another revision: the before of
// a before/after comparison) is measured as the server stocknode-base,
// exactly as stocknode is and interleaved with it in every round.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/loadtest/httpload"
)

type config struct {
	stocknode, geth, anvil, loadtest string
	wrk, wrkScript                   string // wrk's binary ("": no wrk workloads) and its Lua script
	baseline                         string // stocknode-base's binary
	work, out                        string
	servers                          string
	duration, warmup, floodDuration  time.Duration
	blockTime                        time.Duration
	conns, rounds, transfers         int
	flood, ceiling, trace            bool
	pacedRate, floodPacedRate        float64
	floodSenders                     []int
	// wsDuration is each WebSocket fan-out's window (0: none),
	// wsSubscribers the subscribers of every server's, wsScale those of
	// stocknode's second (websocket.go).
	wsDuration             time.Duration
	wsSubscribers, wsScale int
	// chains is the directory of the bundled trace chains; traceChains
	// are the chains the trace workloads run on, set by run when
	// cfg.trace (tracechains.go).
	chains      string
	traceChains []traceChain
}

// workloads are the read measurements, each at cfg.conns connections.
// The trace workloads run on chains of their own (tracechains.go).
var workloads = []struct{ method, tag string }{
	{"getBalance", "latest"},
	{"getBalance", "pending"},
	{"call", "latest"},
	{"call", "pending"},
	// Every call of another address: none repeats, so stocknode runs each
	// one (its remembered results answer the repeats of call's 1,024).
	{"callDistinct", "latest"},
	{"mix", "latest"},
	{"getProof", "latest"},
}

// traceWorkload reports whether -trace=false leaves a workload out.
func traceWorkload(method string) bool { return method == "getProof" }

// pacedWorkloads are measured again at one offered rate for every server:
// unpaced, a faster server is offered more requests, and on a machine it
// shares with the load generator that load itself lengthens the latency
// tail, so unpaced p99s compare the servers' throughput as much as their
// latency.
var pacedWorkloads = []struct{ method, tag string }{
	{"getBalance", "latest"},
	{"call", "latest"},
	{"call", "pending"},
}

func main() {
	var cfg config
	serveConstant := flag.String("serve-constant", "", "internal: serve a constant JSON-RPC answer with fasthttp on this address (the ceiling of the setup)")
	writeGenesisTo := flag.String("write-genesis", "", "write the comparison genesis to this file and exit")
	flag.StringVar(&cfg.stocknode, "stocknode", "bin/stocknode", "stocknode binary")
	flag.StringVar(&cfg.baseline, "baseline", "", "a baseline stocknode binary (e.g. built from the revision before a change), measured as the server "+baseName+" exactly as stocknode is, right after it in the server order")
	flag.StringVar(&cfg.geth, "geth", "", "geth v1.16.7 binary")
	flag.StringVar(&cfg.anvil, "anvil", "", "anvil 1.7.1 binary")
	flag.StringVar(&cfg.loadtest, "loadtest", "bin/loadtest", "loadtest binary")
	flag.StringVar(&cfg.wrk, "wrk", "", "wrk binary: also measure the getBalance and eth_call reads with wrk -t1 (empty: not)")
	flag.StringVar(&cfg.wrkScript, "wrk-script", "loadtest/wrk/rpc.lua", "wrk's Lua script of JSON-RPC bodies")
	flag.StringVar(&cfg.work, "work", "", "work directory (genesis, logs, datadirs)")
	flag.StringVar(&cfg.out, "out", "", "JSON results file (default WORK/compare.json)")
	flag.StringVar(&cfg.servers, "servers", "stocknode,geth,anvil", "servers to measure, in order")
	flag.DurationVar(&cfg.duration, "duration", 6*time.Second, "measurement time per workload")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "load before each measurement, not counted")
	flag.DurationVar(&cfg.floodDuration, "flood-duration", 6*time.Second, "transaction flood time (0: no flood)")
	flag.Func("flood-senders", "comma-separated sender counts of the unpaced flood, each run in turn on every server (default "+defaultFloodSenders+"): each server's flood is its best by accepted/s, its intake at the concurrency that saturates it", func(v string) error {
		senders, err := httpload.ParseCounts(v)
		cfg.floodSenders = senders
		return err
	})
	flag.DurationVar(&cfg.blockTime, "block-time", 200*time.Millisecond, "block time of stocknode and anvil")
	flag.IntVar(&cfg.conns, "c", 64, "keep-alive connections of the read workloads")
	flag.IntVar(&cfg.rounds, "rounds", 2, "rounds of the read workloads and the flood over all servers, interleaved (each round restarts the servers and starts one server later in -servers, wrapping around, so that no server always runs first); the table shows each workload's best round, for a machine shared with other work")
	flag.BoolVar(&cfg.trace, "trace", true, "also measure eth_getProof (the token's account and a balance slot), and debug_traceTransaction and debug_traceBlockByNumber with callTracer on two imported chains (a block of 256 token transfers; the execution-apis test chain), on stocknode and geth (anvil cannot import a chain)")
	flag.IntVar(&cfg.transfers, "transfers", traceTxCount, "token transfers in the transfers trace chain's one block (at most 1,000)")
	flag.StringVar(&cfg.chains, "chains", "compare/chains", "directory of the bundled trace chains (execution-apis/genesis.json, chain.rlp)")
	flag.BoolVar(&cfg.ceiling, "ceiling", true, "also measure fasthttp returning a constant body (the setup's ceiling), at the start of every round; the tables show its best round")
	flag.Float64Var(&cfg.pacedRate, "paced-rate", 10_000, "offered requests/s of the latency comparison at one load (0: skip it); below every server's capacity")
	flag.Float64Var(&cfg.floodPacedRate, "flood-paced-rate", 5_000, "offered transfers/s of a second flood after the first (0: skip it), below the chain's capacity (2,857 transfers a 60M-gas block, 14,285/s at 200 ms blocks), so that its times to pending and latest measure the sequencer rather than a backlog")
	flag.DurationVar(&cfg.wsDuration, "ws-duration", 60*time.Second, "window of each WebSocket newHeads fan-out, in every round (0: none): stocknode and anvil at -ws-subscribers, stocknode also at -ws-scale; each verdict takes the server's best round by p99, and a head missed in any round counts")
	flag.IntVar(&cfg.wsSubscribers, "ws-subscribers", 5000, "subscribers of the WebSocket fan-out that compares stocknode with anvil")
	flag.IntVar(&cfg.wsScale, "ws-scale", 15000, "subscribers of stocknode's second WebSocket fan-out (0: none); one descriptor each, in the probe and in the server")
	flag.Parse()
	if *serveConstant != "" {
		body := []byte(`{"jsonrpc":"2.0","id":1,"result":"0x0"}`)
		err := fasthttp.ListenAndServe(*serveConstant, func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("application/json")
			ctx.SetBody(body)
		})
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *writeGenesisTo != "" {
		if err := writeGenesis(*writeGenesisTo); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			os.Exit(1)
		}
		return
	}
	if cfg.transfers < 1 || cfg.transfers > 1000 {
		fmt.Fprintf(os.Stderr, "compare: -transfers %d: want 1 to 1,000 (28,518 gas each)\n", cfg.transfers)
		os.Exit(2)
	}
	cfg.flood = cfg.floodDuration > 0
	if cfg.floodSenders == nil {
		cfg.floodSenders, _ = httpload.ParseCounts(defaultFloodSenders)
	}
	cfg.servers = withBaseline(cfg.servers, cfg.baseline)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "== "+format+"\n", args...)
}

// baseName is the server name of the -baseline build.
const baseName = "stocknode-base"

// withBaseline adds stocknode-base to the server list right after
// stocknode (first if stocknode is not measured) when a baseline binary is
// given and the list does not name it already.
func withBaseline(servers, baseline string) string {
	names := strings.Split(servers, ",")
	if baseline == "" || slices.Contains(names, baseName) {
		return servers
	}
	at := slices.Index(names, "stocknode") + 1
	return strings.Join(slices.Insert(names, at, baseName), ",")
}
