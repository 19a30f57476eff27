// Package app is stocknode's composition root: it opens the chain, starts
// the transaction pool and the sequencer, and owns their lifetimes.
package app

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/explorer/etherscan"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/faucet"
	"github.com/stocknode/stocknode/httpserver"
	"github.com/stocknode/stocknode/metrics"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/replica"
	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/node/seqlog"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/stocks"
	"github.com/stocknode/stocknode/node/txpool"
	"github.com/stocknode/stocknode/node/txwait"
	"github.com/stocknode/stocknode/node/ws"
	"github.com/stocknode/stocknode/pool"
	"github.com/stocknode/stocknode/rest"
)

// Config is everything the node needs to start.
type Config struct {
	// DataDir holds the database (ignored with Dev).
	DataDir string
	// Dev keeps the chain in memory and starts it fresh.
	Dev bool
	// GenesisFile is a geth-format genesis.json; empty means the built-in
	// preview genesis.
	GenesisFile string
	// GCMode and StateHistory say which states the chain keeps (--gcmode,
	// --history.state; see chain.Config).
	GCMode       chain.GCMode
	StateHistory uint64
	// FaucetKey is the faucet's hex private key; empty derives a development key.
	FaucetKey string
	// Sequencer is the block and pre-confirmation rhythm.
	Sequencer sequencer.Config
	// TxPool tunes the pool.
	TxPool txpool.Config
	// HTTP is the front end; RPC the method set's limits; Calls the eth_call bound.
	HTTP  httpserver.Config
	RPC   rpc.Config
	Calls pool.Config
	// TxWait bounds eth_sendRawTransactionSync's waiters (--rpc.txsync.max,
	// --rpc.txsync.per-client).
	TxWait txwait.Config
	// WS configures the WebSocket endpoint at /ws; WSDisabled turns it off
	// (the spec's main and test networks offer HTTP only).
	WS         ws.Config
	WSDisabled bool
	// Network names the node's own chain in the REST API's chains list
	// (--network.name); Registry lists the other chains there (--registry).
	Network  string
	Registry []rest.Chain
	// PreviewExamples issues the example stock tokens in the first block
	// of a new chain on the built-in preview genesis.
	PreviewExamples bool
	// ExplorerDisabled turns off the block explorer and its address index
	// (--explorer=false).
	ExplorerDisabled bool
	// ExplorerRenders and ExplorerRenderWait bound the pages rendered at
	// once and a page's wait for its turn (web.Config.Renders, RenderWait).
	ExplorerRenders    int
	ExplorerRenderWait time.Duration
	// ExplorerAPI bounds the Etherscan-compatible API's history requests
	// (etherscan.Config; its Peer is the front end's).
	ExplorerAPI etherscan.Config
	// Faucet configures the faucet API under /api/{Network}/ (its
	// Network and Dir are the node's); the zero Config has it off,
	// faucet.DefaultConfig() on.
	Faucet faucet.Config
	// SequencerLog configures the sequencer's log (its Dir and InMemory follow the
	// datadir and Dev); blocks are produced only with it.
	SequencerLog seqlog.Config
	// Follow makes the node a read replica of the sequencer whose log
	// Log.URLs reach (node/replica): it produces no blocks, replays the
	// log, and relays transactions and drips to the sequencer, waiting
	// RelayTimeout at most for its answer (0: relay.DefaultTimeout).
	Follow       bool
	RelayTimeout time.Duration
	// NATS is how the node authenticates to Log.URLs: an nkey or
	// credentials file, TLS (--nats.nkey, --nats.creds, --nats.tls.*).
	NATS natsauth.Client
	// TrustedReplicas are the replicas (their names in the admitted
	// list, or their identities) whose word on a drip's client address
	// the faucet's cooldowns take (--faucet.trust-replicas); any other
	// replica's drips share one cooldown.
	TrustedReplicas []string
	// FDLimit is the process's file-descriptor limit (0: unknown). Unless
	// HTTP.MaxConns is set, connections are capped at what it leaves after
	// the database's handles and a reserve (connBudget).
	FDLimit int
}

// Node is a running chain endpoint.
type Node struct {
	cfg          Config
	logger       *slog.Logger
	chain        *chain.Chain
	pool         *txpool.Pool
	store        *pending.Store
	seq          *sequencer.Sequencer
	calls        *pool.Pool
	txwait       *txwait.Registry // eth_sendRawTransactionSync's waiters
	rpc          *rpc.Server
	http         *httpserver.Server
	hub          *ws.Hub // nil when the WebSocket endpoint is off
	stocks       *stocks.Index
	reg          *metrics.Registry
	faucetKey    *ecdsa.PrivateKey
	faucet       *faucet.Faucet
	index        *index.Index      // nil with the explorer off
	sequencerLog *seqlog.Log       // nil with block production off
	logAuth      *logAuth          // the sequencer's keys for its log; nil on a replica
	acceptLog    *seqlog.AcceptLog // records the pool's acceptances in seqlog

	// etherscan is the explorer's Etherscan API, whose bound closeServices
	// stops; nil with the explorer off.
	etherscan *etherscan.API

	// A sequencer with its log serves relayServer; a replica follows the
	// log with follower (seq is then nil) and relays through relay.
	relayServer *relay.Server
	replay      *sequencer.Replayer
	follower    *replica.Follower
	relay       *relay.Client

	faucetDerived  bool
	examplesIssued bool     // this start put the example tokens in the pool
	dataDir        *dataDir // nil with --dev
}

