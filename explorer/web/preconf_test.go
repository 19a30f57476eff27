package web

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/pending"
)

// A transaction shows as in pool, then pre-confirmed with its pre-confirmed
// receipt (on its page, the home page and its sender's page), then sealed.
func TestPreconfirmedThenSealed(t *testing.T) {
	// Blocks long enough that a pre-confirmed transaction stays so while
	// the test reads its pages.
	e := newEnv(t, DefaultConfig(), 3*time.Second, 20*time.Millisecond)
	dev2 := e.Addr(2)

	gapped := e.Sign(0, 5, &dev2, big.NewInt(1), params.TxGas, nil) // nonces 0..4 missing: it waits in the pool
	// Pooled directly, not by Add: the next transaction Sent takes nonce 0.
	if err := e.Pool.Add(gapped); err != nil {
		t.Fatal(err)
	}
	body := e.page("/tx/" + gapped.Hash().Hex())
	wantAll(t, "pooled tx", body, `data-tx-status="pool"`, "in pool")

	tx := e.Send(0, &dev2, big.NewInt(7e17), params.TxGas, nil)
	snap := e.WaitFor("tx pre-confirmed", func(s *pending.Snapshot) bool {
		for _, p := range s.Pending.Transactions {
			if p.Hash() == tx.Hash() {
				return true
			}
		}
		return false
	})
	number := snap.Pending.Header.Number.Uint64()
	hash := tx.Hash().Hex()
	body = e.page("/tx/" + hash)
	if e.Store.Load().Head.NumberU64() >= number {
		t.Skip("the block sealed before the page was read: the machine is too slow for this test")
	}
	wantAll(t, "pre-confirmed tx", body, `data-tx-status="preconfirmed"`, `data-preconfirmed="true"`, "pre-confirmed", `id="tx-fee"`, "0.7 ETH")
	home := e.page("/")
	pre := within(t, home, "preconfirmed-txs", "</tbody>")
	wantAll(t, "home's pre-confirmed list", pre, `data-tx-hash="`+hash+`" data-preconfirmed="true"`)
	wantAll(t, "sender's page", within(t, e.page("/address/"+e.Addr(0).Hex()), "address-txs", "</tbody>"), `data-tx-hash="`+hash+`" data-preconfirmed="true"`, "pre-confirmed")

	sealed := e.WaitSealed(tx)
	if sealed != number {
		t.Errorf("sealed in block %d, pre-confirmed for %d", sealed, number)
	}
	body = e.page("/tx/" + hash)
	wantAll(t, "sealed tx", body, `data-tx-status="sealed"`, `id="confirmations"`)
	// The home page's lists follow the sequencer's listener, which may
	// take in the block a moment after WaitSealed saw it sealed.
	want := `data-tx-hash="` + hash + `" data-preconfirmed="false"`
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		home = e.page("/")
		if strings.Contains(within(t, home, "latest-txs", "</tbody>"), want) || time.Now().After(deadline) {
			break
		}
	}
	wantAll(t, "home's latest transactions", within(t, home, "latest-txs", "</tbody>"), want)
	if strings.Contains(within(t, home, "preconfirmed-txs", "</tbody>"), hash) {
		t.Error("the sealed transaction is still listed as pre-confirmed")
	}
}
