// Package sequencer turns pooled transactions into blocks: it opens a block
// at every block boundary, executes newly accepted transactions into it at
// every pre-confirmation tick, publishes the pending snapshot after each
// tick, and seals the block one block time after it opened.
package sequencer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/txpool"
)

// Config sets the sequencer's rhythm.
type Config struct {
	// BlockTime is the time from a block's opening to its sealing. Zero
	// means no blocks are produced: the chain is served as it is.
	BlockTime time.Duration
	// PreconfInterval is the time between pre-confirmation ticks; at most
	// BlockTime.
	PreconfInterval time.Duration
	// PreconfMinGap, when positive, makes pre-confirmation eager: a
	// transaction accepted after a tick that executed transactions is
	// executed and published this long after that tick at the earliest,
	// instead of at the next regular tick; after ticks that executed
	// nothing, at once.
	// The pending state then trails what was accepted by about this gap
	// under load, never by more than PreconfInterval; idle, it still
	// refreshes every PreconfInterval.
	PreconfMinGap time.Duration
	// Coinbase receives the priority fees.
	Coinbase common.Address
	// GasCeil is the gas limit blocks move towards.
	GasCeil uint64
	// LogSummary is how often an INFO line sums up the blocks sealed
	// since the last (DefaultLogSummary by default; negative: never);
	// each block is a DEBUG line.
	LogSummary time.Duration
	// ObserveSeal, when set, hears how long each seal took: the block's
	// sealing, commit and logging, and the opening and first
	// pre-confirmation of the next block, to its publication (the "Sealed
	// block" line's elapsed). ObservePreconf, when set, hears how long each
	// other pre-confirmation took to execute, log and publish (during a
	// commit, to be kept for publication). Both run on the
	// sequencer's goroutine and must not block; they are plain callbacks
	// (the node passes a histogram's Observe) so that the sequencer knows
	// nothing of metrics.
	ObserveSeal, ObservePreconf func(time.Duration)
}

// Validate reports a configuration that cannot run.
func (c Config) Validate() error {
	switch {
	case c.BlockTime < 0:
		return fmt.Errorf("block time %v is negative", c.BlockTime)
	case c.BlockTime == 0:
		return nil
	case c.PreconfInterval <= 0:
		return fmt.Errorf("pre-confirmation interval %v must be positive", c.PreconfInterval)
	case c.PreconfInterval > c.BlockTime:
		return fmt.Errorf("pre-confirmation interval %v exceeds the block time %v", c.PreconfInterval, c.BlockTime)
	case c.PreconfMinGap < 0 || c.PreconfMinGap > c.PreconfInterval:
		return fmt.Errorf("pre-confirmation gap %v must be between 0 and the interval %v", c.PreconfMinGap, c.PreconfInterval)
	}
	return nil
}

// Listener hears, in order and on the sequencer's goroutine, about every
// snapshot the sequencer published; it must not block.
type Listener interface {
	// Sealed reports a block that became the head; snap is the first
	// snapshot with it as head.
	Sealed(snap *pending.Snapshot, block *types.Block)
	// Preconfirmed reports every published snapshot, after Sealed when the
	// snapshot also brought a new head.
	Preconfirmed(snap *pending.Snapshot)
}

// Sequencer produces the chain's blocks and pending snapshots.
type Sequencer struct {
	publisher // its chain and pending store
	cfg       Config
	pool      *txpool.Pool
	log       *slog.Logger
	now       func() time.Time
	journal   Journal  // nil: decisions are announced without a log
	resume    *resumed // the block to resume building (Resume), until Run opens it
	rebuilt   *builder // a replay's build of it (offer), until Run opens it
	summary   sealSummary
	hooks     testHooks
}

// testHooks let tests act at points of a seal they cannot reach in time
// from outside; nil hooks do nothing.
type testHooks struct {
	sealing    func(number uint64) // on the sequencer's goroutine, before block number is sealed
	committing func()              // on the commit's goroutine, before it commits
}

// New returns a sequencer; nothing runs until Run.
func New(cfg Config, c *chain.Chain, pool *txpool.Pool, store *pending.Store, log *slog.Logger) (*Sequencer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	every := cfg.LogSummary
	if every == 0 {
		every = DefaultLogSummary
	}
	return &Sequencer{publisher: publisher{chain: c, store: store}, cfg: cfg, pool: pool, log: log, now: time.Now,
		summary: sealSummary{every: every}}, nil
}

// Listeners tells each of its listeners in turn.
type Listeners []Listener

// Sealed implements Listener.
func (ls Listeners) Sealed(snap *pending.Snapshot, block *types.Block) {
	for _, l := range ls {
		l.Sealed(snap, block)
	}
}

// Preconfirmed implements Listener.
func (ls Listeners) Preconfirmed(snap *pending.Snapshot) {
	for _, l := range ls {
		l.Preconfirmed(snap)
	}
}

