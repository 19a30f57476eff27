package app

import (
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

type announced struct{ txs []common.Hash }

func (a *announced) NewTransactions(txs []*types.Transaction) {
	for _, tx := range txs {
		a.txs = append(a.txs, tx.Hash())
	}
}

// A replica announces each pre-confirmed transaction once, as the
// pre-confirmation that added it is published, and starts over with each
// block.
func TestPreconfirmedTxsAnnouncedOnce(t *testing.T) {
	txs := make([]*types.Transaction, 5)
	for i := range txs {
		txs[i] = types.NewTx(&types.LegacyTx{Nonce: uint64(i), Gas: 21000, GasPrice: big.NewInt(1)})
	}
	snap := func(number int64, n int) *pending.Snapshot {
		return &pending.Snapshot{Pending: &pending.Block{Header: &types.Header{Number: big.NewInt(number)}, Transactions: txs[:n]}}
	}
	a := new(announced)
	l := &preconfirmedTxs{hub: a}
	for _, s := range []*pending.Snapshot{snap(7, 0), snap(7, 2), snap(7, 2), snap(7, 3), snap(8, 0), snap(8, 1), snap(9, 2)} {
		l.Preconfirmed(s)
	}
	want := []common.Hash{txs[0].Hash(), txs[1].Hash(), txs[2].Hash(), txs[0].Hash(), txs[0].Hash(), txs[1].Hash()}
	if !slices.Equal(a.txs, want) {
		t.Fatalf("announced %v, want %v", a.txs, want)
	}
}