// New opens the chain and prepares the pool and sequencer.
func New(cfg Config, log *slog.Logger) (*Node, error) {
	faucet, derived, err := chain.FaucetKey(cfg.FaucetKey)
	if err != nil {
		return nil, err
	}
	chainCfg, err := ChainConfig(cfg.DataDir, cfg.Dev, cfg.GenesisFile, crypto.PubkeyToAddress(faucet.PublicKey))
	if err != nil {
		return nil, err
	}
	chainCfg.GCMode, chainCfg.StateHistory = cfg.GCMode, cfg.StateHistory
	n := &Node{cfg: cfg, logger: log, store: new(pending.Store), faucetKey: faucet, faucetDerived: derived, reg: metrics.NewRegistry()}
	if !cfg.Dev {
		if n.dataDir, err = lockDataDir(cfg.DataDir); err != nil {
			return nil, err
		}
	}
	if err := n.open(chainCfg); err != nil {
		if n.dataDir != nil {
			n.dataDir.release(false)
		}
		return nil, err
	}
	if n.dataDir != nil {
		if err := n.dataDir.markRunning(); err != nil {
			n.Close()
			return nil, err
		}
	}
	return n, nil
}

// open opens the chain, the pool, and the sequencer or the replica's
// follower, with their log and API; on an error it closes what it opened.
func (n *Node) open(chainCfg chain.Config) error {
	cfg := n.cfg
	var err error
	if n.chain, err = chain.Open(chainCfg); err != nil {
		return err
	}
	if n.pool, err = txpool.New(n.chain, cfg.TxPool); err != nil {
		n.chain.Close()
		return err
	}
	seqCfg := cfg.Sequencer
	if seqCfg.Coinbase == (common.Address{}) {
		// Tips flow back to the faucet that hands out the test currency.
		seqCfg.Coinbase = n.FaucetAddress()
	}
	if seqCfg.GasCeil == 0 {
		seqCfg.GasCeil = n.chain.Head().GasLimit
	}
	n.observeSequencer(&seqCfg)
	start := func() error { return n.start(seqCfg) }
	if cfg.Follow {
		start = n.startReplica
	}
	if err := start(); err != nil {
		n.closeLog()
		n.pool.Close()
		n.chain.Close()
		return err
	}
	return nil
}

// start builds the sequencer (with its log when it produces blocks), puts
// the example tokens in the pool, publishes the first snapshot and binds the
// API.
func (n *Node) start(seqCfg sequencer.Config) error {
	var err error
	if n.seq, err = sequencer.New(seqCfg, n.chain, n.pool, n.store, n.logger); err != nil {
		return err
	}
	if seqCfg.BlockTime > 0 {
		if err := n.openLog(context.Background()); err != nil {
			return err
		}
	}
	if err := n.issueExamples(); err != nil {
		return err
	}
	// Readers find a snapshot from the first request on.
	if err := n.seq.PublishHead(); err != nil {
		return err
	}
	return n.startAPI()
}

// closeLog closes the sequencer's log, if it is open.
func (n *Node) closeLog() {
	if n.relayServer != nil {
		n.relayServer.Close()
	}
	if n.acceptLog != nil {
		n.acceptLog.Stop()
	}
	if n.sequencerLog != nil {
		n.sequencerLog.Close()
	}
	n.logAuth.remove()
}

