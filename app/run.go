package app

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

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
		if n.follower == nil || n.lease != nil { // a candidate's pool fills while it leads
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
	switch {
	case n.lease != nil:
		err = n.runCandidate(ctx)
	case n.follower != nil:
		err = n.follower.Run(ctx)
	default:
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
	case n.lease != nil:
		n.logger.Info("Sequencer candidate (--ha): follows the log and relays sends as a standby, sequences while it holds the leader lease",
			"blockTime", n.cfg.Sequencer.BlockTime, "preconfInterval", n.cfg.Sequencer.PreconfInterval)
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
