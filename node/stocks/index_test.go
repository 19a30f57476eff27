package stocks

import (
	"bytes"
	"context"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/chaintest"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
)

// TestIndexFollowsTheChain runs a preview chain that issues the example
// tokens, then pauses and mints one: the index lists the tokens as they
// stand and re-reads only the token that changed.
func TestIndexFollowsTheChain(t *testing.T) {
	e := chaintest.New(t, chaintest.Config{})
	index := New(e.Chain, e.Store, contracts.FactoryAddress, chaintest.Quiet())

	issuer := chain.ExampleIssuerKey()
	holder := common.Address{0x01}
	txs, err := preview.Transactions(e.ChainID, issuer, []common.Address{holder})
	if err != nil {
		t.Fatal(err)
	}
	e.Add(txs...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- index.Run(ctx) }()
	e.Run(index)

	view := waitView(t, index, func(v *View) bool { return len(v.Tokens) == len(preview.Examples()) })
	for i, ex := range preview.Examples() {
		tok := view.Tokens[i]
		wantSupply := new(big.Int).Mul(big.NewInt(2*ex.Supply), big.NewInt(params.Ether))
		if tok.Symbol != ex.Symbol || tok.Name != ex.Name || tok.ISIN != ex.ISIN || tok.Decimals != 18 || tok.TotalSupply.Cmp(wantSupply) != 0 {
			t.Errorf("token %d: %+v, want %s %q %s supply %s", i, tok, ex.Symbol, ex.Name, ex.ISIN, wantSupply)
		}
		if view.Token(tok.Address) != tok || tok.Address != contracts.B20Address(contracts.VariantAsset, crypto.PubkeyToAddress(issuer.PublicKey), preview.Salt(ex)) {
			t.Errorf("token %d at %s: lookup or predicted address differ", i, tok.Address)
		}
	}
	view = waitView(t, index, func(v *View) bool { return v.Tokens[1].Multiplier.Cmp(big.NewInt(15e17)) == 0 })

	// Pause and mint the last example: only it is read again.
	last := view.Tokens[2]
	asset := contracts.MustLoad(contracts.B20Asset).ABI
	pause, _ := asset.Pack("pause", []uint8{contracts.FeatureTransfer})
	mint, _ := asset.Pack("mint", holder, big.NewInt(7))
	for i, data := range [][]byte{pause, mint} {
		tx, err := types.SignNewTx(issuer, e.Signer, &types.DynamicFeeTx{ChainID: e.ChainID, Nonce: uint64(len(txs) + i),
			GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: new(big.Int), Gas: 500_000, To: &last.Address, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		e.Add(tx)
	}
	after := waitView(t, index, func(v *View) bool {
		return len(v.Tokens[2].PausedFeatures) == 1 && v.Tokens[2].TotalSupply.Cmp(new(big.Int).Add(last.TotalSupply, big.NewInt(7))) == 0
	})
	if after.Tokens[0] != view.Tokens[0] || after.Tokens[1] != view.Tokens[1] {
		t.Error("tokens that logged nothing were read again")
	}
	e.Stop()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func waitView(t *testing.T, index *Index, ok func(*View) bool) *View {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if v := index.View(); v != nil && ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("index view %+v did not get there in 10 s", index.View())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestShutdownIsNotBehind: a read that the shutdown's cancelled context
// cuts short is not an index behind the head, and logs no warning (an
// operator reads every WARN line of a clean stop as trouble).
func TestShutdownIsNotBehind(t *testing.T) {
	e := chaintest.New(t, chaintest.Config{})
	var logged bytes.Buffer
	index := New(e.Chain, e.Store, contracts.FactoryAddress, slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn})))
	e.Run(index)
	e.WaitFor("block 2", func(s *pending.Snapshot) bool { return s.Head.NumberU64() >= 2 })
	for range 32 { // Run's select takes the wake-up or the end at random when both are ready
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		index.current.Store(nil) // a view from genesis on: the read scans every block
		index.Notify()
		if err := index.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if logged.Len() > 0 {
		t.Fatalf("a stop logged:\n%s", logged.String())
	}
}
