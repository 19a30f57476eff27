package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/httpserver"
	"github.com/stocknode/stocknode/metrics"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
	"github.com/stocknode/stocknode/node/ws"
)

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		out := fs.Output()
		if name == "stocknode" {
			fmt.Fprint(out, commandsUsage+"\nThe node's flags:\n")
		} else {
			fmt.Fprintf(out, "Usage of %s:\n", name)
		}
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags, mapping a parse error to errUsage (flag already
// printed it) and keeping -h as flag.ErrHelp.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return errUsage
	}
	return nil
}

func runNode(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stocknode", stderr)
	var cfg app.Config
	fs.StringVar(&cfg.DataDir, "datadir", "./stocknode-data", "data directory of the chain database")
	fs.BoolVar(&cfg.Dev, "dev", false, "keep the chain in memory and start fresh")
	fs.StringVar(&cfg.GenesisFile, "genesis", "", "geth-format genesis.json (default: built-in preview network)")
	fs.Var(&cfg.GCMode, "gcmode", gcmodeUsage)
	fs.Uint64Var(&cfg.StateHistory, "history.state", chain.DefaultStateHistory, "with --gcmode full: number of recent blocks whose states stay readable (0: all)")
	fs.StringVar(&cfg.FaucetKey, "faucet.key", "", "hex private key of the faucet account (default: a derived development key)")
	fs.DurationVar(&cfg.Sequencer.BlockTime, "block-time", 200*time.Millisecond, "time between blocks; 0 produces no blocks")
	fs.DurationVar(&cfg.Sequencer.PreconfInterval, "preconf-interval", 200*time.Millisecond, "time between pre-confirmations (at most --block-time)")
	fs.DurationVar(&cfg.Sequencer.PreconfMinGap, "preconf-min-gap", 20*time.Millisecond, "eager pre-confirmation: transactions accepted after a pre-confirmation that executed transactions are executed and published this long after it, not at the next --preconf-interval tick, and after one that executed none at once (at most --preconf-interval; 0: ticks only)")
	fs.Uint64Var(&cfg.TxPool.GlobalSlots, "txpool.globalslots", 0, "executable transactions the pool holds (default geth's 5120)")
	fs.IntVar(&cfg.TxPool.AddBatch, "txpool.addbatch", txpool.DefaultAddBatch, "most transactions added to the pool at once: the sends that arrive while one batch is added form the next, so the pool's lock and promotion pass are taken once per batch, not once per send")
	verbosity := fs.Int("verbosity", 3, "log level: 0 silent, 1 error, 2 warn, 3 info, 4 debug (each sealed block)")
	fs.DurationVar(&cfg.Sequencer.LogSummary, "log.summary", sequencer.DefaultLogSummary, "how often one INFO line sums up the blocks sealed since the last (each block is a DEBUG line, --verbosity 4); negative: never")
	gcPercent := fs.Int("gc.percent", defaultGCPercent, "the garbage collector's GOGC: it collects once the heap has grown this many percent past what the last collection left; higher trades memory for CPU, within the memory limit (GOGC in the environment takes precedence)")
	pprofOn := fs.Bool("pprof", false, "serve Go profiles at /debug/pprof/ on --pprof.addr (an admin listener, never the public port)")
	metricsOn := fs.Bool("metrics", false, "serve Prometheus metrics at /metrics on --pprof.addr")
	pprofAddr := fs.String("pprof.addr", "127.0.0.1:6060", "admin listening address (pprof, metrics)")
	api := apiFlags(fs, &cfg)
	limits := limitFlags(fs, &cfg)
	protocol := protocolFlags(fs, &cfg)
	faucetFlags(fs, &cfg)
	explorerFlags(fs, &cfg)
	natsTLS := natsFlags(fs, &cfg)
	if err := parse(fs, args); err != nil {
		return err
	}
	if !*pprofOn {
		dropHeapProfile()
	}
	if err := natsTLS.apply(&cfg); err != nil {
		return err
	}
	api.apply(&cfg)
	if err := protocol.apply(&cfg); err != nil {
		return err
	}
	if err := limits.apply(fs, &cfg); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %v\n", fs.Args())
		return errUsage
	}
	if err := checkHA(&cfg); err != nil {
		return err
	}
	if err := checkFollow(&cfg); err != nil {
		return err
	}
	if err := checkPublicFaucet(limits.public, cfg); err != nil {
		return err
	}
	if cfg.RPC.SimulateMaxBlocks < 1 {
		return fmt.Errorf("--rpc.simulate.maxblocks %d: must be at least 1", cfg.RPC.SimulateMaxBlocks)
	}
	if err := checkTxSync(cfg); err != nil {
		return err
	}
	if cfg.RPC.SimulateMaxCalls < 0 {
		return fmt.Errorf("--rpc.simulate.maxcalls %d: must be at least 0 (0: no cap)", cfg.RPC.SimulateMaxCalls)
	}
	if cfg.Sequencer.BlockTime > 0 && cfg.Sequencer.PreconfInterval > cfg.Sequencer.BlockTime {
		return fmt.Errorf("--preconf-interval %v exceeds --block-time %v", cfg.Sequencer.PreconfInterval, cfg.Sequencer.BlockTime)
	}
	// A gap longer than the interval would never come into play.
	cfg.Sequencer.PreconfMinGap = min(cfg.Sequencer.PreconfMinGap, cfg.Sequencer.PreconfInterval)
	log := newLogger(stderr, *verbosity)
	fds, err := raiseFDLimit()
	if err != nil {
		log.Warn("File-descriptor limit unknown; connections are capped only by --http.maxconns", "err", err)
	}
	cfg.FDLimit = fds
	if err := setGCPercent(*gcPercent, log); err != nil {
		return err
	}
	setMemoryLimit(log)
	go returnMemory(ctx, log)
	n, err := app.New(cfg, log)
	if err != nil {
		return err
	}
	if *pprofOn || *metricsOn {
		var reg *metrics.Registry
		if *metricsOn {
			reg = n.Metrics()
		}
		if err := serveAdmin(ctx, *pprofAddr, *pprofOn, reg, log); err != nil {
			n.Close()
			return fmt.Errorf("admin listener: %w", err)
		}
	}
	if err := printAccounts(stdout, n); err != nil {
		n.Close()
		return err
	}
	return n.Run(ctx)
}

