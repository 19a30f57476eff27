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
	mu     sync.Mutex
	txs    map[common.Hash]forwardedTx
	nonces map[common.Address]map[uint64]time.Time // each sender's forwarded nonces, when last forwarded
	now    func() time.Time
}

type forwardedTx struct {
	tx *types.Transaction
	at time.Time
}

func newForwarded() *forwarded {
	return &forwarded{txs: map[common.Hash]forwardedTx{}, nonces: map[common.Address]map[uint64]time.Time{}, now: time.Now}
}

// add records tx, sent by from, as accepted by the sequencer.
func (f *forwarded) add(from common.Address, tx *types.Transaction) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if len(f.txs) >= maxForwarded {
		f.prune(now)
	}
	f.txs[tx.Hash()] = forwardedTx{tx: tx, at: now}
	sent := f.nonces[from]
	if sent == nil {
		sent = map[uint64]time.Time{}
		f.nonces[from] = sent
	}
	sent[tx.Nonce()] = now
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

// next returns addr's next nonce from nonce on: past every remembered
// transaction of addr that follows it without a gap. A forwarded
// transaction behind a gap is not executable, and the sequencer's pool
// does not count it either.
func (f *forwarded) next(addr common.Address, nonce uint64) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	sent := f.nonces[addr]
	for {
		at, ok := sent[nonce]
		if !ok || now.Sub(at) > forwardedTTL {
			return nonce
		}
		nonce++
	}
}

// prune drops expired entries; a flood of forwards faster than the chain
// takes them clears the memory. Every remembered nonce came with a
// remembered transaction, so the transactions' count bounds both.
func (f *forwarded) prune(now time.Time) {
	for h, e := range f.txs {
		if now.Sub(e.at) > forwardedTTL {
			delete(f.txs, h)
		}
	}
	for a, sent := range f.nonces {
		for n, at := range sent {
			if now.Sub(at) > forwardedTTL {
				delete(sent, n)
			}
		}
		if len(sent) == 0 {
			delete(f.nonces, a)
		}
	}
	if len(f.txs) >= maxForwarded {
		clear(f.txs)
		clear(f.nonces)
	}
}
