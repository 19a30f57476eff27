package rpc

import (
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// The objects here are the cold, complex results (blocks, transactions,
// receipts, logs), encoded with encoding/json in the shapes and with the
// fields current geth returns (internal/ethapi RPCMarshalBlock,
// newRPCTransaction, MarshalReceipt).

// hexUint64 is a quantity field.
type hexUint64 = hexutil.Uint64

// writeJSON appends v's JSON encoding as the result, unless it takes more
// room than the response has left. The results encoded here are bounded by
// what they describe (a block, a receipt list, a capped log list); the
// handlers of lists a client can make long stop themselves before they
// pass the room (eth_getLogs).
func (r *request) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(b) > r.room {
		return errResponseTooLarge
	}
	r.out = append(r.out, b...)
	return nil
}

// MarshalHeader is geth's RPCMarshalHeader.
func MarshalHeader(h *types.Header) map[string]any {
	fields := map[string]any{
		"number":           (*hexutil.Big)(h.Number),
		"hash":             h.Hash(),
		"parentHash":       h.ParentHash,
		"nonce":            h.Nonce,
		"mixHash":          h.MixDigest,
		"sha3Uncles":       h.UncleHash,
		"logsBloom":        h.Bloom,
		"stateRoot":        h.Root,
		"miner":            h.Coinbase,
		"difficulty":       (*hexutil.Big)(h.Difficulty),
		"extraData":        hexutil.Bytes(h.Extra),
		"gasLimit":         hexutil.Uint64(h.GasLimit),
		"gasUsed":          hexutil.Uint64(h.GasUsed),
		"timestamp":        hexutil.Uint64(h.Time),
		"transactionsRoot": h.TxHash,
		"receiptsRoot":     h.ReceiptHash,
	}
	if h.BaseFee != nil {
		fields["baseFeePerGas"] = (*hexutil.Big)(h.BaseFee)
	}
	if h.WithdrawalsHash != nil {
		fields["withdrawalsRoot"] = h.WithdrawalsHash
	}
	if h.BlobGasUsed != nil {
		fields["blobGasUsed"] = hexutil.Uint64(*h.BlobGasUsed)
	}
	if h.ExcessBlobGas != nil {
		fields["excessBlobGas"] = hexutil.Uint64(*h.ExcessBlobGas)
	}
	if h.ParentBeaconRoot != nil {
		fields["parentBeaconBlockRoot"] = h.ParentBeaconRoot
	}
	if h.RequestsHash != nil {
		fields["requestsHash"] = h.RequestsHash
	}
	return fields
}

// marshalBlock is geth's RPCMarshalBlock with transactions included.
// marshalBlock is block's JSON as geth's, its transactions naming hash as
// their block's (the pending block's PreconfHash in the Preconf view).
func marshalBlock(block *types.Block, hash common.Hash, fullTx bool, config *params.ChainConfig) map[string]any {
	fields := MarshalHeader(block.Header())
	fields["hash"] = hash
	fields["size"] = hexutil.Uint64(block.Size())
	txs := block.Transactions()
	list := make([]any, len(txs))
	for i, tx := range txs {
		if fullTx {
			list[i] = NewRPCTransaction(tx, hash, block.NumberU64(), block.Time(), uint64(i), block.BaseFee(), config)
		} else {
			list[i] = tx.Hash()
		}
	}
	fields["transactions"] = list
	uncles := block.Uncles()
	hashes := make([]common.Hash, len(uncles))
	for i, u := range uncles {
		hashes[i] = u.Hash()
	}
	fields["uncles"] = hashes
	if block.Withdrawals() != nil {
		fields["withdrawals"] = block.Withdrawals()
	}
	return fields
}

// rpcTransaction is geth's RPCTransaction.
type rpcTransaction struct {
	BlockHash           *common.Hash                 `json:"blockHash"`
	BlockNumber         *hexutil.Big                 `json:"blockNumber"`
	BlockTimestamp      *hexutil.Uint64              `json:"blockTimestamp"`
	From                common.Address               `json:"from"`
	Gas                 hexutil.Uint64               `json:"gas"`
	GasPrice            *hexutil.Big                 `json:"gasPrice"`
	GasFeeCap           *hexutil.Big                 `json:"maxFeePerGas,omitempty"`
	GasTipCap           *hexutil.Big                 `json:"maxPriorityFeePerGas,omitempty"`
	MaxFeePerBlobGas    *hexutil.Big                 `json:"maxFeePerBlobGas,omitempty"`
	Hash                common.Hash                  `json:"hash"`
	Input               hexutil.Bytes                `json:"input"`
	Nonce               hexutil.Uint64               `json:"nonce"`
	To                  *common.Address              `json:"to"`
	TransactionIndex    *hexutil.Uint64              `json:"transactionIndex"`
	Value               *hexutil.Big                 `json:"value"`
	Type                hexutil.Uint64               `json:"type"`
	Accesses            *types.AccessList            `json:"accessList,omitempty"`
	ChainID             *hexutil.Big                 `json:"chainId,omitempty"`
	BlobVersionedHashes []common.Hash                `json:"blobVersionedHashes,omitempty"`
	AuthorizationList   []types.SetCodeAuthorization `json:"authorizationList,omitempty"`
	V                   *hexutil.Big                 `json:"v"`
	R                   *hexutil.Big                 `json:"r"`
	S                   *hexutil.Big                 `json:"s"`
	YParity             *hexutil.Uint64              `json:"yParity,omitempty"`
}