// checkPublicFaucet refuses to open the faucet to the internet with the
// development key: it is derived from a seed anyone can read in the README,
// so anyone could drain the faucet by signing with it. A replica's drips
// are its sequencer's, paid with the sequencer's key.
func checkPublicFaucet(public bool, cfg app.Config) error {
	if !public || !cfg.Faucet.Enabled || cfg.FaucetKey != "" || cfg.Follow {
		return nil
	}
	return errors.New("--public with the faucet on needs the faucet's own key: the development key is public (README), so anyone could drain the faucet with it; give --faucet.key HEX (a key only you hold, funded), or turn the faucet off with --faucet=false")
}

// checkTxSync refuses eth_sendRawTransactionSync's flags that cannot work.
func checkTxSync(cfg app.Config) error {
	def, limit := cfg.RPC.TxSyncDefaultTimeout, cfg.RPC.TxSyncMaxTimeout
	switch {
	case def < time.Millisecond || limit < time.Millisecond:
		return fmt.Errorf("--rpc.txsync.defaulttimeout %v and --rpc.txsync.maxtimeout %v: both must be at least 1ms", def, limit)
	case def > limit:
		return fmt.Errorf("--rpc.txsync.defaulttimeout %v exceeds --rpc.txsync.maxtimeout %v", def, limit)
	case cfg.TxWait.Max < 0 || cfg.TxWait.PerClient < 0:
		return fmt.Errorf("--rpc.txsync.max %d and --rpc.txsync.per-client %d: must be at least 0 (0: no cap)", cfg.TxWait.Max, cfg.TxWait.PerClient)
	}
	return nil
}

