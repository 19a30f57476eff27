package sequencer

import (
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
	// Sealed records a sealed block, committed to the database but not yet
	// announced.
	Sealed(block *types.Block, receipts types.Receipts) error
}

// SetJournal registers j; call it before Run.
func (s *Sequencer) SetJournal(j Journal) { s.journal = j }
