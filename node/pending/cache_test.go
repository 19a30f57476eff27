package pending

import (
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// countingReader counts the reads that reach it.
type countingReader struct {
	mapReader
	mu              sync.Mutex
	accounts, slots int
}

func (c *countingReader) Account(addr common.Address) (*types.StateAccount, error) {
	c.mu.Lock()
	c.accounts++
	c.mu.Unlock()
	return c.mapReader.Account(addr)
}

func (c *countingReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	c.mu.Lock()
	c.slots++
	c.mu.Unlock()
	return c.mapReader.Storage(addr, slot)
}

func TestCachedReader(t *testing.T) {
	a, missing := common.Address{0xa}, common.Address{0xb}
	base := &countingReader{mapReader: mapReader{
		accounts: map[common.Address]*types.StateAccount{a: account(5, nil)},
		storage:  map[common.Address]map[common.Hash]common.Hash{a: {{1}: {0x11}}},
	}}
	c := NewCachedReader(base)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				if acct, _ := c.Account(a); acct.Balance.Uint64() != 5 {
					t.Errorf("balance %d", acct.Balance.Uint64())
				}
				if acct, _ := c.Account(missing); acct != nil {
					t.Errorf("missing account read as %v", acct)
				}
				if v, _ := c.Storage(a, common.Hash{1}); v != (common.Hash{0x11}) {
					t.Errorf("slot %x", v)
				}
			}
		}()
	}
	wg.Wait()
	// Concurrent first reads may each reach the base; later ones never do.
	if base.accounts > 16 || base.slots > 8 {
		t.Fatalf("base read %d accounts and %d slots for 2 accounts and 1 slot", base.accounts, base.slots)
	}
	// Callers may modify what Account returns; the cache keeps its own.
	acct, _ := c.Account(a)
	acct.Balance.SetUint64(999)
	if again, _ := c.AccountShared(a); again.Balance.Uint64() != 5 {
		t.Fatal("a caller's change reached the cache")
	}
}
