package node

import (
	"context"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/seqlog"
)

// logJournal writes the sequencer's decisions to the log (sequencer.Journal).
// It runs on the sequencer's goroutine; each append waits for JetStream's
// acknowledgement, bounded by seqlog.Config.AckTimeout.
type logJournal struct {
	log     *seqlog.Log
	payload seqlog.PayloadID
}

func (j *logJournal) Opened(h *types.Header) error {
	j.payload = seqlog.NewPayloadID(h)
	_, err := j.log.Append(context.Background(), seqlog.NewOpened(h, j.payload))
	return err
}

func (j *logJournal) Preconfirmed(b *pending.Block, txs types.Transactions) error {
	raw, err := seqlog.EncodeTxs(txs)
	if err != nil {
		return err
	}
	_, err = j.log.Append(context.Background(), seqlog.Preconfirmed{
		Number:       b.Header.Number.Uint64(),
		PayloadID:    j.payload,
		Index:        uint64(b.Index),
		GasUsed:      b.Header.GasUsed,
		Transactions: raw,
	})
	return err
}

func (j *logJournal) Sealed(block *types.Block, receipts types.Receipts) error {
	entry, err := seqlog.NewSealed(block, receipts)
	if err != nil {
		return err
	}
	_, err = j.log.Append(context.Background(), entry)
	return err
}
