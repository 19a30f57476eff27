package main

// JSON shapes of the execution-apis schemas (src/schemas/*.yaml), built from
// go-ethereum's consensus objects. Quantities are minimal hex ("0x0", "0x1a"),
// data is even-length hex, addresses and hashes are lowercase.
//
// Where a schema leaves a field optional, the shape follows the execution-apis
// test fixtures (tests/*/*.io), the reference the hive rpc-compat simulator
// holds every client to:
//   - Block: no totalDifficulty; fork fields (baseFeePerGas, withdrawalsRoot,
//     withdrawals, blobGasUsed, excessBlobGas, parentBeaconBlockRoot,
//     requestsHash) exactly when the header carries them.
//   - TransactionInfo: blockTimestamp; typed transactions carry both yParity
//     and v; legacy EIP-155 transactions carry chainId; to is null for a
//     creation; gasPrice of a 1559-style transaction is the effective price.
//   - ReceiptInfo: no blockTimestamp of its own; blobGasUsed/blobGasPrice only
//     for blob transactions; contractAddress null unless a creation.
//   - Log: blockTimestamp, removed false.

import (
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

type obj = map[string]any

func q(v uint64) string            { return hexutil.EncodeUint64(v) }
func qb(v *big.Int) string         { return hexutil.EncodeBig(v) }
func qu(v *uint256.Int) string     { return hexutil.EncodeBig(v.ToBig()) }
func data(b []byte) string         { return hexutil.Encode(b) }
func addr(a common.Address) string { return strings.ToLower(a.Hex()) }
func hash(h common.Hash) string    { return h.Hex() }

func addrOrNull(a *common.Address) any {
	if a == nil {
		return nil
	}
	return addr(*a)
}

func hashes(hs []common.Hash) []any {
	out := make([]any, 0, len(hs))
	for _, h := range hs {
		out = append(out, hash(h))
	}
	return out
}

func accessListJSON(al types.AccessList) []any {
	out := make([]any, 0, len(al))
	for _, t := range al {
		out = append(out, obj{"address": addr(t.Address), "storageKeys": hashes(t.StorageKeys)})
	}
	return out
}

// blockJSON is the schema's Block object.
func (g *gen) blockJSON(b *types.Block, full bool) obj {
	h := b.Header()
	out := obj{
		"hash":             hash(b.Hash()),
		"parentHash":       hash(h.ParentHash),
		"sha3Uncles":       hash(h.UncleHash),
		"miner":            addr(h.Coinbase),
		"stateRoot":        hash(h.Root),
		"transactionsRoot": hash(h.TxHash),
		"receiptsRoot":     hash(h.ReceiptHash),
		"logsBloom":        data(h.Bloom[:]),
		"difficulty":       qb(h.Difficulty),
		"number":           qb(h.Number),
		"gasLimit":         q(h.GasLimit),
		"gasUsed":          q(h.GasUsed),
		"timestamp":        q(h.Time),
		"extraData":        data(h.Extra),
		"mixHash":          hash(h.MixDigest),
		"nonce":            data(h.Nonce[:]),
		"size":             q(b.Size()),
		"uncles":           []any{},
	}
	if h.BaseFee != nil {
		out["baseFeePerGas"] = qb(h.BaseFee)
	}
	if h.WithdrawalsHash != nil {
		out["withdrawalsRoot"] = hash(*h.WithdrawalsHash)
		ws := make([]any, 0, len(b.Withdrawals()))
		for _, w := range b.Withdrawals() {
			ws = append(ws, obj{"index": q(w.Index), "validatorIndex": q(w.Validator), "address": addr(w.Address), "amount": q(w.Amount)})
		}
		out["withdrawals"] = ws
	}
	if h.BlobGasUsed != nil {
		out["blobGasUsed"] = q(*h.BlobGasUsed)
	}
	if h.ExcessBlobGas != nil {
		out["excessBlobGas"] = q(*h.ExcessBlobGas)
	}
	if h.ParentBeaconRoot != nil {
		out["parentBeaconBlockRoot"] = hash(*h.ParentBeaconRoot)
	}
	if h.RequestsHash != nil {
		out["requestsHash"] = hash(*h.RequestsHash)
	}
	txs := make([]any, 0, len(b.Transactions()))
	for i, tx := range b.Transactions() {
		if full {
			txs = append(txs, g.txJSON(b, i))
		} else {
			txs = append(txs, hash(tx.Hash()))
		}
	}
	out["transactions"] = txs
	return out
}

// txJSON is the schema's TransactionInfo for transaction i of b.
func (g *gen) txJSON(b *types.Block, i int) obj {
	tx := b.Transactions()[i]
	v, r, s := tx.RawSignatureValues()
	out := obj{
		"blockHash":        hash(b.Hash()),
		"blockNumber":      q(b.NumberU64()),
		"blockTimestamp":   q(b.Time()),
		"from":             addr(g.sender(tx)),
		"hash":             hash(tx.Hash()),
		"transactionIndex": q(uint64(i)),
		"type":             q(uint64(tx.Type())),
		"nonce":            q(tx.Nonce()),
		"to":               addrOrNull(tx.To()),
		"gas":              q(tx.Gas()),
		"value":            qb(tx.Value()),
		"input":            data(tx.Data()),
		"v":                qb(v),
		"r":                qb(r),
		"s":                qb(s),
	}
	switch tx.Type() {
	case types.LegacyTxType:
		out["gasPrice"] = qb(tx.GasPrice())
		if tx.Protected() {
			out["chainId"] = qb(tx.ChainId())
		}
	case types.AccessListTxType:
		out["gasPrice"] = qb(tx.GasPrice())
		out["chainId"] = qb(tx.ChainId())
		out["accessList"] = accessListJSON(tx.AccessList())
		out["yParity"] = qb(v)
	default: // 1559-style fee market: dynamic fee, blob, set code
		out["gasPrice"] = qb(effectiveGasPrice(tx, b.BaseFee()))
		out["maxFeePerGas"] = qb(tx.GasFeeCap())
		out["maxPriorityFeePerGas"] = qb(tx.GasTipCap())
		out["chainId"] = qb(tx.ChainId())
		out["accessList"] = accessListJSON(tx.AccessList())
		out["yParity"] = qb(v)
		if tx.Type() == types.BlobTxType {
			out["maxFeePerBlobGas"] = qb(tx.BlobGasFeeCap())
			out["blobVersionedHashes"] = hashes(tx.BlobHashes())
		}
		if tx.Type() == types.SetCodeTxType {
			auths := []any{}
			for _, a := range tx.SetCodeAuthorizations() {
				auths = append(auths, obj{
					"chainId": qu(&a.ChainID), "address": addr(a.Address), "nonce": q(a.Nonce),
					"yParity": q(uint64(a.V)), "r": qu(&a.R), "s": qu(&a.S),
				})
			}
			out["authorizationList"] = auths
		}
	}
	return out
}

// effectiveGasPrice is what the sender paid per gas: the gas price of a
// legacy or access-list transaction, else baseFee + min(tip cap, fee cap - baseFee).
func effectiveGasPrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	switch tx.Type() {
	case types.LegacyTxType, types.AccessListTxType:
		return tx.GasPrice()
	}
	tip := new(big.Int).Sub(tx.GasFeeCap(), baseFee)
	if tip.Cmp(tx.GasTipCap()) > 0 {
		tip = tx.GasTipCap()
	}
	return tip.Add(tip, baseFee)
}

