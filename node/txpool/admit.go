package txpool

import (
	"errors"

	"github.com/ethereum/go-ethereum/core/types"
)

// DefaultAddBatch is the most transactions one pool add takes in; see
// Config.AddBatch.
const DefaultAddBatch = 256

// ErrClosed refuses a transaction sent to a pool that is shutting down.
var ErrClosed = errors.New("the transaction pool is shutting down")

// admitReq is one transaction waiting to be added, and where its outcome
// goes.
type admitReq struct {
	tx   *types.Transaction
	want bool // read its Admission
	done chan admitted
}

// admitted is the outcome of one add: its error, or, when asked for, its
// Admission.
type admitted struct {
	adm Admission
	err error
}

// admit adds tx through the admitter, with the batch it joins, and
// returns its outcome once the pool counts it; the Admission only if
// want.
func (p *Pool) admit(tx *types.Transaction, want bool) (Admission, error) {
	req := admitReq{tx: tx, want: want, done: make(chan admitted, 1)}
	select {
	case p.admits <- req:
	case <-p.closing:
		return Admission{}, ErrClosed
	}
	select {
	case out := <-req.done:
		return out.adm, out.err
	case <-p.admitDone:
		return Admission{}, ErrClosed
	}
}

// runAdmitter adds the waiting transactions to legacypool one batch at a
// time, until the pool closes.
//
// legacypool takes every add under one lock and runs a promotion pass for
// it, which the add waits for. Adding each sender's transaction on its own
// request's goroutine made a flood's 64 senders queue on that lock: on a
// busy machine every hand-over of a lock waits for the next goroutine to be
// scheduled, so each add waited for the ones before it, one scheduling
// delay each (18 ms on average, 180 ms at worst, under a flood of 2,000
// transfers a second), and the requests queued there, runnable one after
// another, kept the sequencer's own helper goroutines waiting for the CPU.
// One goroutine that adds what waited meanwhile takes the lock once and
// runs one pass per batch, however many requests wait: admission is then
// at most one core's work besides the requests' own decoding and
// signature recovery (group commit, as the log's acceptances).
func (p *Pool) runAdmitter() {
	defer close(p.admitDone)
	batch := make([]admitReq, 0, p.addBatch)
	txs := make([]*types.Transaction, 0, p.addBatch)
	for {
		select {
		case <-p.closing:
			return
		case first := <-p.admits:
			batch = append(batch[:0], first)
		}
	collect:
		for len(batch) < p.addBatch {
			select {
			case req := <-p.admits:
				batch = append(batch, req)
			default:
				break collect
			}
		}
		txs = txs[:0]
		for _, req := range batch {
			txs = append(txs, req.tx)
		}
		// sync: every transaction is promoted, if it can be, before its
		// sender hears back (Add).
		p.legacy.addThen(txs, true, func(errs []error) {
			for i, err := range errs {
				out := admitted{err: err}
				if err == nil && batch[i].want {
					out.adm = p.legacy.admission(batch[i].tx)
				}
				batch[i].done <- out
			}
		})
		clear(txs) // keep no transaction alive until the next batch
		clear(batch)
	}
}
