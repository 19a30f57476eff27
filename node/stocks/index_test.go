package stocks

import (
	"context"
	"io"
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
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

// TestIndexFollowsTheChain runs a preview chain that issues the example
// tokens, then pauses and mints one: the index lists the tokens as they
// stand and re-reads only the token that changed.
func TestIndexFollowsTheChain(t *testing.T) {
	genesis, err := chain.PreviewGenesis(common.Address{0xfa})
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis, Rules: chain.Rules{MinBaseFee: chain.PreviewMinBaseFee}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pool, err := txpool.New(c, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := new(pending.Store)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	seq, err := sequencer.New(sequencer.Config{BlockTime: 50 * time.Millisecond, PreconfInterval: 50 * time.Millisecond, GasCeil: chain.PreviewGasLimit}, c, pool, store, log)
	if err != nil {
		t.Fatal(err)
	}
	index := New(c, store, contracts.FactoryAddress, log)
	seq.SetListener(index)

	issuer := chain.ExampleIssuerKey()
	holder := common.Address{0x01}
	txs, err := preview.Transactions(c.Config().ChainID, issuer, []common.Address{holder})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if err := pool.Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 2)
	go func() { done <- seq.Run(ctx) }()
	go func() { done <- index.Run(ctx) }()

	view := waitView(t, index, func(v *View) bool { return len(v.Tokens) == len(preview.Examples()) })
	for i, e := range preview.Examples() {
		tok := view.Tokens[i]
		wantSupply := new(big.Int).Mul(big.NewInt(2*e.Supply), big.NewInt(params.Ether))
		if tok.Symbol != e.Symbol || tok.Name != e.Name || tok.ISIN != e.ISIN || tok.Decimals != 18 || tok.TotalSupply.Cmp(wantSupply) != 0 {
			t.Errorf("token %d: %+v, want %s %q %s supply %s", i, tok, e.Symbol, e.Name, e.ISIN, wantSupply)
		}
		if view.Token(tok.Address) != tok || tok.Address != contracts.B20Address(contracts.VariantAsset, crypto.PubkeyToAddress(issuer.PublicKey), preview.Salt(e)) {
			t.Errorf("token %d at %s: lookup or predicted address differ", i, tok.Address)
		}
	}
	view = waitView(t, index, func(v *View) bool { return v.Tokens[1].Multiplier.Cmp(big.NewInt(15e17)) == 0 })

	// Pause and mint the last example: only it is read again.
	last := view.Tokens[2]
	asset := contracts.MustLoad(contracts.B20Asset).ABI
	pause, _ := asset.Pack("pause", []uint8{contracts.FeatureTransfer})
	mint, _ := asset.Pack("mint", holder, big.NewInt(7))
	signer := types.LatestSignerForChainID(c.Config().ChainID)
	for i, data := range [][]byte{pause, mint} {
		tx, err := types.SignNewTx(issuer, signer, &types.DynamicFeeTx{ChainID: c.Config().ChainID, Nonce: uint64(len(txs) + i),
			GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: new(big.Int), Gas: 500_000, To: &last.Address, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		if err := pool.Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	after := waitView(t, index, func(v *View) bool {
		return len(v.Tokens[2].PausedFeatures) == 1 && v.Tokens[2].TotalSupply.Cmp(new(big.Int).Add(last.TotalSupply, big.NewInt(7))) == 0
	})
	if after.Tokens[0] != view.Tokens[0] || after.Tokens[1] != view.Tokens[1] {
		t.Error("tokens that logged nothing were read again")
	}
	cancel()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
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
