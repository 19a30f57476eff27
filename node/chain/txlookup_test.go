package chain_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/chaintest"
)

// TestCanonicalTx: a sealed transaction is found with its block and index,
// and not beyond the limit asked for, and an unknown hash is not.
func TestCanonicalTx(t *testing.T) {
	e := chaintest.New(t, chaintest.Config{})
	e.Run()
	defer e.Stop()
	to := common.Address{0xb0}
	first := e.Send(0, &to, big.NewInt(1), params.TxGas, nil)
	second := e.Send(1, &to, big.NewInt(2), params.TxGas, nil)
	e.Settle()
	head := e.Chain.Head().Number.Uint64()
	for _, want := range []common.Hash{first.Hash(), second.Hash()} {
		tx, block, index := e.Chain.CanonicalTx(want, head)
		if tx == nil || tx.Hash() != want {
			t.Fatalf("%s: not found", want)
		}
		if got := block.Transactions()[index].Hash(); got != want || e.Chain.BlockChain().GetCanonicalHash(block.NumberU64()) != block.Hash() {
			t.Fatalf("%s: block %d index %d holds %s, or is not canonical", want, block.NumberU64(), index, got)
		}
		if tx, _, _ := e.Chain.CanonicalTx(want, block.NumberU64()-1); tx != nil {
			t.Fatalf("%s: found below its block %d", want, block.NumberU64())
		}
	}
	if tx, _, _ := e.Chain.CanonicalTx(common.Hash{1}, head); tx != nil {
		t.Fatal("found an unknown hash")
	}
}
