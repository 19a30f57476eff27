package pending

import (
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
)

// TestAssembled: a pending block is assembled once, with the roots and
// bloom its transactions and receipts give, and every reader, concurrent
// or later, shares that block.
func TestAssembled(t *testing.T) {
	header := &types.Header{Number: big.NewInt(7), Difficulty: new(big.Int), GasLimit: 30_000_000}
	var txs types.Transactions
	var receipts types.Receipts
	for i := range 3 {
		txs = append(txs, types.NewTx(&types.LegacyTx{Nonce: uint64(i), Gas: 21_000, To: &common.Address{1}}))
		receipts = append(receipts, &types.Receipt{Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: uint64(i+1) * 21_000,
			Logs: []*types.Log{{Address: common.Address{byte(i)}}}})
	}
	b := &Block{Header: header, Transactions: txs, Receipts: receipts}
	want := types.NewBlock(header, &types.Body{Transactions: txs}, receipts, trie.NewStackTrie(nil))

	got := make([]*types.Block, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = b.Assembled() }()
	}
	wg.Wait()
	for i, block := range got {
		if block != got[0] {
			t.Fatalf("reader %d got a block of its own", i)
		}
	}
	if b.Assembled() != got[0] {
		t.Fatal("a later reader got a block of its own")
	}
	if block := got[0]; block.Hash() != want.Hash() || block.TxHash() != want.TxHash() || block.ReceiptHash() != want.ReceiptHash() || block.Bloom() != want.Bloom() {
		t.Errorf("assembled block %s (tx root %s, receipt root %s), want %s (%s, %s)", block.Hash(), block.TxHash(), block.ReceiptHash(), want.Hash(), want.TxHash(), want.ReceiptHash())
	}
}