// printAccounts shows what anvil shows: the funded development accounts with
// their keys, and the faucet.
func printAccounts(w io.Writer, n *app.Node) error {
	keys, err := app.DevAccounts()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Chain ID %d\n\nDevelopment accounts (mnemonic %q), %s ETH each:\n",
		n.Chain().Config().ChainID, chain.DevMnemonic, "10000")
	for i, key := range keys {
		fmt.Fprintf(w, "(%d) %s  key %s\n", i, crypto.PubkeyToAddress(key.PublicKey).Hex(), hexutil.Encode(crypto.FromECDSA(key)))
	}
	fmt.Fprintf(w, "\nFaucet: %s\n", n.FaucetAddress().Hex())
	if n.FaucetDerived() {
		fmt.Fprintf(w, "Faucet key (development key, public, never use it for value): %s\n", hexutil.Encode(crypto.FromECDSA(n.FaucetKey())))
	}
	fmt.Fprintln(w)
	printProtocol(w, n)
	return nil
}

// apiFlagValues are the flags that need post-processing into app.Config.
type apiFlagValues struct {
	addr, cors, wsOrigins string
	port                  int
	ws                    bool
}

func apiFlags(fs *flag.FlagSet, cfg *app.Config) *apiFlagValues {
	cfg.HTTP, cfg.RPC, cfg.WS = httpserver.DefaultConfig(), rpc.DefaultConfig(), ws.DefaultConfig()
	v := new(apiFlagValues)
	fs.BoolVar(&v.ws, "ws", true, "serve JSON-RPC over WebSocket at /ws on the HTTP port")
	fs.StringVar(&v.wsOrigins, "ws.origins", "*", "comma-separated origins allowed to open a WebSocket")
	fs.IntVar(&cfg.WS.MaxConns, "ws.maxconns", cfg.WS.MaxConns, "most concurrent WebSocket connections")
	fs.IntVar(&cfg.WS.MaxSubs, "ws.maxsubs", cfg.WS.MaxSubs, "most subscriptions per WebSocket connection")
	fs.IntVar(&cfg.WS.SendQueue, "ws.sendqueue", cfg.WS.SendQueue, "messages queued per connection before a slow subscriber is dropped")
	fs.Uint64Var(&cfg.WS.ResumeBlocks, "ws.resume.blocks", cfg.WS.ResumeBlocks, "how many blocks behind the head a newHeads, logs or newFlashblocks subscription may resume (resumeAfter)")
	fs.IntVar(&cfg.WS.ResumesRunning, "ws.resume.running", cfg.WS.ResumesRunning, "resumed subscriptions whose missed notifications are sent at once; the others wait, their live notifications kept")
	fs.BoolVar(&cfg.WS.Compression, "ws.compression", cfg.WS.Compression, "accept permessage-deflate when a WebSocket client offers it (notifications are deflated once for all subscribers)")
	fs.StringVar(&v.addr, "http.addr", "127.0.0.1", "JSON-RPC listening interface")
	fs.IntVar(&v.port, "http.port", 8545, "JSON-RPC listening port (0 picks a free one)")
	fs.StringVar(&v.cors, "http.corsdomain", "*", "comma-separated origins allowed by CORS")
	fs.StringVar(&cfg.HTTP.TLSCert, "tls.cert", "", "TLS certificate file: serve HTTPS on the same port")
	fs.StringVar(&cfg.HTTP.TLSKey, "tls.key", "", "TLS key file")
	fs.IntVar(&cfg.HTTP.BodyLimit, "http.bodylimit", cfg.HTTP.BodyLimit, "largest request body in bytes (413 beyond)")
	fs.IntVar(&cfg.RPC.BatchLimit, "rpc.batch-request-limit", cfg.RPC.BatchLimit, "most requests in one batch")
	fs.IntVar(&cfg.RPC.BatchResponseLimit, "rpc.batch-response-max-size", cfg.RPC.BatchResponseLimit, "most bytes in one batch response")
	fs.Uint64Var(&cfg.RPC.GasCap, "rpc.gascap", cfg.RPC.GasCap, "gas cap of eth_call and eth_estimateGas (the default gas), and of all the calls of one eth_simulateV1 together")
	fs.Int64Var(&cfg.RPC.TracePrefixBytes, "rpc.trace.prefixcache", cfg.RPC.TracePrefixBytes, "bytes (estimated) of sealed blocks' states that debug_traceTransaction keeps, so that tracing another transaction of the same block replays from the nearest one (0: none)")
	fs.Int64Var(&cfg.RPC.CallResultsBytes, "rpc.call.results", cfg.RPC.CallResultsBytes, "bytes per state (a block's, a pre-confirmation's) of eth_call results remembered for the same call on the same state, which is then answered without running it again (exact: the state never changes; 0: none)")
	fs.DurationVar(&cfg.RPC.EVMTimeout, "rpc.evmtimeout", cfg.RPC.EVMTimeout, "time limit of one eth_call, estimate or access list; the most a debug_trace* request's per-transaction timeout may be")
	fs.IntVar(&cfg.RPC.SimulateMaxBlocks, "rpc.simulate.maxblocks", cfg.RPC.SimulateMaxBlocks, "most blocks one eth_simulateV1 may simulate, gaps in its block numbers included")
	fs.IntVar(&cfg.RPC.SimulateMaxCalls, "rpc.simulate.maxcalls", cfg.RPC.SimulateMaxCalls, "most calls one eth_simulateV1 may hold, in all its blocks (0: no cap; --rpc.gascap bounds their gas together)")
	fs.BoolVar(&cfg.RPC.AllowUnprotectedTxs, "rpc.allow-unprotected-txs", false, "accept transactions signed without a chain ID (pre-EIP-155)")
	fs.DurationVar(&cfg.RPC.ReceiptHold, "rpc.receipt-hold", cfg.RPC.ReceiptHold, "on /, how long after its eth_sendRawTransaction a client sees the chain as it was before its transaction's block sealed: ethers v6 answers an identical request from a 250 ms cache, so a tx.wait() that returned sooner would read the next pending nonce and the balances from before the send (0: at the seal)")
	fs.BoolVar(&cfg.RPC.PreconfirmedReceipts, "rpc.preconfirmed-receipts", cfg.RPC.PreconfirmedReceipts, "make / answer as /preconf (Base's Flashblocks RPC: a pre-confirmed transaction's receipt before its block seals); default: / answers receipts of sealed blocks only, as every chain, and clients opt into pre-confirmed receipts at /preconf")
	fs.BoolVar(&cfg.RPC.RevertReasons, "rpc.revert-reasons", cfg.RPC.RevertReasons, "a reverted eth_call or eth_estimateGas says why in its message, \"execution reverted: <reason>\" (a reason string, a panic's meaning, a shipped contract's custom error), for cast and people reading the wire; code -32000 and the data stay. viem then no longer decodes the revert data (it needs the message exactly \"execution reverted\" with -32000)")
	fs.Uint64Var(&cfg.RPC.LogsBlockRange, "rpc.logs.maxrange", cfg.RPC.LogsBlockRange, "largest block range of eth_getLogs")
	fs.IntVar(&cfg.Calls.Workers, "rpc.call.workers", 0, "eth_calls, estimates, access lists, traces and simulations that run at once (default: one per CPU; clients whose calls run long share one fewer, so blocks and cheap reads keep a CPU; a node that produces no blocks lends it to them while no short call waits)")
	fs.IntVar(&cfg.RPC.MaxStorageKeys, "rpc.maxstoragekeys", cfg.RPC.MaxStorageKeys, "most storage keys of one eth_getProof or eth_getStorageValues (0: no cap)")
	fs.IntVar(&cfg.Calls.Queue, "rpc.call.queue", 0, "eth_calls that may wait for a slot before -32005 (default 1024)")
	fs.DurationVar(&cfg.RPC.TxSyncDefaultTimeout, "rpc.txsync.defaulttimeout", cfg.RPC.TxSyncDefaultTimeout, "how long eth_sendRawTransactionSync waits for the receipt when the request names no valid timeout (EIP-7966)")
	fs.DurationVar(&cfg.RPC.TxSyncMaxTimeout, "rpc.txsync.maxtimeout", cfg.RPC.TxSyncMaxTimeout, "the longest eth_sendRawTransactionSync waits, whatever the request asks")
	return v
}