// Run produces blocks until ctx ends. Before it returns, the first snapshot
// is always published, so readers never see an empty store once Run started
// (PublishHead does the same without producing blocks).
func (s *Sequencer) Run(ctx context.Context) error {
	if s.cfg.BlockTime == 0 {
		if err := s.PublishHead(); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	}
	// Accepted transactions wake the loop when pre-confirmation is eager.
	// The pool's feed blocks its sender (and so eth_sendRawTransaction)
	// while this channel is full: the buffer holds what a flood accepts
	// while a block is being sealed.
	var accepted chan core.NewTxsEvent
	if s.cfg.PreconfMinGap > 0 {
		accepted = make(chan core.NewTxsEvent, 4096)
		sub := s.pool.SubscribeNewTransactions(accepted)
		defer sub.Unsubscribe()
	}
	opened := s.now()
	b, err := s.openResumed(s.currentHead(), opened)
	if err == nil && b == nil {
		b, err = s.open(s.currentHead(), opened)
	}
	if err != nil {
		return err
	}
	if err := s.tick(b); err != nil {
		return err
	}
	// The gap runs from the last pre-confirmation that executed
	// transactions (builder.filledAt): it batches a stream of them, while
	// one that reaches a sequencer whose last ticks were empty is
	// pre-confirmed at once.
	fresh := false

	nextSeal, nextTick := opened.Add(s.cfg.BlockTime), opened.Add(s.cfg.PreconfInterval)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		wake := earliest(nextTick, nextSeal)
		if fresh {
			wake = earliest(wake, b.filledAt.Add(s.cfg.PreconfMinGap))
		}
		timer.Reset(time.Until(wake))
		select {
		case <-ctx.Done():
			return s.flush(b)
		case <-accepted:
			drain(accepted)
			fresh = true
			continue
		case <-b.parentCommitted():
			if err := s.flush(b); err != nil {
				return err
			}
			b.hashAhead()
			continue
		case <-timer.C:
		}
		now := s.now()
		if now.Before(nextSeal) {
			filled := len(b.txs)
			if err := s.tick(b); err != nil {
				return err
			}
			if len(b.txs) > filled {
				b.hashAhead()
			}
			fresh = false
			for !nextTick.After(now) {
				nextTick = nextTick.Add(s.cfg.PreconfInterval)
			}
			continue
		}
		if b, err = s.sealAndReopen(b, now); err != nil {
			return err
		}
		// The next block's first pre-confirmation took the pool's
		// transactions early in the seal, so its gap may have passed: what
		// was accepted during the rest of the seal has waited long enough.
		if len(b.txs) > 0 {
			b.hashAhead()
		}
		fresh = false
		opened = nextSeal
		if now.Sub(opened) >= s.cfg.BlockTime {
			// Fell a whole block behind (a slow seal): restart the rhythm
			// from now rather than sealing a burst of catch-up blocks.
			opened = now
		}
		nextSeal, nextTick = opened.Add(s.cfg.BlockTime), opened.Add(s.cfg.PreconfInterval)
	}
}

// drain empties ch without blocking: one wake-up covers every transaction
// accepted so far.
func drain(ch chan core.NewTxsEvent) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// PublishHead publishes a snapshot of the current head with an empty pending
// block, as a node that produces no blocks serves `pending` (geth: pending
// equals latest when nothing is being built).
func (s *Sequencer) PublishHead() error { return s.publishHead(nil) }

func (s *Sequencer) open(parent *types.Block, now time.Time) (*builder, error) {
	b, err := openBlock(s.chain, parent, nil, uint64(now.Unix()), s.cfg.Coinbase, s.cfg.GasCeil)
	if err != nil {
		return nil, fmt.Errorf("open block %d: %w", parent.NumberU64()+1, err)
	}
	if s.journal != nil {
		if err := s.journal.Opened(types.CopyHeader(b.header)); err != nil {
			return nil, fmt.Errorf("log the opening of block %d: %w", b.header.Number, err)
		}
	}
	return b, nil
}

// tick executes what was accepted since the last tick, logs it and
// publishes the pending snapshot.
func (s *Sequencer) tick(b *builder) error {
	if s.cfg.ObservePreconf != nil {
		defer observeSince(s.cfg.ObservePreconf, time.Now())
	}
	block := s.executeAccepted(b)
	if s.journal != nil {
		if err := s.journal.Preconfirmed(block, block.Transactions[b.logged:]); err != nil {
			return fmt.Errorf("log pre-confirmation %d of block %d: %w", block.Index, block.Header.Number, err)
		}
		b.logged = len(block.Transactions)
	}
	return s.announce(b, unpublished{block: block})
}

