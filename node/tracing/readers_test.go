package tracing

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// nullReader is a state with nothing in it.
type nullReader struct{}

func (nullReader) Account(common.Address) (*types.StateAccount, error) { return nil, nil }
func (nullReader) Storage(common.Address, common.Hash) (common.Hash, error) {
	return common.Hash{}, nil
}
func (nullReader) Has(common.Address, common.Hash) bool     { return false }
func (nullReader) Code(common.Address, common.Hash) []byte  { return nil }
func (nullReader) CodeSize(common.Address, common.Hash) int { return 0 }

// Readers opens a state once while it is within the window of the head,
// every time beyond it, and counts a state's age from the first block that
// had it.
func TestReaders(t *testing.T) {
	r := NewReaders()
	opened := 0
	open := func() (state.Reader, error) { opened++; return nullReader{}, nil }
	header := func(number uint64, root byte) *types.Header {
		return &types.Header{Number: new(big.Int).SetUint64(number), Root: common.Hash{root}}
	}
	for _, tt := range []struct {
		name       string
		number     uint64
		root       byte
		head       uint64
		wantOpened int // in all, after this lookup
	}{
		{"first trace of block 10", 10, 1, 12, 1},
		{"block 10 again", 10, 1, 40, 1},
		{"an empty block 11 with the same state", 11, 1, 40, 1},
		{"block 10 at the window's edge", 10, 1, 10 + prefixWindow, 2},
		{"block 11 past block 10's window: opened afresh", 11, 1, 10 + prefixWindow, 3},
		{"block 11 again: its own entry", 11, 1, 10 + prefixWindow, 3},
		{"another state", 20, 2, 30, 4},
	} {
		reader, err := r.Reader(header(tt.number, tt.root), tt.head, open)
		if err != nil || reader == nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if opened != tt.wantOpened {
			t.Errorf("%s: opened %d states, want %d", tt.name, opened, tt.wantOpened)
		}
	}
}