// startAPI binds the HTTP listener (so a taken port fails the start) and
// builds the RPC server; serving starts in Run.
func (n *Node) startAPI() error {
	n.capConns()
	n.cfg.HTTP.Logger = n.logger
	n.calls = pool.New(n.cfg.Calls)
	n.cfg.RPC.BlockTime = n.cfg.Sequencer.BlockTime // eth_simulateV1 spaces its blocks by it
	// A sender is shown the chain before its block for the receipt hold:
	// the store keeps those views as long, and a block's worth more.
	n.store.Retain(n.cfg.RPC.ReceiptHold + n.cfg.Sequencer.BlockTime)
	n.txwait = txwait.New(n.cfg.TxWait)
	backend := rpc.Backend{Chain: n.chain, Pool: n.pool, Snapshots: n.store, Calls: n.calls, TxWait: n.txwait}
	if n.relay != nil { // a replica: the sequencer knows what it has not seen
		backend.Known = n.relay.Known
	}
	n.rpc = rpc.New(n.cfg.RPC, backend, n.reg)
	n.http = httpserver.New(n.cfg.HTTP, n.rpc, n.health)
	n.http.HandleRPC("/preconf", n.rpc.In(rpc.Preconf))
	// The RPC server first: a sender's held view (--rpc.receipt-hold) is found
	// from its marks as soon as a block is announced.
	listeners := sequencer.Listeners{n.rpc, n.txwait}
	if err := n.startServices(&listeners); err != nil {
		n.closeServices()
		return err
	}
	if !n.cfg.WSDisabled {
		n.cfg.WS.Peer = n.http.Peer
		n.hub = ws.New(n.cfg.WS, n.rpc, n.chain, n.logger)
		n.http.Handle("/ws", n.hub.Handler)
		n.http.Handle("/preconf/ws", n.hub.PreconfHandler)
		listeners = append(listeners, n.hub)
		if n.follower != nil {
			listeners = append(listeners, &preconfirmedTxs{hub: n.hub})
		}
	}
	if n.follower != nil {
		n.replay.SetListener(listeners)
	} else {
		n.seq.SetListener(listeners)
	}
	if err := n.serveRelay(); err != nil {
		n.closeServices()
		return err
	}
	if err := n.http.Listen(); err != nil {
		n.closeServices()
		return err
	}
	n.registerGauges()
	return nil
}

// startServices starts what the port serves besides JSON-RPC: the REST
// API, the faucet and the explorer.
func (n *Node) startServices(listeners *sequencer.Listeners) error {
	if err := n.startREST(listeners); err != nil {
		return err
	}
	if err := n.startFaucet(listeners); err != nil {
		return err
	}
	return n.startExplorer(listeners)
}

// closeServices closes what startServices and startAPI opened.
func (n *Node) closeServices() error {
	n.rpc.Close()
	var errs []error
	if n.faucet != nil {
		errs = append(errs, n.faucet.Close())
	}
	if n.etherscan != nil {
		n.etherscan.Close()
	}
	if n.index != nil {
		errs = append(errs, n.index.Close())
	}
	return errors.Join(errs...)
}

// WSStats reports WebSocket connections, subscriptions and slow subscribers
// dropped (zeros with the endpoint off).
func (n *Node) WSStats() (conns, subs int64, slowDropped uint64) {
	if n.hub == nil {
		return 0, 0, 0
	}
	return n.hub.Stats()
}

// HTTPAddr is the address the JSON-RPC endpoint listens on.
func (n *Node) HTTPAddr() string { return n.http.Addr().String() }

// ChainConfig resolves which chain a datadir holds or gets: the given genesis
// file (checked against a datadir that already has a chain) or the built-in
// preview genesis (used only when the datadir is new).
func ChainConfig(dataDir string, dev bool, genesisFile string, faucet common.Address) (chain.Config, error) {
	cfg := chain.Config{DataDir: dataDir, InMemory: dev, StateHistory: chain.DefaultStateHistory}
	if genesisFile != "" {
		genesis, err := chain.LoadGenesis(genesisFile)
		if err != nil {
			return cfg, err
		}
		cfg.Genesis, cfg.CheckGenesis = genesis, true
		return cfg, nil
	}
	genesis, err := chain.PreviewGenesis(faucet)
	if err != nil {
		return cfg, err
	}
	cfg.Genesis = genesis
	cfg.Rules = chain.Rules{MinBaseFee: chain.PreviewMinBaseFee}
	return cfg, nil
}

// Chain is the node's chain.
func (n *Node) Chain() *chain.Chain { return n.chain }

// Pool is the node's transaction pool.
func (n *Node) Pool() *txpool.Pool { return n.pool }

// Snapshots is where readers load the current head and pending views.
func (n *Node) Snapshots() *pending.Store { return n.store }

// FaucetAddress is the faucet account.
func (n *Node) FaucetAddress() common.Address { return crypto.PubkeyToAddress(n.faucetKey.PublicKey) }

// FaucetKey is the faucet's private key.
func (n *Node) FaucetKey() *ecdsa.PrivateKey { return n.faucetKey }