// executeAccepted runs the pool's executable transactions into b and
// returns the pre-confirmation they make.
func (s *Sequencer) executeAccepted(b *builder) *pending.Block {
	taken := s.now()
	if b.fill(s.pool.Executable(b.header.BaseFee)) > 0 {
		b.filledAt = taken
	}
	block, _ := b.preconfirm()
	return block
}

// announce publishes u, b's logged pre-confirmation, or keeps it to
// publish once b's parent's commit is over (flush); u's layer is b's as of
// now.
func (s *Sequencer) announce(b *builder, u unpublished) error {
	u.layer = b.layer
	b.unpublished = append(b.unpublished, u)
	if b.parentCommitting() {
		return nil
	}
	return s.flush(b)
}

// flush waits for b's parent's commit, if it still runs, and publishes the
// pre-confirmations that waited for it, in order.
func (s *Sequencer) flush(b *builder) error {
	last := b.layer
	if err := b.awaitParent(); err != nil {
		return err
	}
	for i, u := range b.unpublished {
		layer := u.layer
		if layer == last {
			layer = b.layer // moved onto the committed parent by awaitParent
		} else if layer != nil {
			layer = layer.Rebase(b.base)
		}
		s.publish(b.parent, u.block, b.base, layer, u.sealed)
		if u.sealed != nil {
			s.sealPublished(u.sealed, u.sealStart)
		}
		b.unpublished[i] = unpublished{}
	}
	b.unpublished = b.unpublished[:0]
	return nil
}

// sealAndReopen seals b, commits it to the database while it logs it and
// opens and pre-confirms the next block on it (pipeline.go); head and
// pending are published together once the commit is over (flush): pending
// is never behind latest, and latest is never a block the database lacks.
func (s *Sequencer) sealAndReopen(b *builder, now time.Time) (*builder, error) {
	// b is sealed on its parent's committed state, and announced after it.
	if err := s.flush(b); err != nil {
		return nil, err
	}
	start := s.now()
	if s.hooks.sealing != nil {
		s.hooks.sealing(b.header.Number.Uint64())
	}
	block, err := b.seal()
	if err != nil {
		// Never expected: the builder executed what it sealed. Drop the
		// block, neither logged nor committed; its transactions are still
		// pooled and go into the next.
		s.log.Error("Sealing failed, rebuilding on the current head", "number", b.header.Number, "err", err)
		next, openErr := s.open(s.currentHead(), now)
		if openErr != nil {
			return nil, errors.Join(err, openErr)
		}
		if err := s.tick(next); err != nil {
			return nil, err
		}
		return next, nil
	}
	sealedState := b.sealedState()
	commit := s.commitAsync(b, block)
	next, err := s.logAndReopen(block, b.receipts, sealedState, commit, now, start)
	if err != nil {
		// Whoever stops the sequencer next closes the database: not
		// under a commit. A failed commit stops the sequencer too: the
		// block may be logged already, and the next start inserts it
		// from the log.
		if werr := commit.wait(); werr != nil && !errors.Is(err, werr) {
			err = errors.Join(err, werr)
		}
		return nil, err
	}
	return next, nil
}

// sealPublished reports block, whose seal started at start, published as
// the head.
func (s *Sequencer) sealPublished(block *types.Block, start time.Time) {
	sealed := s.now()
	if s.cfg.ObserveSeal != nil {
		s.cfg.ObserveSeal(sealed.Sub(start))
	}
	s.log.Debug("Sealed block", "number", block.NumberU64(), "hash", block.Hash(), "txs", len(block.Transactions()),
		"gas", block.GasUsed(), "elapsed", common.PrettyDuration(sealed.Sub(start)))
	s.summary.sealed(s.log, block, sealed)
}

// logAndReopen opens the next block on block, sealed and being committed
// (commit), and pre-confirms it; it logs the three in one round trip
// (Journal.Reopened), and the pre-confirmation is published once the
// commit is over.
func (s *Sequencer) logAndReopen(block *types.Block, receipts types.Receipts, sealedState *pending.Layer, commit *commitment, now, start time.Time) (*builder, error) {
	next, err := openBlock(s.chain, block, sealedState, uint64(now.Unix()), s.cfg.Coinbase, s.cfg.GasCeil)
	if err != nil {
		return nil, fmt.Errorf("open block %d: %w", block.NumberU64()+1, err)
	}
	next.parentCommit = commit
	first := s.executeAccepted(next)
	if s.journal != nil {
		if err := s.journal.Reopened(block, receipts, first); err != nil {
			return nil, fmt.Errorf("log sealed block %d and the opening and first pre-confirmation of block %d: %w", block.NumberU64(), first.Header.Number, err)
		}
		next.logged = len(first.Transactions)
	}
	if err := s.announce(next, unpublished{block: first, sealed: block, sealStart: start}); err != nil {
		return nil, err
	}
	return next, nil
}

// observeSince tells observe the time since start.
func observeSince(observe func(time.Duration), start time.Time) { observe(time.Since(start)) }