// logJSON is the schema's Log object.
func logJSON(b *types.Block, txIndex int, logIndex uint, l *types.Log) obj {
	return obj{
		"address":          addr(l.Address),
		"topics":           hashes(l.Topics),
		"data":             data(l.Data),
		"blockNumber":      q(b.NumberU64()),
		"blockHash":        hash(b.Hash()),
		"blockTimestamp":   q(b.Time()),
		"transactionHash":  hash(b.Transactions()[txIndex].Hash()),
		"transactionIndex": q(uint64(txIndex)),
		"logIndex":         q(uint64(logIndex)),
		"removed":          false,
	}
}

// receiptJSON is the schema's ReceiptInfo for transaction i of b.
func (g *gen) receiptJSON(b *types.Block, i int) obj {
	tx := b.Transactions()[i]
	rs := g.receipts[b.NumberU64()]
	r := rs[i]
	var cumulativeBefore uint64
	var logIndex uint
	for j := 0; j < i; j++ {
		logIndex += uint(len(rs[j].Logs))
		cumulativeBefore = rs[j].CumulativeGasUsed
	}
	logs := make([]any, 0, len(r.Logs))
	for _, l := range r.Logs {
		logs = append(logs, logJSON(b, i, logIndex, l))
		logIndex++
	}
	out := obj{
		"type":              q(uint64(tx.Type())),
		"transactionHash":   hash(tx.Hash()),
		"transactionIndex":  q(uint64(i)),
		"blockHash":         hash(b.Hash()),
		"blockNumber":       q(b.NumberU64()),
		"from":              addr(g.sender(tx)),
		"to":                addrOrNull(tx.To()),
		"cumulativeGasUsed": q(r.CumulativeGasUsed),
		"gasUsed":           q(r.CumulativeGasUsed - cumulativeBefore),
		"contractAddress":   nil,
		"logs":              logs,
		"logsBloom":         data(r.Bloom[:]),
		"status":            q(r.Status),
		"effectiveGasPrice": qb(effectiveGasPrice(tx, b.BaseFee())),
	}
	if tx.To() == nil {
		out["contractAddress"] = addr(createAddress(g.sender(tx), tx.Nonce()))
	}
	if tx.Type() == types.BlobTxType {
		out["blobGasUsed"] = q(tx.BlobGas())
		out["blobGasPrice"] = qb(g.blobBaseFee(b.Header()))
	}
	return out
}
