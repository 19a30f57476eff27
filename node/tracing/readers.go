package tracing

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

// Readers keeps, for the blocks traced lately, a cached reader of the state
// they start from (their parent's): tracing a block again, or more of its
// transactions, reads that state from memory instead of the path database,
// which hashes every key and looks it up in its caches (an eighth of tracing
// a block of token transfers).
//
// A reader caches what the block's transactions read, and that is bounded
// by the block's gas (a cold account or slot costs 2,100 gas or more): about
// a megabyte at most. Readers keeps readerStates of them, and only of
// states within prefixWindow blocks of the head: a path database layer goes
// stale 128 blocks after its own.
type Readers struct {
	mu     sync.Mutex
	states lru.BasicLRU[common.Hash, cachedState]
}

// readerStates is how many states Readers keeps readers of.
const readerStates = 8

// cachedState is a state's cached reader and the first block seen with
// that state (empty blocks share their parent's): the oldest, for the
// window.
type cachedState struct {
	number uint64
	reader *pending.CachedReader
}

// NewReaders returns an empty cache.
func NewReaders() *Readers {
	return &Readers{states: lru.NewBasicLRU[common.Hash, cachedState](readerStates)}
}

// Reader returns a reader of the state after the block of header: a cached
// one while the block is within the window of head, else what open returns.
func (r *Readers) Reader(header *types.Header, head uint64, open func() (state.Reader, error)) (state.Reader, error) {
	number := header.Number.Uint64()
	if number+prefixWindow <= head {
		return open()
	}
	r.mu.Lock()
	cached, ok := r.states.Get(header.Root)
	r.mu.Unlock()
	if ok && cached.number+prefixWindow > head {
		return cached.reader, nil
	}
	base, err := open()
	if err != nil {
		return nil, err
	}
	cached = cachedState{number: number, reader: pending.NewCachedReader(base)}
	r.mu.Lock()
	r.states.Add(header.Root, cached)
	r.mu.Unlock()
	return cached.reader, nil
}
