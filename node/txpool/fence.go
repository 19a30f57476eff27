package txpool

import (
	"sync"

	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/legacypool"
	"github.com/ethereum/go-ethereum/core/types"
)

// fenced is legacypool with its resets kept out of the promotion passes of
// adds.
//
// legacypool runs resets and promotions as one queue of passes, and folds
// every request that arrives while a pass runs into the next one. A pass
// that takes in a new head rebuilds the pending nonces from the head's
// state before it promotes, and only after it restores those of the
// pending transactions: a transaction added in that pass whose sender
// still has a pending transaction the head does not include looks gapped,
// stays queued, and is promoted only with the next block. Add, which waits
// for its pass, would then return with the transaction uncounted by the
// pending nonce, and a wallet's next send would reuse its nonce.
//
// Adds share the fence and a reset takes it alone, so a reset waits for
// the adds in flight to be promoted, and adds arriving meanwhile wait for
// the reset: no pass holds both. This holds for adds that wait for their
// pass (sync), the only ones Pool makes. Adds already waited for a
// reset's pass, which holds the pool's lock, so they lose little.
type fenced struct {
	*legacypool.LegacyPool
	signer types.Signer // legacypool's: a sender recovered with it is reused
	fence  sync.RWMutex
}

// Add implements txpool.SubPool.
func (p *fenced) Add(txs []*types.Transaction, sync bool) []error {
	var errs []error
	p.addThen(txs, sync, func(e []error) { errs = e })
	return errs
}

// addThen adds txs as Add does, and tells then their errors before a reset
// can take in a new head: then reads the pool as the adds' own promotion
// pass left it. Reading it after the fence would wait for any reset that
// started meanwhile, and a reset takes the pool's lock for milliseconds
// (tens of them on a busy machine), every block.
func (p *fenced) addThen(txs []*types.Transaction, sync bool, then func([]error)) {
	// Recover the senders before the fence, as legacypool reuses them: an
	// add held there while a new head is taken in has its costliest check
	// done (Pool.Add has recovered them already). A sender that does not
	// recover is legacypool's to refuse.
	for _, tx := range txs {
		_, _ = types.Sender(p.signer, tx)
	}
	p.fence.RLock()
	defer p.fence.RUnlock()
	then(p.LegacyPool.Add(txs, sync))
}

// admission reads whether tx, pooled, can run now, and its sender's next
// nonce.
func (p *fenced) admission(tx *types.Transaction) Admission {
	from, _ := types.Sender(p.signer, tx) // recovered by its add
	return Admission{Queued: p.Status(tx.Hash()) == gethpool.TxStatusQueued, Next: p.Nonce(from)}
}

// Reset implements txpool.SubPool.
func (p *fenced) Reset(oldHead, newHead *types.Header) {
	p.fence.Lock()
	defer p.fence.Unlock()
	p.LegacyPool.Reset(oldHead, newHead)
}
