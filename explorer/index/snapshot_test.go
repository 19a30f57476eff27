package index

import (
	"context"
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/vfs"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// A snapshot keeps reading the blocks it was taken at while the index
// goes on: counts, histories, tokens and holders all stop at Indexed.
func TestSnapshotStaysAtItsBlock(t *testing.T) {
	s := newSynth(t, 2)
	a, b := s.addr(0), s.addr(1)
	token, late := common.Address{0x77}, common.Address{0x78}
	s.add(spec{from: 0, to: &b, logs: []*types.Log{transferLog(token, a, b, 5)}})
	s.add(spec{from: 1, to: &a})
	x := s.index(vfs.NewMem(), "")

	snap, err := x.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	s.add(spec{from: 1, to: &a, logs: []*types.Log{transferLog(late, b, a, 6)}}, spec{from: 0, to: &b})
	if err := x.catchUp(context.Background()); err != nil {
		t.Fatal(err)
	}

	if n, ok := snap.Indexed(); !ok || n != 2 {
		t.Errorf("snapshot indexed %d, %v; want 2", n, ok)
	}
	tests := []struct {
		name       string
		read       func(readsAPI) (int, error)
		snap, live int
	}{
		{"transactions of a", func(r readsAPI) (int, error) { txs, _, err := r.Transactions(a, Cursor{}, 0); return len(txs), err }, 2, 4},
		{"transfers of a", func(r readsAPI) (int, error) { trs, _, err := r.Transfers(a, Cursor{}, 0); return len(trs), err }, 1, 2},
		{"count of a's transactions", func(r readsAPI) (int, error) { c, err := r.Counts(a); return int(c.Txs), err }, 2, 4},
		{"count of a's transfers", func(r readsAPI) (int, error) { c, err := r.Counts(a); return int(c.Transfers), err }, 1, 2},
		{"tokens of a", func(r readsAPI) (int, error) { ts, err := r.Tokens(a, common.Address{}, 0); return len(ts), err }, 1, 2},
		{"holders of the late token", func(r readsAPI) (int, error) { hs, err := r.Holders(late, common.Address{}, 0); return len(hs), err }, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := tt.read(snap); err != nil || got != tt.snap {
				t.Errorf("through the snapshot: %d, %v; want %d", got, err, tt.snap)
			}
			if got, err := tt.read(x); err != nil || got != tt.live {
				t.Errorf("through the index: %d, %v; want %d", got, err, tt.live)
			}
		})
	}
}

// readsAPI is what Index and Snapshot both read.
type readsAPI = interface {
	Transactions(common.Address, Cursor, int) ([]Tx, Cursor, error)
	Transfers(common.Address, Cursor, int) ([]Transfer, Cursor, error)
	Counts(common.Address) (Counts, error)
	Tokens(common.Address, common.Address, int) ([]common.Address, error)
	Holders(common.Address, common.Address, int) ([]common.Address, error)
}

func TestSnapshotOfEmptyAndClosedIndex(t *testing.T) {
	s := newSynth(t, 1)
	x, err := open(Config{}, vfs.NewMem(), s, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	snap, err := x.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := snap.Indexed(); ok {
		t.Errorf("an empty index's snapshot holds block %d", n)
	}
	if err := snap.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Snapshot(); !errors.Is(err, ErrClosed) {
		t.Errorf("snapshot of a closed index: %v", err)
	}
}
