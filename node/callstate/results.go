package callstate

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// resultShards spreads a Results' entries over this many locks, so that
// concurrent calls on a busy state rarely share one.
const resultShards = 16

// resultOverhead is what an entry costs besides its key and value bytes: the
// map slot with the string and slice headers, and the allocations' rounding.
const resultOverhead = 96

// Results remembers the return data of calls over one immutable state and
// block context (a Pool's), keyed by everything else the call depends on.
//
// A call's outcome is a function of its state, its block context, its
// message and the node's call settings, and all of them but the message and
// the settings are fixed by the Pool: the same key over the same Pool gives
// the same answer, so a remembered one is exact, never stale. A wallet or a
// dapp front end asks the same view functions (balances, allowances,
// prices) again and again within one block, and each repeat then costs a
// map lookup instead of an EVM run.
//
// It holds at most its byte limit and then stops remembering: it lives as
// long as its Pool, one block or one pre-confirmation, so no entry needs to
// be evicted. Safe for concurrent use.
type Results struct {
	limit  int64
	used   atomic.Int64
	seed   maphash.Seed
	shards [resultShards]resultShard
}

type resultShard struct {
	mu sync.RWMutex
	m  map[string][]byte
	_  [32]byte // a shard per 64-byte cache line: its lock is not its neighbour's
}

// NewResults returns an empty Results that holds at most limit bytes.
func NewResults(limit int64) *Results {
	r := &Results{limit: limit, seed: maphash.MakeSeed()}
	for i := range r.shards {
		r.shards[i].m = make(map[string][]byte)
	}
	return r
}

func (r *Results) shard(key []byte) *resultShard {
	return &r.shards[maphash.Bytes(r.seed, key)%resultShards]
}

// Get returns the return data remembered for key. The caller must not
// modify it.
func (r *Results) Get(key []byte) ([]byte, bool) {
	s := r.shard(key)
	s.mu.RLock()
	ret, ok := s.m[string(key)]
	s.mu.RUnlock()
	return ret, ok
}

// Put remembers a copy of ret for key, unless that would pass the limit.
func (r *Results) Put(key, ret []byte) {
	size := int64(len(key) + len(ret) + resultOverhead)
	if r.used.Add(size) > r.limit {
		r.used.Add(-size)
		return
	}
	s := r.shard(key)
	s.mu.Lock()
	if _, ok := s.m[string(key)]; ok {
		s.mu.Unlock()
		r.used.Add(-size) // another call remembered it first
		return
	}
	s.m[string(key)] = append([]byte{}, ret...)
	s.mu.Unlock()
}

// Bytes is how much of the limit the remembered entries take.
func (r *Results) Bytes() int64 { return r.used.Load() }
