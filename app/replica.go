package app

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nats-io/nkeys"

	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/replica"
	"github.com/stocknode/stocknode/node/seqlog"
	"github.com/stocknode/stocknode/node/sequencer"
)

// startReplica makes the node a read replica (--follow): it opens the
// sequencer's log to read, replays it (node/replica) instead of producing
// blocks, forwards transactions to the sequencer (node/relay), publishes
// its head and binds the API.
func (n *Node) startReplica() error {
	cfg := n.cfg.SequencerLog
	cfg.ChainID = n.chain.Config().ChainID.Uint64()
	cfg.Reader = true
	var (
		key nkeys.KeyPair
		err error
	)
	if cfg.Connect, key, err = n.cfg.NATS.Options(); err != nil {
		return err
	}
	l, err := seqlog.Open(context.Background(), cfg, n.logger)
	if err != nil {
		return fmt.Errorf("%w (flags: --follow, --nats.url, --nats.nkey, --nats.creds)", err)
	}
	n.sequencerLog = l
	n.replay = sequencer.NewReplayer(n.chain, n.store, n.logger)
	n.follower = replica.New(l, n.replay, n.chain, n.logger)
	n.relay = relay.NewClient(l.Conn(), cfg.ChainID, n.cfg.RelayTimeout, key)
	n.pool.ForwardTo(relayForwarder{n.relay})
	n.logger.Info("Read replica of the sequencer's log on NATS JetStream", "stream", seqlog.StreamName(cfg.ChainID), "nats", l.URL(), "relayAs", n.relay.ID())
	if err := n.replay.PublishHead(); err != nil {
		return err
	}
	return n.startAPI()
}

// serveRelay answers replicas' relayed transactions and drips, on a
// sequencer with its log.
func (n *Node) serveRelay() error {
	if n.sequencerLog == nil || n.follower != nil {
		return nil
	}
	s, err := relay.Serve(n.sequencerLog.Conn(), n.chain.Config().ChainID.Uint64(), n.relayHandlers(), 0, n.logger)
	if err != nil {
		return err
	}
	n.relayServer = s
	return nil
}

// preconfirmedTxs announces, on a replica, the transactions each
// pre-confirmation added as newPendingTransactions: a replica's pool stays
// empty, and a transaction reaches it first pre-confirmed.
type preconfirmedTxs struct {
	hub interface {
		NewTransactions([]*types.Transaction)
	}
	number uint64 // of the pending block last seen
	seen   int    // its transactions announced
}

// Sealed implements sequencer.Listener.
func (p *preconfirmedTxs) Sealed(*pending.Snapshot, *types.Block) {}

// Preconfirmed implements sequencer.Listener.
func (p *preconfirmedTxs) Preconfirmed(snap *pending.Snapshot) {
	txs := snap.Pending.Transactions
	if n := snap.Pending.Header.Number.Uint64(); n != p.number {
		p.number, p.seen = n, 0
	}
	if len(txs) > p.seen {
		p.hub.NewTransactions(txs[p.seen:])
		p.seen = len(txs)
	}
}
