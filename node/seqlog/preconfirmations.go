package seqlog

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nats-io/nats.go/jetstream"
)

// Preconfirmation is one pre-confirmation as the log holds it, with the
// opening of its block: what a newFlashblocks notification says.
type Preconfirmation struct {
	Opened  Opened
	Index   uint64
	GasUsed uint64
	// Transactions are the hashes of every transaction the block has
	// pre-confirmed so far, this pre-confirmation's last.
	Transactions []common.Hash
}

// ErrNotOpened is reading the pre-confirmations of a block whose opening
// the log does not hold (not opened yet, or dropped by retention).
var ErrNotOpened = errors.New("the log holds no opening of that block")

// Preconfirmations yields the pre-confirmations of block number and of the
// blocks after it, in log order, up to the last entry the log held when it
// was called. A block opened again (rebuilt after a crash) starts over.
func (l *Log) Preconfirmations(ctx context.Context, number uint64) iter.Seq2[Preconfirmation, error] {
	return func(yield func(Preconfirmation, error) bool) {
		from, err := l.firstOpening(ctx, number)
		if err != nil {
			yield(Preconfirmation{}, err)
			return
		}
		var opened *Opened
		var hashes []common.Hash
		for rec, err := range l.Read(ctx, from) {
			if err != nil {
				yield(Preconfirmation{}, err)
				return
			}
			switch e := rec.Entry.(type) {
			case Opened:
				opened, hashes = &e, nil
			case Preconfirmed:
				if opened == nil || e.Number != opened.Number {
					continue
				}
				for _, raw := range e.Transactions {
					hashes = append(hashes, crypto.Keccak256Hash(raw)) // an EIP-2718 encoding's hash is the transaction's
				}
				p := Preconfirmation{Opened: *opened, Index: e.Index, GasUsed: e.GasUsed, Transactions: hashes[:len(hashes):len(hashes)]}
				if !yield(p, nil) {
					return
				}
			}
		}
	}
}

// firstOpening is the sequence of the first opening of block number,
// found by bisecting the log: openings come in block order.
func (l *Log) firstOpening(ctx context.Context, number uint64) (uint64, error) {
	info, err := l.Info(ctx)
	if err != nil {
		return 0, err
	}
	subject := l.subject + KindOpened.String()
	lo, hi := info.FirstSeq, info.LastSeq+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		seq, opened, err := l.nextOpening(ctx, subject, mid)
		switch {
		case err != nil:
			return 0, err
		case seq == 0 || opened >= number:
			hi = mid
		default:
			lo = seq + 1
		}
	}
	seq, opened, err := l.nextOpening(ctx, subject, lo)
	if err != nil {
		return 0, err
	}
	if seq == 0 || opened != number {
		return 0, fmt.Errorf("block %d: %w", number, ErrNotOpened)
	}
	return seq, nil
}

// nextOpening is the first opening at or after sequence from: its
// sequence (0 if there is none) and its block number.
func (l *Log) nextOpening(ctx context.Context, subject string, from uint64) (seq, number uint64, err error) {
	msg, err := l.stream.GetMsg(ctx, from, jetstream.WithGetMsgSubject(subject))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("sequencer log: opening at or after %d: %w", from, err)
	}
	e, err := l.decode(msg.Subject, msg.Data)
	if err != nil {
		return 0, 0, undecodable(msg.Sequence, err)
	}
	return msg.Sequence, e.(Opened).Number, nil
}
