package txpool_test

import (
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// Content splits the pool as geth's txpool_content does: a sender's
// executable run is pending, what waits behind a nonce gap is queued.
func TestContent(t *testing.T) {
	f := newFixture(t) // the sequencer is stopped: nothing leaves the pool
	gwei10 := big.NewInt(10 * params.GWei)
	a, b := crypto.PubkeyToAddress(f.keys[1].PublicKey), crypto.PubkeyToAddress(f.keys[2].PublicKey)
	txs := []*types.Transaction{
		f.dynamic(t, f.keys[1], 0, 21000, gwei10, nil),
		f.dynamic(t, f.keys[1], 1, 21000, gwei10, nil),
		f.dynamic(t, f.keys[1], 3, 21000, gwei10, nil), // gap at 2
		f.dynamic(t, f.keys[2], 5, 21000, gwei10, nil), // gap at 0
	}
	for _, tx := range txs {
		if err := f.pool.Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.pool.Sync(); err != nil {
		t.Fatal(err)
	}
	pending, queued := f.pool.Content()
	nonces := func(txs []*types.Transaction) []uint64 {
		out := []uint64{}
		for _, tx := range txs {
			out = append(out, tx.Nonce())
		}
		return out
	}
	for _, c := range []struct {
		name string
		got  []*types.Transaction
		want []uint64
	}{
		{"pending of a", pending[a], []uint64{0, 1}},
		{"queued of a", queued[a], []uint64{3}},
		{"pending of b", pending[b], []uint64{}},
		{"queued of b", queued[b], []uint64{5}},
	} {
		if got := nonces(c.got); !slices.Equal(got, c.want) {
			t.Errorf("%s: nonces %v, want %v", c.name, got, c.want)
		}
	}
	if len(pending) != 1 || len(queued) != 2 {
		t.Errorf("%d senders pending, %d queued; want 1 and 2", len(pending), len(queued))
	}
	p, q := f.pool.ContentFrom(a)
	if !slices.Equal(nonces(p), []uint64{0, 1}) || !slices.Equal(nonces(q), []uint64{3}) {
		t.Errorf("ContentFrom(a) = %v, %v", nonces(p), nonces(q))
	}
	p, q = f.pool.ContentFrom(common.Address{0xde, 0xad})
	if len(p) != 0 || len(q) != 0 {
		t.Errorf("ContentFrom(unknown) = %v, %v", p, q)
	}
	if sp, sq := f.pool.Stats(); sp != 2 || sq != 2 {
		t.Errorf("Stats() = %d, %d; want 2, 2 (as Content)", sp, sq)
	}
}
