package seqlog

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// Preconfirmations reads a block's pre-confirmations from its opening on,
// with every transaction so far, over the log's other entries, and starts
// a block opened again over.
func TestPreconfirmations(t *testing.T) {
	l := openTest(t, Config{InMemory: true})
	txs := transfers(t, 6)
	raw := rawTxs(t, txs)
	hash := func(i int) common.Hash { return txs[i].Hash() }
	mustAppend(t, l, Opened{Number: 5, Timestamp: 50})
	mustAppend(t, l, Preconfirmed{Number: 5, Index: 0, GasUsed: 21000, Transactions: raw[0:1]})
	mustAppend(t, l, Opened{Number: 6, Timestamp: 60})
	mustAppend(t, l, Preconfirmed{Number: 6, Index: 0, Transactions: raw[1:2]})
	mustAppend(t, l, Accepted{Transactions: raw[3:4]})
	mustAppend(t, l, Preconfirmed{Number: 6, Index: 1, GasUsed: 42000, Transactions: raw[2:3]})
	mustAppend(t, l, Opened{Number: 7, Timestamp: 70}) // rebuilt below
	mustAppend(t, l, Preconfirmed{Number: 7, Index: 0, Transactions: raw[3:4]})
	mustAppend(t, l, Opened{Number: 7, Timestamp: 71})
	mustAppend(t, l, Preconfirmed{Number: 7, Index: 0, Transactions: raw[4:6]})

	type got struct {
		number, index, time, gas uint64
		txs                      []common.Hash
	}
	read := func(number uint64) ([]got, error) {
		var out []got
		for p, err := range l.Preconfirmations(context.Background(), number) {
			if err != nil {
				return out, err
			}
			out = append(out, got{p.Opened.Number, p.Index, p.Opened.Timestamp, p.GasUsed, p.Transactions})
		}
		return out, nil
	}
	all := []got{
		{5, 0, 50, 21000, []common.Hash{hash(0)}},
		{6, 0, 60, 0, []common.Hash{hash(1)}},
		{6, 1, 60, 42000, []common.Hash{hash(1), hash(2)}},
		{7, 0, 70, 0, []common.Hash{hash(3)}},
		{7, 0, 71, 0, []common.Hash{hash(4), hash(5)}},
	}
	for _, tt := range []struct {
		number uint64
		want   []got
	}{{5, all}, {6, all[1:]}, {7, all[3:]}} {
		out, err := read(tt.number)
		if err != nil {
			t.Fatalf("from block %d: %v", tt.number, err)
		}
		if !slices.EqualFunc(out, tt.want, func(a, b got) bool {
			return a.number == b.number && a.index == b.index && a.time == b.time && a.gas == b.gas && slices.Equal(a.txs, b.txs)
		}) {
			t.Fatalf("from block %d:\n got %+v\nwant %+v", tt.number, out, tt.want)
		}
	}
	for _, number := range []uint64{4, 8} {
		if _, err := read(number); !errors.Is(err, ErrNotOpened) {
			t.Fatalf("from block %d, not in the log: %v, want ErrNotOpened", number, err)
		}
	}
}
