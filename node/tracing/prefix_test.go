package tracing

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// markedState is a fresh state whose one account's nonce says which
// prefix it stands for.
func markedState(t *testing.T, mark uint64) *state.StateDB {
	t.Helper()
	db := state.NewDatabase(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil), nil)
	st, err := state.New(types.EmptyRootHash, db)
	if err != nil {
		t.Fatal(err)
	}
	st.SetNonce(sender, mark, 0)
	st.SetBalance(sender, uint256.NewInt(1), 0)
	return st
}

func TestPrefixes(t *testing.T) {
	a, b := common.Hash{0xa}, common.Hash{0xb}
	p := NewPrefixes(12 * txBytes)
	p.keep(a, 100, 2, markedState(t, 2), 2*txBytes)
	p.keep(a, 100, 5, markedState(t, 5), 5*txBytes)
	p.keep(a, 100, 5, markedState(t, 99), 5*txBytes) // kept already: ignored
	p.keep(a, 100, 0, markedState(t, 0), 0)          // the block's start is its parent's state: not kept
	tests := []struct {
		block    common.Hash
		n        int
		wantNext int
	}{
		{a, 1, 0}, {a, 2, 2}, {a, 4, 2}, {a, 5, 5}, {a, 9, 5}, {b, 9, 0},
	}
	for _, tt := range tests {
		st, next, _ := p.nearest(tt.block, tt.n, 100)
		if next != tt.wantNext || (st == nil) != (tt.wantNext == 0) {
			t.Fatalf("nearest(%x, %d) = %d, want %d", tt.block[:1], tt.n, next, tt.wantNext)
		}
		if st != nil && st.GetNonce(sender) != uint64(next) {
			t.Fatalf("nearest(%x, %d) gave the state marked %d", tt.block[:1], tt.n, st.GetNonce(sender))
		}
		if st != nil {
			st.SetNonce(sender, 1000, 0) // a copy: the kept state does not change
		}
	}
	if st, _, _ := p.nearest(a, 5, 100); st.GetNonce(sender) != 5 {
		t.Fatal("a trace changed a kept state")
	}
	// 7 more transactions' worth: the least recently used, a's state
	// before its transaction 2 (5 was just read), goes.
	p.keep(b, 100, 7, markedState(t, 7), 7*txBytes)
	if _, next, _ := p.nearest(a, 4, 100); next != 0 {
		t.Fatalf("a's state before 2 still kept, %d bytes in all", p.Size())
	}
	if _, next, _ := p.nearest(a, 6, 100); next != 5 {
		t.Fatal("a's state before 5, used last, was evicted")
	}
	if p.Size() != 12*txBytes {
		t.Fatalf("size %d, want %d", p.Size(), 12*txBytes)
	}
	// What is larger than the whole bound is not kept.
	p.keep(b, 100, 9, markedState(t, 9), 13*txBytes)
	if _, next, _ := p.nearest(b, 9, 100); next != 7 {
		t.Fatalf("a state over the bound was kept")
	}
	// A block 64 blocks behind the head: its state's reader may be
	// stale, and it goes.
	if st, _, _ := p.nearest(b, 9, 100+prefixWindow); st != nil || p.Size() != 5*txBytes {
		t.Fatalf("a state of a block %d behind the head was used, or kept (%d bytes kept)", prefixWindow, p.Size())
	}
	var none *Prefixes
	if st, _, _ := none.nearest(a, 5, 100); st != nil {
		t.Fatal("no cache found a state")
	}
	none.keep(a, 100, 5, markedState(t, 5), 5*txBytes)
}
