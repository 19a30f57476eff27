package seqlog

import (
	"context"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

// Journal writes a sequencer's decisions to the log: it is the
// sequencer.Journal of a node with a log. It runs on the sequencer's
// goroutine; each append waits for JetStream's acknowledgement (Append).
type Journal struct {
	log *Log
}

// NewJournal returns the journal that appends to l.
func NewJournal(l *Log) *Journal { return &Journal{log: l} }

// Opened logs the opening of the block of h.
func (j *Journal) Opened(h *types.Header) error {
	_, err := j.log.Append(context.Background(), NewOpened(h, NewPayloadID(h)))
	return err
}

// Preconfirmed logs the transactions a pre-confirmation of b executed.
func (j *Journal) Preconfirmed(b *pending.Block, txs types.Transactions) error {
	entry, err := newPreconfirmed(b, txs)
	if err != nil {
		return err
	}
	_, err = j.log.Append(context.Background(), entry)
	return err
}

func newPreconfirmed(b *pending.Block, txs types.Transactions) (Preconfirmed, error) {
	raw, err := EncodeTxs(txs)
	if err != nil {
		return Preconfirmed{}, err
	}
	return Preconfirmed{
		Number:       b.Header.Number.Uint64(),
		PayloadID:    NewPayloadID(b.Header), // from the block: a resumed one was opened by another run
		Index:        uint64(b.Index),
		GasUsed:      b.Header.GasUsed,
		Transactions: raw,
	}, nil
}

// Sealed logs a sealed block.
func (j *Journal) Sealed(block *types.Block, receipts types.Receipts) error {
	entry, err := NewSealed(block, receipts)
	if err != nil {
		return err
	}
	_, err = j.log.Append(context.Background(), entry)
	return err
}

// Reopened logs a sealed block, the opening of the next block and that
// block's first pre-confirmation in one round trip (Log.AppendAll).
func (j *Journal) Reopened(sealed *types.Block, receipts types.Receipts, first *pending.Block) error {
	s, err := NewSealed(sealed, receipts)
	if err != nil {
		return err
	}
	p, err := newPreconfirmed(first, first.Transactions)
	if err != nil {
		return err
	}
	return j.log.AppendAll(context.Background(), s, NewOpened(first.Header, NewPayloadID(first.Header)), p)
}
