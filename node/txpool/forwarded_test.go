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
	tx0, tx1, tx2, tx5 := legacyTx(0), legacyTx(1), legacyTx(2), legacyTx(5)
	f.add(alice, tx0)
	f.add(alice, tx1)
	f.add(alice, tx2)
	f.add(alice, legacyTx(0)) // a resend of an older nonce changes nothing
	f.add(bob, tx5)           // behind a gap while bob's pending nonce is below 5
	for _, tt := range []struct {
		name    string
		after   time.Duration
		addr    common.Address
		from    uint64 // the nonce in the pending state
		next    uint64
		hash    common.Hash
		present bool
	}{
		{"a burst in a row", 0, alice, 0, 3, tx2.Hash(), true},
		{"partly pre-confirmed", 0, alice, 2, 3, tx1.Hash(), true},
		{"all pre-confirmed and more", 0, alice, 7, 7, tx0.Hash(), true},
		{"behind a gap", 0, bob, 3, 3, tx5.Hash(), true},
		{"the gap filled", 0, bob, 5, 6, tx5.Hash(), true},
		{"never forwarded", 0, common.Address{3}, 4, 4, common.Hash{9}, false},
		{"forgotten once it must have been pre-confirmed", forwardedTTL + time.Second, alice, 0, 0, tx0.Hash(), false},
	} {
		now = time.Unix(1000, 0).Add(tt.after)
		if got := f.next(tt.addr, tt.from); got != tt.next {
			t.Errorf("%s: next(%x, %d) = %d, want %d", tt.name, tt.addr[:1], tt.from, got, tt.next)
		}
		if got := f.get(tt.hash) != nil; got != tt.present {
			t.Errorf("%s: get(%x) present %v, want %v", tt.name, tt.hash[:2], got, tt.present)
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
	nonces := 0
	for _, sent := range f.nonces {
		nonces += len(sent)
	}
	if len(f.txs) > maxForwarded || nonces > maxForwarded {
		t.Fatalf("%d transactions and %d nonces remembered, want at most %d", len(f.txs), nonces, maxForwarded)
	}
}
