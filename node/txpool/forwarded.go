package txpool

import (
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// forwardedTTL is how long a forwarded transaction is remembered: fifty
// pre-confirmation intervals, far longer than it takes to be
// pre-confirmed and replayed (the replica's lag p99 is about 0.1 s under
// a flood).
const forwardedTTL = 10 * time.Second

// maxForwarded bounds the memory: 10 s of 6,500 forwards a second, more
// than the chain takes. Past it, expired entries are dropped, and if that
// is not enough everything is forgotten rather than the map grown.
const maxForwarded = 1 << 16

// forwarded remembers, on a replica, the transactions it forwarded until
// their pre-confirmation reaches it, so that the client that sent one sees
// it (eth_getTransactionByHash) and counts it in its pending nonce
// (eth_getTransactionCount) at once, as from the sequencer's pool: a
// wallet that sends twice in a row through a replica must not reuse a
// nonce.
type forwarded struct {
	mu    sync.Mutex
	txs   map[common.Hash]forwardedTx
	nonce map[common.Address]forwardedNonce
	now   func() time.Time
}

type forwardedTx struct {
	tx *types.Transaction
	at time.Time
}

type forwardedNonce struct {
	next uint64
	at   time.Time
}

func newForwarded() *forwarded {
	return &forwarded{txs: map[common.Hash]forwardedTx{}, nonce: map[common.Address]forwardedNonce{}, now: time.Now}
}

// add records tx, sent by from, as accepted by the sequencer.
func (f *forwarded) add(from common.Address, tx *types.Transaction) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.remember(tx)
	if n, ok := f.nonce[from]; !ok || n.next <= tx.Nonce() || now.Sub(n.at) > forwardedTTL {
		f.nonce[from] = forwardedNonce{next: tx.Nonce() + 1, at: now}
	}
}

// addTx records tx as accepted by the sequencer without its nonce: one
// queued behind a gap is not its sender's next.
func (f *forwarded) addTx(tx *types.Transaction) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.remember(tx)
}

// remember stores tx and returns the time it counts from; the caller
// holds mu.
func (f *forwarded) remember(tx *types.Transaction) time.Time {
	now := f.now()
	if len(f.txs) >= maxForwarded {
		f.prune(now)
	}
	f.txs[tx.Hash()] = forwardedTx{tx: tx, at: now}
	return now
}

// get returns a remembered transaction, or nil.
func (f *forwarded) get(hash common.Hash) *types.Transaction {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.txs[hash]
	if !ok || f.now().Sub(e.at) > forwardedTTL {
		return nil
	}
	return e.tx
}

// next returns the nonce after addr's last forwarded transaction (0: none
// remembered).
func (f *forwarded) next(addr common.Address) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nonce[addr]
	if !ok || f.now().Sub(n.at) > forwardedTTL {
		return 0
	}
	return n.next
}

// prune drops expired entries; a flood of forwards faster than the chain
// takes them clears the memory.
func (f *forwarded) prune(now time.Time) {
	for h, e := range f.txs {
		if now.Sub(e.at) > forwardedTTL {
			delete(f.txs, h)
		}
	}
	for a, n := range f.nonce {
		if now.Sub(n.at) > forwardedTTL {
			delete(f.nonce, a)
		}
	}
	if len(f.txs) >= maxForwarded || len(f.nonce) >= maxForwarded {
		clear(f.txs)
		clear(f.nonce)
	}
}
