// Package app is stocknode's composition root: it opens the chain, starts
// the transaction pool and the sequencer, and owns their lifetimes.
package app

import (
	"context"
	"crypto/ecdsa"
	"log/slog"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/explorer/etherscan"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/faucet"
	"github.com/stocknode/stocknode/httpserver"
	"github.com/stocknode/stocknode/metrics"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/lease"
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
)

// Node is a running chain endpoint.
type Node struct {
	cfg          Config
	logger       *slog.Logger
	chain        *chain.Chain
	pool         *txpool.Pool
	store        *pending.Store
	seq          *sequencer.Sequencer
	calls        *callbound.Bound
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

	// A candidate (--ha) has both a follower and, while it holds lease,
	// a sequencer of candidateSeq's configuration, which publishes to
	// listeners; leading says which runs.
	lease        *lease.Lease
	candidateSeq sequencer.Config
	listeners    sequencer.Listeners
	leading      atomic.Bool

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
	switch {
	case cfg.Follow:
		start = n.startReplica
	case cfg.HA:
		start = func() error { return n.startCandidate(seqCfg) }
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

// FaucetDerived reports whether the faucet key is the derived development key.
func (n *Node) FaucetDerived() bool { return n.faucetDerived }
