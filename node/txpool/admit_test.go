package txpool_test

import (
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/txpool"
)

// TestConcurrentAddsGetTheirOwnAnswers: sends that arrive together are
// added in one batch, and each hears its own outcome: the pooled ones are
// counted by the pending nonce when their Add returns, a duplicate is
// already known, a spent nonce too low, a bad signature refused.
func TestConcurrentAddsGetTheirOwnAnswers(t *testing.T) {
	f := newFixture(t)
	fee := big.NewInt(10 * params.GWei)
	type send struct {
		tx   *types.Transaction
		want error // nil: pooled
	}
	var sends []send
	for _, key := range f.keys[1:] {
		for nonce := range uint64(4) {
			sends = append(sends, send{tx: f.dynamic(t, key, nonce, 21000, fee, nil)})
		}
	}
	dup := sends[0].tx
	sends = append(sends, send{tx: dup, want: gethpool.ErrAlreadyKnown})
	sends = append(sends, send{tx: f.dynamic(t, f.keys[0], 0, 21000, fee, nil), want: core.ErrNonceTooLow}) // sealed in the fixture's first block
	forged, err := dup.WithSignature(f.signer, append(make([]byte, 64), 1))
	if err != nil {
		t.Fatal(err)
	}
	sends = append(sends, send{tx: forged, want: gethpool.ErrInvalidSender})

	errs := make([]error, len(sends))
	var wg sync.WaitGroup
	for i, s := range sends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f.pool.Add(s.tx)
		}()
	}
	wg.Wait()
	for i, s := range sends {
		switch {
		case s.tx == dup && i > 0:
			// One of the two sends of dup pooled it, the other is told so.
			if first := errs[0]; (first == nil) == (errs[i] == nil) || !errors.Is(errors.Join(first, errs[i]), gethpool.ErrAlreadyKnown) {
				t.Errorf("the two sends of one transaction: %v and %v, want one pooled and one already known", first, errs[i])
			}
		case s.tx == dup:
		case s.want == nil && errs[i] != nil:
			t.Errorf("send %d (nonce %d): %v, want pooled", i, s.tx.Nonce(), errs[i])
		case s.want != nil && !errors.Is(errs[i], s.want):
			t.Errorf("send %d: %v, want %v", i, errs[i], s.want)
		}
	}
	for _, key := range f.keys[1:] {
		if got := f.pool.Nonce(crypto.PubkeyToAddress(key.PublicKey)); got != 4 {
			t.Errorf("pending nonce %d after four sends from nonce 0, want 4", got)
		}
	}
}

// TestAddAfterClose: a pool that is closing refuses what is sent to it,
// and closes once however often it is told to.
func TestAddAfterClose(t *testing.T) {
	f := newFixture(t)
	if err := f.pool.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.pool.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	tx := f.dynamic(t, f.keys[1], 0, 21000, big.NewInt(10*params.GWei), nil)
	if err := f.pool.Add(tx); !errors.Is(err, txpool.ErrClosed) {
		t.Errorf("Add after Close: %v, want %v", err, txpool.ErrClosed)
	}
}

func TestAddBatchFlag(t *testing.T) {
	genesis, err := chain.PreviewGenesis(common.Address{0xfa})
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := txpool.New(c, txpool.Config{AddBatch: -1}); err == nil || !strings.Contains(err.Error(), "--txpool.addbatch") {
		t.Errorf("AddBatch -1: error %v, want one that names --txpool.addbatch", err)
	}
	p, err := txpool.New(c, txpool.Config{AddBatch: 1})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
}
