package seqlog

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/core/types"
)

// maxAcceptBatch and maxAcceptBytes bound one Accepted entry: half the
// log's largest entry (DefaultMaxEntryBytes), and a pooled
// transaction (at most 128 KiB) always fits alone.
const (
	maxAcceptBatch = 512
	maxAcceptBytes = DefaultMaxEntryBytes / 2
)

// AcceptLog records the transactions the pool accepts in the sequencer's
// log before eth_sendRawTransaction answers, so that one accepted but not
// yet pre-confirmed when the node crashes is pooled again at the restart.
// Senders waiting at once share one append (group commit): a synced append
// costs about 0.3 ms, so one per transaction would cap a flood at a few
// thousand a second; one per batch costs each send one append's wait.
type AcceptLog struct {
	log    *Log
	reqs   chan acceptReq
	cancel context.CancelFunc
	done   chan struct{}
}

type acceptReq struct {
	raw []byte
	err chan error
}

var errLogClosed = errors.New("the sequencer's log is closed")

// StartAcceptLog starts the group commit of acceptances into l; Stop ends it.
func StartAcceptLog(l *Log) *AcceptLog {
	ctx, cancel := context.WithCancel(context.Background())
	a := &AcceptLog{log: l, reqs: make(chan acceptReq, maxAcceptBatch), cancel: cancel, done: make(chan struct{})}
	go a.run(ctx)
	return a
}

// Accept records tx, waiting for the append that holds it (the
// txpool.Pool.OnAccepted hook).
func (a *AcceptLog) Accept(tx *types.Transaction) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	req := acceptReq{raw: raw, err: make(chan error, 1)}
	select {
	case a.reqs <- req:
	case <-a.done:
		return errLogClosed
	}
	select {
	case err := <-req.err:
		return err
	case <-a.done:
		return errLogClosed
	}
}

// run appends what waits, one entry per batch, until ctx ends.
func (a *AcceptLog) run(ctx context.Context) {
	defer close(a.done)
	var carry *acceptReq // the request that did not fit the last batch
	for {
		first := carry
		if first == nil {
			select {
			case <-ctx.Done():
				return
			case req := <-a.reqs:
				first = &req
			}
		}
		var batch []acceptReq
		batch, carry = a.collect(*first)
		raws := make([][]byte, len(batch))
		for i, req := range batch {
			raws[i] = req.raw
		}
		_, err := a.log.Append(ctx, Accepted{Transactions: raws})
		for _, req := range batch {
			req.err <- err
		}
	}
}

// collect makes a batch of first and what else waits, up to
// maxAcceptBatch transactions and maxAcceptBytes; a request that would
// overflow it is returned to start the next one.
func (a *AcceptLog) collect(first acceptReq) (batch []acceptReq, carry *acceptReq) {
	batch, size := []acceptReq{first}, len(first.raw)
	for len(batch) < maxAcceptBatch {
		select {
		case req := <-a.reqs:
			if size+len(req.raw) > maxAcceptBytes {
				return batch, &req
			}
			batch, size = append(batch, req), size+len(req.raw)
		default:
			return batch, nil
		}
	}
	return batch, nil
}

// Stop ends the group commit; waiting senders get errLogClosed.
func (a *AcceptLog) Stop() {
	a.cancel()
	<-a.done
}
