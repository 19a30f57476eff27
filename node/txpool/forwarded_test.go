package txpool

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

func legacyTx(nonce uint64) *types.Transaction {
	return types.NewTx(&types.LegacyTx{Nonce: nonce, Gas: 21000, GasPrice: big.NewInt(1)})
}

func TestForwardedRemembers(t *testing.T) {
	now := time.Unix(1000, 0)
	f := newForwarded()
	f.now = func() time.Time { return now }
	alice, bob := common.Address{1}, common.Address{2}
	tx0, tx1, tx5 := legacyTx(0), legacyTx(1), legacyTx(5)
	f.add(alice, tx0)
	f.add(alice, tx1)
	f.add(alice, legacyTx(0)) // a resend of an older nonce does not lower it
	f.add(bob, tx5)
	for _, tt := range []struct {
		after   time.Duration
		addr    common.Address
		next    uint64
		hash    common.Hash
		present bool
	}{
		{0, alice, 2, tx1.Hash(), true},
		{0, bob, 6, tx5.Hash(), true},
		{0, common.Address{3}, 0, common.Hash{9}, false},
		{forwardedTTL + time.Second, alice, 0, tx0.Hash(), false}, // forgotten once it must have been pre-confirmed
	} {
		now = time.Unix(1000, 0).Add(tt.after)
		if got := f.next(tt.addr); got != tt.next {
			t.Errorf("after %v: next(%x) = %d, want %d", tt.after, tt.addr[:1], got, tt.next)
		}
		if got := f.get(tt.hash) != nil; got != tt.present {
			t.Errorf("after %v: get(%x) present %v, want %v", tt.after, tt.hash[:2], got, tt.present)
		}
	}
}

// A flood of forwards within the TTL stays bounded.
func TestForwardedBounded(t *testing.T) {
	f := newForwarded()
	for i := range 3 * maxForwarded {
		var a common.Address
		a[0], a[1], a[2] = byte(i), byte(i>>8), byte(i>>16)
		f.add(a, legacyTx(uint64(i)))
	}
	if len(f.txs) > maxForwarded || len(f.nonce) > maxForwarded {
		t.Fatalf("%d transactions and %d nonces remembered, want at most %d", len(f.txs), len(f.nonce), maxForwarded)
	}
}