// Run serves until ctx ends, then shuts down cleanly.
func (n *Node) Run(ctx context.Context) error {
	n.logStart()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	httpDone := make(chan error, 1)
	go func() { httpDone <- n.http.Serve(ctx) }()
	stocksDone := make(chan error, 1)
	go func() { stocksDone <- n.stocks.Run(ctx) }()
	indexDone := make(chan error, 1)
	if n.index != nil {
		go func() { indexDone <- n.index.Run(ctx) }()
	} else {
		indexDone <- nil
	}
	if n.logAuth != nil && n.cfg.SequencerLog.Listen != "" {
		go n.watchReplicaKeys(ctx)
	}
	hubDone := make(chan struct{})
	if n.hub != nil {
		go func() { defer close(hubDone); n.hub.Run(ctx) }()
		if n.follower == nil {
			go n.hub.WatchPool(ctx, n.pool)
		}
	} else {
		close(hubDone)
	}
	scheme := "http"
	if n.cfg.HTTP.TLSCert != "" {
		scheme = "https"
	}
	n.logger.Info("JSON-RPC listening", "url", scheme+"://"+n.HTTPAddr())
	n.logger.Info("Flashblocks RPC listening (pre-confirmed receipts, opt-in)", "url", scheme+"://"+n.HTTPAddr()+"/preconf")
	if n.hub != nil {
		wsScheme := "ws"
		if scheme == "https" {
			wsScheme = "wss"
		}
		n.logger.Info("WebSocket listening", "url", wsScheme+"://"+n.HTTPAddr()+"/ws", "preconf", wsScheme+"://"+n.HTTPAddr()+"/preconf/ws")
	}
	n.logFaucet(scheme + "://" + n.HTTPAddr())
	if n.index != nil {
		n.logger.Info("Explorer listening", "url", scheme+"://"+n.HTTPAddr()+"/")
	}
	var err error
	if n.follower != nil {
		err = n.follower.Run(ctx)
	} else {
		err = n.seq.Run(ctx)
	}
	cancel()
	// Running calls and waits end now: a connection does not close while
	// its reader is inside one, and the hub waits for every connection.
	n.calls.Close()
	n.txwait.Close()
	<-hubDone
	err = errors.Join(err, <-httpDone, <-stocksDone, <-indexDone)
	head := n.chain.Head()
	if cerr := n.Close(); cerr != nil {
		return errors.Join(err, cerr)
	}
	n.logger.Info("Stopped cleanly", "head", head.Number, "hash", head.Hash())
	return err
}

func (n *Node) logStart() {
	head := n.chain.Head()
	attrs := n.chain.Describe()
	switch {
	case n.cfg.Dev:
		n.logger.Info("Started in-memory chain (--dev)", attrs...)
	case n.dataDir != nil && n.dataDir.dirty:
		// A recovery as designed: one line, no warning (go-ethereum's own
		// about the rewind are debug lines, cmd/stocknode/gethlog.go).
		r := n.chain.Recovery()
		n.logger.Info("Resumed after an unclean shutdown: every sealed block was committed and synced before it was announced, so the chain resumes from its persisted head",
			append(attrs, "age", time.Since(time.Unix(int64(head.Time), 0)).Round(time.Second), "replayed", r.Replayed, "replayFrom", r.From, "replayTook", common.PrettyDuration(r.Took))...)
	case head.Number.Sign() == 0:
		n.logger.Info("Started new chain", attrs...)
	default:
		n.logger.Info("Resumed chain from disk", attrs...)
		if r := n.chain.Recovery(); r.Replayed > 0 {
			n.logger.Info("Replayed the blocks above the persisted state (--gcmode full)", "blocks", r.Replayed, "from", r.From,
				"elapsed", common.PrettyDuration(r.Took))
		}
	}
	n.logger.Info("Connection limits", "maxconns", n.cfg.HTTP.MaxConns, "perIP", n.cfg.HTTP.MaxConnsPerIP, "ws", n.cfg.WS.MaxConns, "fdLimit", n.cfg.FDLimit)
	switch {
	case n.follower != nil:
		n.logger.Info("Read replica (--follow): blocks and pre-confirmations come from the sequencer's log; transactions and drips are relayed to it")
	case n.cfg.Sequencer.BlockTime == 0:
		n.logger.Info("Block production off (--block-time 0): serving the chain as it is")
	default:
		n.logger.Info("Sequencing", "blockTime", n.cfg.Sequencer.BlockTime, "preconfInterval", n.cfg.Sequencer.PreconfInterval)
	}
}

// Close stops the pool and closes the chain, and records a clean shutdown.
func (n *Node) Close() error {
	n.calls.Close()
	n.txwait.Close()
	err := errors.Join(n.closeServices(), n.pool.Close())
	n.closeLog()
	err = errors.Join(err, n.chain.Close())
	if n.dataDir != nil {
		err = errors.Join(err, n.dataDir.release(err == nil))
	}
	return err
}

// DevAccounts lists the funded development accounts' keys.
func DevAccounts() ([]*ecdsa.PrivateKey, error) { return chain.DevKeys(chain.DevAccountCount) }

// FaucetDerived reports whether the faucet key is the derived development key.
func (n *Node) FaucetDerived() bool { return n.faucetDerived }
