package rpc

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/pending"
)

// A pre-confirmed transaction, as Base's Flashblocks RPC answers for one
// (docs.base.org, Flashblocks API; base/node-reth's flashblocks RPC), in
// the Preconf view: it is in the pending block, at its index, with a
// receipt, before that block is sealed. The block has no hash of its own
// yet: its transactions, receipts and logs carry its PreconfHash, by
// which eth_getBlockByHash finds it (the pending block while it is built,
// the sealed block after), so that ethers' receipt.getBlock() and viem's
// getBlock({blockHash}) work. Everything else is what the sealed block
// will say: the sequencer seals a block with the transactions it
// pre-confirmed, in their order, so number, index, status, gas and logs do
// not change; only the block hash does, at the seal.

// preconfirmedTx is the transaction object of the pending block's i-th
// transaction: the block's PreconfHash, number and the transaction's
// index, and the effective gas price under the pending block's base fee.
func preconfirmedTx(p *pending.Block, i int, config *params.ChainConfig) *rpcTransaction {
	tx, h := p.Transactions[i], p.Header
	out := NewRPCTransaction(tx, common.Hash{}, h.Number.Uint64(), h.Time, 0, nil, config)
	index, time, hash := hexutil.Uint64(i), hexutil.Uint64(h.Time), p.PreconfHash()
	out.BlockHash = &hash
	out.BlockNumber = (*hexutil.Big)(new(big.Int).Set(h.Number))
	out.TransactionIndex, out.BlockTimestamp = &index, &time
	out.GasPrice = (*hexutil.Big)(paidGasPrice(tx, h.BaseFee))
	return out
}

// preconfirmedReceipt is the receipt of the pending block's i-th
// transaction.
func preconfirmedReceipt(p *pending.Block, i int, config *params.ChainConfig) map[string]any {
	tx, receipt, h := p.Transactions[i], p.Receipts[i], p.Header
	signer := types.MakeSigner(config, h.Number, h.Time)
	hash := p.PreconfHash()
	fields := marshalReceipt(receipt, hash, h.Number.Uint64(), signer, tx, i)
	fields["logs"] = PreconfirmedLogs(receipt.Logs, hash)
	// The builder's receipts leave it unset, as go-ethereum's do before a
	// block is stored.
	fields["effectiveGasPrice"] = (*hexutil.Big)(paidGasPrice(tx, h.BaseFee))
	return fields
}

// PreconfirmedLogs are logs with blockHash as their block's hash (the
// pending block's PreconfHash, or zero): go-ethereum stamps a log with the
// hash of the header it was executed under, which for a block being built
// is no block's.
func PreconfirmedLogs(logs []*types.Log, blockHash common.Hash) []*types.Log {
	out := make([]*types.Log, len(logs))
	for i, l := range logs {
		c := *l
		c.BlockHash = blockHash
		out[i] = &c
	}
	return out
}

// paidGasPrice is the price per gas tx pays in a block with baseFee.
func paidGasPrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return tx.GasPrice()
	}
	return effectiveGasPrice(tx, baseFee)
}

// flashblockTx is the full newFlashblockTransactions notification (Base's
// TransactionWithLogs): the pre-confirmed transaction object with its
// receipt's fields beside it, not nested.
type flashblockTx struct {
	*rpcTransaction
	GasUsed           hexutil.Uint64  `json:"gasUsed"`
	Status            hexutil.Uint64  `json:"status"`
	CumulativeGasUsed hexutil.Uint64  `json:"cumulativeGasUsed"`
	ContractAddress   *common.Address `json:"contractAddress"`
	LogsBloom         types.Bloom     `json:"logsBloom"`
	Logs              []*types.Log    `json:"logs"`
}

// FlashblockTransaction is the pending block's i-th transaction as a full
// newFlashblockTransactions notification, ready to encode.
func FlashblockTransaction(p *pending.Block, i int, config *params.ChainConfig) any {
	receipt := p.Receipts[i]
	out := &flashblockTx{
		rpcTransaction:    preconfirmedTx(p, i, config),
		GasUsed:           hexutil.Uint64(receipt.GasUsed),
		Status:            hexutil.Uint64(receipt.Status),
		CumulativeGasUsed: hexutil.Uint64(receipt.CumulativeGasUsed),
		LogsBloom:         receipt.Bloom,
		Logs:              PreconfirmedLogs(receipt.Logs, p.PreconfHash()),
	}
	if receipt.ContractAddress != (common.Address{}) {
		addr := receipt.ContractAddress
		out.ContractAddress = &addr
	}
	return out
}
