package chaintest

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/pending"
)

// TestSendSealsAndStops: sent transactions are sealed in order, and after
// Stop the chain no longer grows.
func TestSendSealsAndStops(t *testing.T) {
	e := New(t, Config{BlockTime: 20 * time.Millisecond})
	if s := e.Store.Load(); s == nil || s.Head.NumberU64() != 0 {
		t.Fatalf("before Run: snapshot %v, want the genesis published", s)
	}
	e.Run()
	to := e.Addr(1)
	first := e.Send(0, &to, big.NewInt(1), params.TxGas, nil)
	second := e.Send(0, &to, big.NewInt(2), params.TxGas, nil)
	if first.Nonce() != 0 || second.Nonce() != 1 {
		t.Fatalf("nonces %d, %d, want 0, 1", first.Nonce(), second.Nonce())
	}
	e.Settle()
	if n := e.WaitSealed(second); n == 0 {
		t.Fatalf("sealed in block %d", n)
	}
	e.Stop()
	e.Stop()
	head := e.Chain.Head().Number.Uint64()
	time.Sleep(100 * time.Millisecond)
	if now := e.Chain.Head().Number.Uint64(); now != head {
		t.Errorf("head moved from %d to %d after Stop", head, now)
	}
	e.WaitFor("any snapshot", func(*pending.Snapshot) bool { return true })
}