// NewRPCTransaction is geth's newRPCTransaction; a zero blockHash means a
// transaction that is not in a block (pooled).
func NewRPCTransaction(tx *types.Transaction, blockHash common.Hash, number, blockTime, index uint64, baseFee *big.Int, config *params.ChainConfig) *rpcTransaction {
	signer := types.MakeSigner(config, new(big.Int).SetUint64(number), blockTime)
	from, _ := types.Sender(signer, tx)
	v, r, s := tx.RawSignatureValues()
	out := &rpcTransaction{
		Type:     hexutil.Uint64(tx.Type()),
		From:     from,
		Gas:      hexutil.Uint64(tx.Gas()),
		GasPrice: (*hexutil.Big)(tx.GasPrice()),
		Hash:     tx.Hash(),
		Input:    tx.Data(),
		Nonce:    hexutil.Uint64(tx.Nonce()),
		To:       tx.To(),
		Value:    (*hexutil.Big)(tx.Value()),
		V:        (*hexutil.Big)(v),
		R:        (*hexutil.Big)(r),
		S:        (*hexutil.Big)(s),
	}
	if blockHash != (common.Hash{}) {
		out.BlockHash = &blockHash
		out.BlockNumber = (*hexutil.Big)(new(big.Int).SetUint64(number))
		out.BlockTimestamp = (*hexutil.Uint64)(&blockTime)
		out.TransactionIndex = (*hexutil.Uint64)(&index)
	}
	if tx.Type() == types.LegacyTxType {
		if id := tx.ChainId(); id.Sign() != 0 {
			out.ChainID = (*hexutil.Big)(id)
		}
		return out
	}
	al := tx.AccessList()
	yParity := hexutil.Uint64(v.Sign())
	out.Accesses, out.ChainID, out.YParity = &al, (*hexutil.Big)(tx.ChainId()), &yParity
	if tx.Type() == types.AccessListTxType {
		return out
	}
	out.GasFeeCap, out.GasTipCap = (*hexutil.Big)(tx.GasFeeCap()), (*hexutil.Big)(tx.GasTipCap())
	if baseFee != nil && blockHash != (common.Hash{}) {
		out.GasPrice = (*hexutil.Big)(effectiveGasPrice(tx, baseFee))
	} else {
		out.GasPrice = (*hexutil.Big)(tx.GasFeeCap())
	}
	switch tx.Type() {
	case types.BlobTxType:
		out.MaxFeePerBlobGas = (*hexutil.Big)(tx.BlobGasFeeCap())
		out.BlobVersionedHashes = tx.BlobHashes()
	case types.SetCodeTxType:
		out.AuthorizationList = tx.SetCodeAuthorizations()
	}
	return out
}

// effectiveGasPrice is min(tip + baseFee, feeCap).
func effectiveGasPrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	fee := new(big.Int).Add(tx.GasTipCap(), baseFee)
	if tx.GasFeeCapIntCmp(fee) < 0 {
		return tx.GasFeeCap()
	}
	return fee
}

// marshalReceipt is geth's MarshalReceipt.
func marshalReceipt(receipt *types.Receipt, blockHash common.Hash, number uint64, signer types.Signer, tx *types.Transaction, index int) map[string]any {
	from, _ := types.Sender(signer, tx)
	logs := receipt.Logs
	if logs == nil {
		logs = []*types.Log{}
	}
	fields := map[string]any{
		"blockHash":         blockHash,
		"blockNumber":       hexutil.Uint64(number),
		"transactionHash":   tx.Hash(),
		"transactionIndex":  hexutil.Uint64(index),
		"from":              from,
		"to":                tx.To(),
		"gasUsed":           hexutil.Uint64(receipt.GasUsed),
		"cumulativeGasUsed": hexutil.Uint64(receipt.CumulativeGasUsed),
		"contractAddress":   nil,
		"logs":              logs,
		"logsBloom":         receipt.Bloom,
		"type":              hexutil.Uint(tx.Type()),
		"effectiveGasPrice": (*hexutil.Big)(receipt.EffectiveGasPrice),
	}
	if len(receipt.PostState) > 0 {
		fields["root"] = hexutil.Bytes(receipt.PostState)
	} else {
		fields["status"] = hexutil.Uint(receipt.Status)
	}
	if tx.Type() == types.BlobTxType {
		fields["blobGasUsed"] = hexutil.Uint64(receipt.BlobGasUsed)
		fields["blobGasPrice"] = (*hexutil.Big)(receipt.BlobGasPrice)
	}
	if receipt.ContractAddress != (common.Address{}) {
		fields["contractAddress"] = receipt.ContractAddress
	}
	return fields
}
