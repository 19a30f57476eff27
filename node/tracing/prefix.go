package tracing

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
)

// Prefixes keeps the states of sealed blocks after their first
// transactions, so that tracing transaction i of a block replays from the
// nearest kept state before it, not from the block's start: tracing a
// block's transactions one request after another (an explorer, an indexer)
// replays each transaction once, not half the block per request. Every
// traced transaction leaves its block's state after it, which is kept.
//
// A kept state reads what it did not load through its reader, which for a
// recent block is one of the path database's in-memory layers: that layer
// goes stale once 128 blocks were sealed after it. A state is therefore
// used only while its block is within prefixWindow blocks of the head, half
// of that.
//
// A StateDB has no size to ask for, so each kept state is counted at an
// estimate from what it loaded (its AccountLoaded and StorageLoaded, which
// a copy starts at zero): accountBytes per account, slotBytes per storage
// slot, txBytes per transaction (its logs, its journal's share), plus the
// estimate of the kept state it was copied from. The least recently used
// go first.
type Prefixes struct {
	hits    atomic.Uint64 // traces that started from a kept state
	mu      sync.Mutex
	limit   int64
	size    int64
	lru     list.List // of *prefix, the most recent in front
	byBlock map[common.Hash]map[int]*list.Element
}

const (
	prefixWindow = 64
	accountBytes = 1024
	slotBytes    = 256
	txBytes      = 256
)

// prefix is a block's state before its transaction next. The cache owns
// state and never runs anything on it: a trace takes a copy.
type prefix struct {
	block  common.Hash
	number uint64
	next   int
	state  *state.StateDB
	size   int64
}

// NewPrefixes keeps up to limit bytes (estimated) of states; 0 keeps none.
func NewPrefixes(limit int64) *Prefixes {
	return &Prefixes{limit: limit, byBlock: make(map[common.Hash]map[int]*list.Element)}
}

// nearest returns a copy of the kept state of block before its transaction
// k, the largest k at most n, k, and the state's estimated size; nil when
// none is kept, or the block is no longer within prefixWindow of head.
func (p *Prefixes) nearest(block common.Hash, n int, head uint64) (*state.StateDB, int, int64) {
	if p == nil {
		return nil, 0, 0
	}
	kept := p.pick(block, n, head)
	if kept == nil {
		return nil, 0, 0
	}
	// A kept state is never written again and Copy only reads it, so
	// copies, which take tens of microseconds for a block's worth of
	// accounts, are made outside the lock, side by side; an eviction
	// meanwhile only forgets the state.
	return kept.state.Copy(), kept.next, kept.size
}

// pick finds the kept state nearest returns a copy of.
func (p *Prefixes) pick(block common.Hash, n int, head uint64) *prefix {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best *list.Element
	for k, e := range p.byBlock[block] {
		if e.Value.(*prefix).number+prefixWindow <= head {
			p.evict(e) // its reader may be stale
			continue
		}
		if k <= n && (best == nil || k > best.Value.(*prefix).next) {
			best = e
		}
	}
	if best == nil {
		return nil
	}
	p.lru.MoveToFront(best)
	p.hits.Add(1)
	return best.Value.(*prefix)
}

// keep takes st, the state of block number before its transaction next, of
// estimated size, into the cache; the caller must not use st again.
func (p *Prefixes) keep(block common.Hash, number uint64, next int, st *state.StateDB, size int64) {
	if p == nil || next == 0 || size > p.limit {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.byBlock[block][next]; ok {
		return
	}
	if p.byBlock[block] == nil {
		p.byBlock[block] = make(map[int]*list.Element)
	}
	p.byBlock[block][next] = p.lru.PushFront(&prefix{block: block, number: number, next: next, state: st, size: size})
	p.size += size
	for p.size > p.limit {
		p.evict(p.lru.Back())
	}
}

func (p *Prefixes) evict(e *list.Element) {
	kept := p.lru.Remove(e).(*prefix)
	p.size -= kept.size
	delete(p.byBlock[kept.block], kept.next)
	if len(p.byBlock[kept.block]) == 0 {
		delete(p.byBlock, kept.block)
	}
}

// Hits counts the traces that started from a kept state.
func (p *Prefixes) Hits() uint64 { return p.hits.Load() }

// Size is the estimated bytes kept.
func (p *Prefixes) Size() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.size
}
