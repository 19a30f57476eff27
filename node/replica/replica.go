// Package replica makes a node a read replica: it follows the sequencer's
// log (node/seqlog) and replays every decision through a
// sequencer.Replayer, so that the replica's latest and pending are the
// sequencer's, one log entry later.
package replica

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/seqlog"
	"github.com/stocknode/stocknode/node/sequencer"
)

// DefaultQuiet is how long the log may stay quiet after a sealed block
// before the replica announces the block without the next one's first
// pre-confirmation: longer than a sequencer takes from sealing to its next
// tick (well under a millisecond), shorter than a pre-confirmation
// interval.
const DefaultQuiet = 100 * time.Millisecond

// Follower follows the log until its context ends.
type Follower struct {
	log    *seqlog.Log
	replay *sequencer.Replayer
	chain  *chain.Chain
	logger *slog.Logger
	quiet  time.Duration

	id   seqlog.PayloadID // of the block being rebuilt
	live bool             // caught up with the log at least once

	pending *outstanding // with TrackAccepted: acceptances not yet sealed

	applied  atomic.Uint64 // sequence of the last entry applied
	behind   atomic.Uint64 // entries stored after it when it was read
	lagNanos atomic.Int64  // from its storing to its application
}

// New returns a follower of l that replays into replay, on c.
func New(l *seqlog.Log, replay *sequencer.Replayer, c *chain.Chain, logger *slog.Logger) *Follower {
	return &Follower{log: l, replay: replay, chain: c, logger: logger, quiet: DefaultQuiet}
}

// Lag reports how far behind the sequencer the replica is: the entries
// the log held past the last one applied, and the time from that entry's
// storing (the sequencer's clock, via its NATS server: the sequencer
// announces an entry right after it is stored) to its application here.
func (f *Follower) Lag() (entries uint64, d time.Duration, applied uint64) {
	return f.behind.Load(), time.Duration(f.lagNanos.Load()), f.applied.Load()
}

// record is what the reading goroutine hands over: with a
// pre-confirmation, its transactions decoded and their senders recovered
// (cached in each transaction), work that so overlaps the replay of the
// entries before it.
type record struct {
	rec seqlog.Record
	txs types.Transactions
	err error
}

// Run follows the log from the replica's head until ctx ends; it returns
// nil then, or the error that stopped it (the log lost, a gap, a block that
// does not validate). A log rebuilt under it (stocknode log-repair) is
// followed again from the replica's head.
func (f *Follower) Run(ctx context.Context) error {
	for {
		err := f.follow(ctx)
		switch {
		case errors.Is(err, seqlog.ErrUndecodable):
			// It serves what it has meanwhile; nothing else can move on.
			f.logger.Error("Replica stopped at a log entry it cannot decode; it follows again once the sequencer's operator rebuilds the log with `stocknode log-repair`",
				"head", f.chain.Head().Number, "err", err)
			if werr := f.log.WaitRebuilt(ctx, rebuiltPoll); werr != nil {
				return nil // ctx ended
			}
		case !errors.Is(err, seqlog.ErrRebuilt):
			return err
		}
		f.logger.Warn("The sequencer's log was rebuilt (stocknode log-repair): finding this replica's place in it again", "head", f.chain.Head().Number)
	}
}

// rebuiltPoll is how often a replica stopped at an undecodable entry
// checks whether the log was rebuilt.
const rebuiltPoll = 2 * time.Second

func (f *Follower) follow(ctx context.Context) error {
	head := f.chain.Head().Number.Uint64()
	from, err := startSeq(ctx, f.log, head)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while finding its place: a clean stop
		}
		return fmt.Errorf("replica: %w", err)
	}
	f.logger.Info("Following the sequencer's log", "head", head, "from", from)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	recs := make(chan record, 256)
	go f.read(ctx, from, recs)
	quiet := time.NewTimer(time.Hour)
	defer quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-quiet.C:
			if err := f.replay.Flush(); err != nil {
				return fmt.Errorf("replica: %w", err)
			}
			continue
		case r := <-recs:
			if r.err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if errors.Is(r.err, seqlog.ErrRebuilt) || errors.Is(r.err, seqlog.ErrUndecodable) {
					return r.err
				}
				return fmt.Errorf("replica: follow the log: %w", r.err)
			}
			if err := f.apply(r.rec, r.txs); err != nil {
				return fmt.Errorf("replica: entry %d: %w", r.rec.Seq, err)
			}
			quiet.Reset(f.quiet)
		}
	}
}

func (f *Follower) read(ctx context.Context, from uint64, out chan<- record) {
	// The block's own signer: a transaction caches the sender of the signer
	// it was recovered with, and the replay asks the block's.
	config := f.chain.Config()
	signer := types.LatestSigner(config)
	for rec, err := range f.log.Follow(ctx, from) {
		r := record{rec: rec, err: err}
		switch e := rec.Entry.(type) {
		case seqlog.Opened:
			signer = types.MakeSigner(config, new(big.Int).SetUint64(e.Number), e.Timestamp)
		case seqlog.Preconfirmed:
			r.txs, r.err = seqlog.DecodeTxs(e.Transactions)
			for _, tx := range r.txs {
				types.Sender(signer, tx) // an invalid one fails its execution
			}
		}
		select {
		case out <- r:
		case <-ctx.Done():
			return
		}
		if r.err != nil {
			return
		}
	}
}

// apply replays one entry; txs are a pre-confirmation's, decoded.
func (f *Follower) apply(rec seqlog.Record, txs types.Transactions) error {
	switch e := rec.Entry.(type) {
	case seqlog.Opened:
		f.id = e.PayloadID
		if err := f.replay.Opened(e.Header()); err != nil {
			return err
		}
	case seqlog.Preconfirmed:
		if e.PayloadID != f.id {
			break // a block this replica is not rebuilding
		}
		if err := f.replay.Preconfirmed(int(e.Index), e.GasUsed, txs); err != nil {
			return err
		}
	case seqlog.Sealed:
		if err := f.sealed(rec, e); err != nil {
			return err
		}
	case seqlog.Accepted:
		// Not replayed: a replica learns of a transaction when it is
		// pre-confirmed, within one interval; its pool stays empty. A
		// standby remembers it, for its takeover.
		if f.pending != nil {
			if err := f.pending.accepted(e); err != nil {
				return err
			}
		}
	}
	f.applied.Store(rec.Seq)
	f.behind.Store(rec.Pending)
	f.lagNanos.Store(int64(time.Since(rec.Time)))
	return nil
}

func (f *Follower) sealed(rec seqlog.Record, e seqlog.Sealed) error {
	block, err := e.DecodeBlock()
	if err != nil {
		return err
	}
	if block.Hash() != e.Hash {
		return fmt.Errorf("sealed block %d: the log says hash %s, its RLP hashes to %s", e.Number, e.Hash, block.Hash())
	}
	inserted, err := f.replay.Sealed(block)
	if err != nil {
		return err
	}
	if f.pending != nil {
		f.pending.sealed(block)
	}
	if !inserted {
		return nil
	}
	attrs := []any{"number", block.NumberU64(), "hash", block.Hash(), "txs", len(block.Transactions()), "lag", common.PrettyDuration(time.Since(rec.Time)), "behind", rec.Pending}
	switch {
	case rec.Pending == 0 && !f.live:
		f.live = true
		f.logger.Info("Replica caught up with the sequencer", attrs...)
	case rec.Pending == 0:
		f.logger.Info("Followed block", attrs...)
	case block.NumberU64()%1000 == 0:
		f.logger.Info("Replica catching up", attrs...)
	}
	return nil
}
