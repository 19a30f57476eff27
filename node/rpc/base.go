package rpc

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// baseTransactionStatus is Base's base_transactionStatus (docs.base.org,
// Flashblocks API): {"status":"Known"} for a transaction this node has
// seen, {"status":"Unknown"} for one it has not. Base names no other
// status. Known here is pooled (on a replica: forwarded to the sequencer
// lately), pre-confirmed, or in a sealed block: Base documents Known as
// "in the mempool or confirmed", and its sequencer keeps a pre-confirmed
// transaction in its pool until the block is canonical; a sealed one
// stays Known because on 200 ms blocks a client that asks right after
// sending would otherwise often read Unknown, which apps take to mean the
// sequencer dropped it. A dropped or replaced transaction is Unknown.
//
// A read replica knows the transactions it forwarded, pre-confirmed and
// sealed ones; it asks the sequencer about any other (one sent to the
// sequencer or another replica and not yet pre-confirmed), and fails
// rather than answer Unknown when the sequencer does not say.
func baseTransactionStatus(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	hash, err := r.hashArg(0)
	if err != nil {
		return err
	}
	_, known, err := s.findTx(r, hash)
	if !known && s.b.Known != nil {
		known, err = s.askSequencer(r, hash)
	}
	switch {
	case known:
		r.out = append(r.out, `{"status":"Known"}`...)
	case err != nil:
		return err // the transaction index is being built: nobody knows yet
	default:
		r.out = append(r.out, `{"status":"Unknown"}`...)
	}
	return nil
}

// askSequencer asks the sequencer whether it knows the transaction, within
// the request's deadline.
func (s *Server) askSequencer(r *request, hash common.Hash) (bool, error) {
	ctx := context.Background()
	if !r.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, r.deadline)
		defer cancel()
	}
	known, err := s.b.Known(ctx, hash)
	if err != nil {
		return false, fmt.Errorf("the status of transaction %s: %w", hash, err)
	}
	return known, nil
}