func (v *apiFlagValues) apply(cfg *app.Config) {
	cfg.HTTP.Addr = net.JoinHostPort(v.addr, strconv.Itoa(v.port))
	cfg.HTTP.CORS = splitList(v.cors)
	cfg.WS.Origins = splitList(v.wsOrigins)
	cfg.WSDisabled = !v.ws
}

func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

const gcmodeUsage = `states to keep: "full" (recent ones, older ones pruned) or "archive" (every block's); default: the datadir's, "` + string(chain.DefaultGCMode) + `" for a new one`

func runInit(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stocknode init", stderr)
	dataDir := fs.String("datadir", "./stocknode-data", "data directory to initialise")
	genesisFile := fs.String("genesis", "", "geth-format genesis.json (required)")
	var gcmode chain.GCMode
	fs.Var(&gcmode, "gcmode", gcmodeUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *genesisFile == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: stocknode init --genesis FILE [--datadir DIR]")
		return errUsage
	}
	routeGethLogs(stderr, slog.LevelWarn)
	cfg, err := app.ChainConfig(*dataDir, false, *genesisFile, [20]byte{})
	if err != nil {
		return err
	}
	cfg.GCMode = gcmode
	c, err := chain.Open(cfg)
	if err != nil {
		return err
	}
	genesis := c.BlockChain().Genesis()
	fmt.Fprintf(stdout, "Initialised %s: chain ID %d, genesis %s\n", *dataDir, c.Config().ChainID, genesis.Hash().Hex())
	return c.Close()
}

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stocknode import", stderr)
	dataDir := fs.String("datadir", "./stocknode-data", "data directory to import into")
	genesisFile := fs.String("genesis", "", "geth-format genesis.json of the chain (default: the datadir's, else the preview genesis)")
	faucetKey := fs.String("faucet.key", "", "faucet key of the preview genesis, if the file extends it")
	var gcmode chain.GCMode
	fs.Var(&gcmode, "gcmode", gcmodeUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: stocknode import --datadir DIR [--genesis FILE] FILE.rlp")
		return errUsage
	}
	routeGethLogs(stderr, slog.LevelWarn)
	c, err := openForFile(*dataDir, *genesisFile, *faucetKey, gcmode)
	if err != nil {
		return err
	}
	start := time.Now()
	head, err := c.Import(ctx, fs.Arg(0))
	if err != nil {
		c.Close()
		return err
	}
	fmt.Fprintf(stdout, "Imported %s in %v: head %d %s, state root %s\n", fs.Arg(0), time.Since(start).Round(time.Millisecond),
		head.Number, head.Hash().Hex(), head.Root.Hex())
	return c.Close()
}

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stocknode export", stderr)
	dataDir := fs.String("datadir", "./stocknode-data", "data directory to export from")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: stocknode export --datadir DIR FILE.rlp")
		return errUsage
	}
	routeGethLogs(stderr, slog.LevelWarn)
	c, err := chain.Open(chain.Config{DataDir: *dataDir})
	if err != nil {
		return err
	}
	head, err := c.Export(fs.Arg(0))
	if err != nil {
		c.Close()
		return err
	}
	fmt.Fprintf(stdout, "Exported blocks 0..%d to %s: head %s\n", head.Number, fs.Arg(0), head.Hash().Hex())
	return c.Close()
}

func openForFile(dataDir, genesisFile, faucetKey string, gcmode chain.GCMode) (*chain.Chain, error) {
	faucet, _, err := chain.FaucetKey(faucetKey)
	if err != nil {
		return nil, err
	}
	cfg, err := app.ChainConfig(dataDir, false, genesisFile, crypto.PubkeyToAddress(faucet.PublicKey))
	if err != nil {
		return nil, err
	}
	cfg.GCMode = gcmode
	return chain.Open(cfg)
}
