package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/stocknode/stocknode/loadtest/workload"
)

// The transactions of the transfers trace chain: -transfers (traceTxCount
// by default) token transfers of 0 tokens from the development account
// traceSender to fresh addresses, all in block 1. A transfer takes 28,518
// gas: 1,000 fit a block.
const (
	traceTxCount = 256
	traceSender  = 8
)

// traceTxs signs the transfers chain's n transactions.
func traceTxs(n int) (types.Transactions, error) {
	key := workload.DevKey(traceSender)
	signer := types.LatestSignerForChainID(big.NewInt(chainID))
	token := workload.Token
	txs := make(types.Transactions, n)
	for i := range txs {
		to := common.BigToAddress(big.NewInt(int64(0x7ace_0000 + i)))
		data := append(hexutil.MustDecode("0x"+workload.TransferSelector), common.LeftPadBytes(to[:], 32)...)
		data = append(data, make([]byte, 32)...)
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{
			ChainID: big.NewInt(chainID), Nonce: uint64(i), To: &token, Data: data, Gas: 100_000,
			GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(10 * params.GWei),
		})
		if err != nil {
			return nil, fmt.Errorf("sign traced transaction %d: %w", i, err)
		}
		txs[i] = tx
	}
	return txs, nil
}

// writeTraceChain writes block 1 of the comparison chain holding txs, in
// geth's export format, for the servers' import.
func writeTraceChain(path string, txs types.Transactions) error {
	data, err := genesisJSON()
	if err != nil {
		return err
	}
	gspec := new(core.Genesis)
	if err := json.Unmarshal(data, gspec); err != nil {
		return fmt.Errorf("comparison genesis: %w", err)
	}
	blocks, err := generateBlock(gspec, txs)
	if err != nil {
		return fmt.Errorf("build the traced block: %w", err)
	}
	var buf bytes.Buffer
	for _, b := range blocks {
		if err := rlp.Encode(&buf, b); err != nil {
			return err
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// generateBlock builds block 1 on gspec holding txs; go-ethereum's
// BlockGen.AddTx panics on a transaction that does not apply.
func generateBlock(gspec *core.Genesis, txs types.Transactions) (blocks []*types.Block, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	_, blocks, receipts := core.GenerateChainWithGenesis(gspec, beacon.New(ethash.NewFaker()), 1, func(_ int, b *core.BlockGen) {
		b.SetParentBeaconRoot(common.Hash{1})
		for _, tx := range txs {
			b.AddTx(tx)
		}
	})
	for _, r := range receipts[0] {
		if r.Status != types.ReceiptStatusSuccessful {
			return nil, fmt.Errorf("traced transaction %s failed", r.TxHash)
		}
	}
	return blocks, nil
}
