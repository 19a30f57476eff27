package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

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

// The traced transactions: traceTxCount LoadToken transfers of 0 tokens
// from the development account traceSender to fresh addresses. The flood
// funds from the first workload.FloodFunders accounts and checkState reads
// the last one, so neither sees them; a transfer of 0 changes no balance
// the checks read.
const (
	traceTxCount = 256
	traceSender  = 8
)

// prepareTrace signs the traced transactions and writes the block geth
// imports and the hashes loadtest traces into the work directory.
func prepareTrace(cfg *config) error {
	txs, err := traceTxs()
	if err != nil {
		return err
	}
	cfg.traceTxs = txs
	cfg.traceChain = filepath.Join(cfg.work, "trace-chain.rlp")
	cfg.traceHashes = filepath.Join(cfg.work, "trace-hashes.txt")
	if err := writeTraceChain(cfg.traceChain, txs); err != nil {
		return err
	}
	return writeHashes(cfg.traceHashes, txs)
}

// setupTrace puts the traced transactions into srv's chain (geth imported
// them at start; the others are sent them) and checks a trace; a failure
// is recorded in sr.Checks["trace"] and leaves the trace workloads out.
func setupTrace(cfg config, sr *serverResult, srv *server) bool {
	err := error(nil)
	if sr.Name != "geth" {
		err = sendTraceTxs(srv.url, cfg.traceTxs)
	}
	if err == nil {
		err = checkTrace(srv.url, cfg.traceTxs)
	}
	if err != nil {
		logf("%s: the trace workloads are left out: %v", sr.Name, err)
		sr.Checks["trace"] = err.Error()
		return false
	}
	if _, failed := sr.Checks["trace"]; !failed {
		sr.Checks["trace"] = "ok"
	}
	return true
}

// traceTxs signs the traced transactions; every server gets the same bytes,
// so every server traces the same hashes.
func traceTxs() (types.Transactions, error) {
	key := workload.DevKey(traceSender)
	signer := types.LatestSignerForChainID(big.NewInt(chainID))
	token := workload.Token
	txs := make(types.Transactions, traceTxCount)
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
// geth's export format, for `geth import`: geth seals no blocks of its own
// without a consensus client, so it gets its transactions this way.
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

// writeHashes writes txs' hashes, one per line, for loadtest -hashes.
func writeHashes(path string, txs types.Transactions) error {
	var b strings.Builder
	for _, tx := range txs {
		b.WriteString(tx.Hash().Hex())
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// sendTraceTxs sends txs to a server that seals blocks and waits until the
// last is in a block and succeeded.
func sendTraceTxs(url string, txs types.Transactions) error {
	for _, tx := range txs {
		raw, err := tx.MarshalBinary()
		if err != nil {
			return err
		}
		var hash common.Hash
		if err := rpcCall(url, &hash, "eth_sendRawTransaction", hexutil.Bytes(raw)); err != nil {
			return fmt.Errorf("send traced transaction: %w", err)
		}
	}
	return waitTraced(url, txs[len(txs)-1].Hash(), 30*time.Second)
}

// waitTraced waits until hash has a successful receipt.
func waitTraced(url string, hash common.Hash, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var receipt *struct {
			Status hexutil.Uint64 `json:"status"`
		}
		if err := rpcCall(url, &receipt, "eth_getTransactionReceipt", hash); err != nil {
			return err
		}
		if receipt != nil {
			if receipt.Status != 1 {
				return fmt.Errorf("traced transaction %s failed", hash)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("traced transaction %s not in a block after %v", hash, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkTrace checks a callTracer trace of the first traced transaction: a
// CALL from the sender to the token that did not fail.
func checkTrace(url string, txs types.Transactions) error {
	var frame struct {
		Type  string         `json:"type"`
		From  common.Address `json:"from"`
		To    common.Address `json:"to"`
		Error string         `json:"error"`
	}
	if err := rpcCall(url, &frame, "debug_traceTransaction", txs[0].Hash(), map[string]any{"tracer": "callTracer"}); err != nil {
		return err
	}
	if frame.Type != "CALL" || frame.From != workload.DevAddress(traceSender) || frame.To != workload.Token || frame.Error != "" {
		return fmt.Errorf("callTracer of %s: %+v, want a CALL from %s to %s without error", txs[0].Hash(), frame, workload.DevAddress(traceSender), workload.Token)
	}
	return nil
}
