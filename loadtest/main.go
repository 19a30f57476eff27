// Command loadtest drives a JSON-RPC endpoint (stocknode, geth, anvil) with
// bounded, self-stopping load and reports what it measured, as text or JSON.
//
//	go run ./loadtest ws-fanout -url ws://127.0.0.1:8545/ws -n 10000 -duration 20s [-pid PID]
//	go run ./loadtest ws-logs   -url ws://127.0.0.1:8545/ws -rpc http://127.0.0.1:8545 -n 1000 -duration 20s
//	go run ./loadtest http      -url http://127.0.0.1:8545 -method getBalance|call|blockNumber|mix -tag latest|pending -c 1,4,16,64,256 -duration 6s [-pipeline N]
//	go run ./loadtest flood     -url http://127.0.0.1:8545 -accounts 1024 -senders 64 -duration 6s
//	go run ./loadtest txsync    -url http://127.0.0.1:8545 -paths /,/preconf -methods sync,poll -samples 400 [-poll 10ms]
//	go run ./loadtest replag    -sequencer ws://127.0.0.1:8545/ws -replica ws://127.0.0.1:8546/ws -duration 10s
//	go run ./loadtest failover  -bin bin/stocknode -kills 20 -rate 1000   (make failover-bench)
//	go run ./loadtest genesis   -accounts 1000000 -out genesis.json   (for the state-size measurement)
//	go run ./loadtest abuse     -url http://127.0.0.1:8545 -pid PID [-metrics http://127.0.0.1:6060/metrics] [-attacks blake2f,cl-te,...]
//
// Only loopback addresses are accepted: load never leaves the machine.
//
// This package only parses the mode and prints its report. Each mode is a
// package of its own: httpload (http), flood, wsload (ws-fanout, ws-logs),
// txsync, replag, abuse and failover; logread and genesis are small enough to stay
// here. What the modes share is in rpcclient (JSON-RPC client), wsprobe
// (the WebSocket probe), target (loopback check, URL split), pacer and
// workload (accounts, token, transfers), and in internal/latency (histogram)
// and internal/procstat (/proc), which compare uses too.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/stocknode/stocknode/loadtest/abuse"
	"github.com/stocknode/stocknode/loadtest/failover"
	"github.com/stocknode/stocknode/loadtest/flood"
	"github.com/stocknode/stocknode/loadtest/httpload"
	"github.com/stocknode/stocknode/loadtest/replag"
	"github.com/stocknode/stocknode/loadtest/txsync"
	"github.com/stocknode/stocknode/loadtest/wsload"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	// The probe keeps little garbage; collecting it rarely keeps its own
	// pauses out of what it measures.
	debug.SetGCPercent(400)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var (
		report any
		err    error
	)
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	switch os.Args[1] {
	case "ws-fanout":
		cfg := wsload.FanoutFlags(fs)
		fs.Parse(os.Args[2:])
		report, err = wsload.RunFanout(ctx, *cfg)
	case "ws-bytes":
		cfg := wsload.BytesFlags(fs)
		fs.Parse(os.Args[2:])
		report, err = wsload.RunBytes(ctx, *cfg)
	case "ws-logs":
		cfg := wsload.LogsFlags(fs)
		fs.Parse(os.Args[2:])
		report, err = wsload.RunLogs(ctx, *cfg)
	case "http":
		cfg := httpload.Flags(fs)
		fs.Parse(os.Args[2:])
		report, err = httpload.Run(ctx, *cfg)
	case "flood":
		cfg := flood.Flags(fs)
		fs.Parse(os.Args[2:])
		report, err = flood.Run(ctx, *cfg)
	case "failover":
		cfg := failover.Flags(fs)
		fs.Parse(os.Args[2:])
		report, err = failover.Run(ctx, *cfg)
	case "txsync":
		cfg := txsync.Flags(fs)
		fs.Parse(os.Args[2:])
		report, err = txsync.Run(ctx, *cfg)
	case "replag":
		cfg := replag.Flags(fs)
		fs.Parse(os.Args[2:])
		report, err = replag.Run(ctx, *cfg)
	case "logread":
		cfg := logreadFlags(fs)
		fs.Parse(os.Args[2:])
		report, err = runLogread(ctx, *cfg)
	case "genesis":
		cfg := genesisFlags(fs)
		fs.Parse(os.Args[2:])
		report, err = runGenesis(*cfg)
	case "abuse":
		cfg := abuse.Flags(fs)
		fs.Parse(os.Args[2:])
		report, err = abuse.Run(ctx, *cfg, os.Stderr)
	case abuse.HoldMode: // idle-conns' child processes
		os.Exit(abuse.RunHold(ctx, os.Args[2:], os.Stdin, os.Stdout))
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(report)
	} else {
		fmt.Println(report)
	}
	// A report can say the run failed (abuse: an attack's verdict).
	if r, ok := report.(interface{ ExitCode() int }); ok {
		os.Exit(r.ExitCode())
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: loadtest ws-fanout|ws-bytes|ws-logs|http|flood|txsync|replag|failover|logread|genesis|abuse [flags] (-h for flags)")
	os.Exit(2)
}
