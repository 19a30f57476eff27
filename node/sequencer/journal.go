package sequencer

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

// Journal takes every decision of the sequencer before it is announced:
// the block it opens, each pre-confirmation's new transactions in
// execution order, and each sealed block (node/seqlog, on NATS JetStream).
// A journal error stops the sequencer: nothing the journal did not take
// may be announced, and skipping an entry would leave a gap that readers of
// the journal cannot cross.
type Journal interface {
	// Opened records the header of the block being built (its number,
	// parent, timestamp, base fee, prevrandao: the block's environment).
	Opened(header *types.Header) error
	// Preconfirmed records the transactions a pre-confirmation executed
	// into block, after those of its earlier ones.
	Preconfirmed(block *pending.Block, txs types.Transactions) error
	// Sealed records a sealed block while it is being committed to the
	// database (pipeline.go), before it is announced.
	Sealed(block *types.Block, receipts types.Receipts) error
	// Reopened records what a seal decides, as Sealed, Opened and
	// Preconfirmed would in turn, and in one round trip: the sealed block,
	// the opening of the next block on it, and the next block's first
	// pre-confirmation (all its transactions so far).
	Reopened(sealed *types.Block, receipts types.Receipts, first *pending.Block) error
}

// SetJournal registers j; call it before Run.
func (s *Sequencer) SetJournal(j Journal) { s.journal = j }

// resumed is the block a previous run was building, as its log holds it.
type resumed struct {
	header *types.Header
	txs    types.Transactions
	ticks  int
}

// Resume makes Run's first block the one a previous run was building and
// pre-confirmed before it stopped: header as the run opened it, txs as its
// pre-confirmations executed them, ticks how many it published. Run
// executes them again, in that order, on the same parent (the result is
// the same: same state, same environment), so every promise the previous
// run made is kept; they are already in the journal and not logged again.
// Ignored when the head is no longer header's parent. Call before Run.
func (s *Sequencer) Resume(header *types.Header, txs types.Transactions, ticks int) {
	s.resume = &resumed{header: header, txs: txs, ticks: ticks}
}

// openResumed rebuilds the resumed block on parent; nil when there is none
// for this parent.
func (s *Sequencer) openResumed(parent *types.Block, now time.Time) (*builder, error) {
	r := s.resume
	s.resume = nil
	if r == nil || r.header.ParentHash != parent.Hash() {
		return nil, nil
	}
	template, err := nextHeader(s.chain, parent, uint64(now.Unix()), s.cfg.Coinbase, s.cfg.GasCeil)
	if err != nil {
		return nil, fmt.Errorf("resume block %d: %w", r.header.Number, err)
	}
	if why := unlike(r.header, template); why != "" {
		// Not this sequencer's opening, or not with this configuration: a
		// log entry must not choose the block's coinbase or gas limit.
		// The pre-confirmed transactions are pooled again (recovery.Repool) and go
		// into a block opened afresh.
		s.log.Warn("The block being built, as the log holds it, is not one this sequencer opens: opening a fresh one instead",
			"number", r.header.Number, "differs", why, "txs", len(r.txs))
		return nil, nil
	}
	b, rebuilt := s.takeRebuilt(r, parent), false
	if b == nil {
		var err error
		if b, err = s.execute(r, parent); err != nil {
			return nil, err
		}
		rebuilt = true
	}
	b.logged = len(r.txs)
	s.log.Info("Resumed the block being built from the log: its pre-confirmed transactions are kept", "number", r.header.Number, "txs", len(r.txs), "executedAgain", rebuilt)
	return b, nil
}

// execute runs r's transactions again on parent.
func (s *Sequencer) execute(r *resumed, parent *types.Block) (*builder, error) {
	b, err := newBuilder(s.chain, parent, types.CopyHeader(r.header))
	if err != nil {
		return nil, fmt.Errorf("resume block %d: %w", r.header.Number, err)
	}
	for i, tx := range r.txs {
		if err := b.apply(tx); err != nil {
			return nil, fmt.Errorf("resume block %d: pre-confirmed transaction %d (%s) no longer executes: %w", r.header.Number, i, tx.Hash(), err)
		}
	}
	b.ticks = r.ticks
	return b, nil
}

// offer gives Run, with Resume, the block a standby's replay rebuilt
// from the same log: when it is the resumed block on the same parent,
// with the same transactions and pre-confirmations, Run continues it
// instead of executing them again (what a standby taking over under a
// flood saves is tens of milliseconds of pause). The replayer must be
// stopped; it forgets the block.
func (s *Sequencer) offer(r *Replayer) {
	s.rebuilt, r.b = r.b, nil
}

// ContinueReplayed has Run continue the block r, a stopped replay of
// this sequencer's log, is building on the head, as it is (Resume and
// offer in one, without reading the log): its transactions are the
// block's, for the pool (recovery.Repool); ok is false when r builds none.
// A replay that applied the log's last entry builds a block only when the
// log's last opening is on the head, which is then the log's last sealed
// block: the chain is level with the log. Call before Run.
func (s *Sequencer) ContinueReplayed(r *Replayer) (txs types.Transactions, ok bool) {
	b := r.b
	if b == nil || b.parent.Hash() != s.chain.Head().Hash() {
		return nil, false
	}
	txs = slices.Clone(types.Transactions(b.txs))
	s.Resume(types.CopyHeader(b.header), txs, b.ticks)
	s.offer(r)
	return txs, true
}

// takeRebuilt returns the block offered when it is r's on parent.
func (s *Sequencer) takeRebuilt(r *resumed, parent *types.Block) *builder {
	b := s.rebuilt
	s.rebuilt = nil
	if b == nil || b.parent.Hash() != parent.Hash() || b.ticks != r.ticks || len(b.txs) != len(r.txs) || !sameOpening(b.header, r.header) {
		return nil
	}
	for i, tx := range r.txs {
		if b.txs[i].Hash() != tx.Hash() {
			return nil
		}
	}
	return b
}

// sameOpening reports whether building, a header that executed
// transactions, was opened as logged: they differ in no more than the gas
// used.
func sameOpening(building, logged *types.Header) bool {
	h := types.CopyHeader(logged)
	h.GasUsed = building.GasUsed
	return h.Hash() == building.Hash()
}

// unlike names the first field in which a logged opening differs from the
// one this sequencer makes now (template), or is empty. The timestamp may
// be any from the parent's to now's, and prevrandao is random.
func unlike(logged, template *types.Header) string {
	switch {
	case logged.Number.Cmp(template.Number) != 0:
		return "number"
	case logged.GasLimit != template.GasLimit:
		return "gas limit"
	case logged.Coinbase != template.Coinbase:
		return "coinbase"
	case !bytes.Equal(logged.Extra, template.Extra):
		return "extra data"
	case logged.Time > template.Time:
		return "timestamp (after now)"
	case (logged.BaseFee == nil) != (template.BaseFee == nil) || logged.BaseFee != nil && logged.BaseFee.Cmp(template.BaseFee) != 0:
		return "base fee"
	case !samePointee(logged.ExcessBlobGas, template.ExcessBlobGas):
		return "excess blob gas"
	case !samePointee(logged.ParentBeaconRoot, template.ParentBeaconRoot):
		return "parent beacon root"
	case logged.Difficulty.Sign() != 0:
		return "difficulty"
	}
	return ""
}

// samePointee reports whether a and b are both nil or point to equal values.
func samePointee[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
