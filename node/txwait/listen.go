package txwait

import (
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

// seen is how much of the pending block the listener has looked at: a
// pre-confirmation adds transactions to the block, and only those are new.
type seen struct {
	number uint64
	index  int // the block's pre-confirmation
	txs    int
}

// fresh returns the transactions of p not seen before and remembers p. A
// new block, or one opened again (a replica's rebuilt block, with its
// index restarted), is new from its first transaction.
func (s *seen) fresh(p *pending.Block) types.Transactions {
	number := p.Header.Number.Uint64()
	if number != s.number || p.Index <= s.index || len(p.Transactions) < s.txs {
		s.txs = 0
	}
	s.number, s.index = number, p.Index
	txs := p.Transactions[s.txs:]
	s.txs = len(p.Transactions)
	return txs
}

// Preconfirmed wakes the waiters of the transactions snap's pending block
// added (sequencer.Listener).
func (r *Registry) Preconfirmed(snap *pending.Snapshot) {
	txs := r.seen.fresh(snap.Pending)
	if r.count.Load() == 0 || len(txs) == 0 {
		return
	}
	r.wake(txs, snap, Preconfirmed)
}

// Sealed wakes every waiter of block's transactions (sequencer.Listener).
func (r *Registry) Sealed(snap *pending.Snapshot, block *types.Block) {
	if r.count.Load() == 0 {
		return
	}
	r.wake(block.Transactions(), snap, Sealed)
}

// wake hands snap to the waiters of txs that wait for event or less.
func (r *Registry) wake(txs types.Transactions, snap *pending.Snapshot, event Until) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, tx := range txs {
		hash := tx.Hash()
		ws := r.waiting[hash]
		for i := 0; i < len(ws); {
			w := ws[i]
			if w.until > event {
				i++
				continue
			}
			w.ready <- snap // its only send: it leaves the registry now
			r.remove(w)
			ws = r.waiting[hash]
		}
	}
}
