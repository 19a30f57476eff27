package pending

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// SharedAccountReader is implemented by readers that can hand out the
// account they hold without copying it; callers must not modify it.
type SharedAccountReader interface {
	AccountShared(addr common.Address) (*types.StateAccount, error)
}

// cacheShards spreads the cache's locks; cacheLimit bounds its memory (a
// client asking for millions of distinct addresses gets uncached reads).
const (
	cacheShards = 32
	cacheLimit  = 1 << 16 // entries per shard, accounts and slots together
)

// CachedReader remembers what it read from a state that never changes (one
// block's state), so that the hot reads of a block's lifetime (the same
// contract and accounts, call after call) skip the snapshot's hashing,
// layer walk and decoding. It is safe for concurrent use.
type CachedReader struct {
	base   state.Reader
	shards [cacheShards]cacheShard
}

type slotKey struct {
	addr common.Address
	slot common.Hash
}

type cacheShard struct {
	mu       sync.RWMutex
	accounts map[common.Address]*types.StateAccount // nil value: no such account
	storage  map[slotKey]common.Hash
}

// NewCachedReader wraps base, the reader of one immutable state.
func NewCachedReader(base state.Reader) *CachedReader {
	c := &CachedReader{base: base}
	for i := range c.shards {
		c.shards[i].accounts = make(map[common.Address]*types.StateAccount)
		c.shards[i].storage = make(map[slotKey]common.Hash)
	}
	return c
}

func (c *CachedReader) shard(addr common.Address) *cacheShard {
	return &c.shards[addr[common.AddressLength-1]%cacheShards]
}

// AccountShared implements SharedAccountReader.
func (c *CachedReader) AccountShared(addr common.Address) (*types.StateAccount, error) {
	s := c.shard(addr)
	s.mu.RLock()
	acct, ok := s.accounts[addr]
	s.mu.RUnlock()
	if ok {
		return acct, nil
	}
	acct, err := c.base.Account(addr)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.accounts)+len(s.storage) < cacheLimit {
		s.accounts[addr] = acct
	}
	s.mu.Unlock()
	return acct, nil
}

// Account implements state.StateReader: a copy the caller may modify.
func (c *CachedReader) Account(addr common.Address) (*types.StateAccount, error) {
	acct, err := c.AccountShared(addr)
	if acct == nil || err != nil {
		return nil, err
	}
	return acct.Copy(), nil
}

// Storage implements state.StateReader.
func (c *CachedReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	s := c.shard(addr)
	key := slotKey{addr, slot}
	s.mu.RLock()
	value, ok := s.storage[key]
	s.mu.RUnlock()
	if ok {
		return value, nil
	}
	value, err := c.base.Storage(addr, slot)
	if err != nil {
		return value, err
	}
	s.mu.Lock()
	if len(s.accounts)+len(s.storage) < cacheLimit {
		s.storage[key] = value
	}
	s.mu.Unlock()
	return value, nil
}

// Has implements state.ContractCodeReader (go-ethereum caches code itself).
func (c *CachedReader) Has(addr common.Address, codeHash common.Hash) bool {
	return c.base.Has(addr, codeHash)
}

// Code implements state.ContractCodeReader.
func (c *CachedReader) Code(addr common.Address, codeHash common.Hash) []byte {
	return c.base.Code(addr, codeHash)
}

// CodeSize implements state.ContractCodeReader.
func (c *CachedReader) CodeSize(addr common.Address, codeHash common.Hash) int {
	return c.base.CodeSize(addr, codeHash)
}
