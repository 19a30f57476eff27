package main

// The reference simulator's blocks as eth_simulateV1's result shows them.

import (
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
)

// simBlockJSON is a simulated block as the spec's result shows it.
func (g *gen) simBlockJSON(b *types.Block, calls []callOutcome, spec simBlock, fullTx bool) obj {
	out := g.blockJSON(b, false)
	if fullTx {
		txs := []any{}
		for i := range b.Transactions() {
			txs = append(txs, simTxJSON(b, i, spec.calls[i].from))
		}
		out["transactions"] = txs
	}
	results := []any{}
	for _, c := range calls {
		results = append(results, simCallJSON(b, c))
	}
	out["calls"] = results
	return out
}

func simCallJSON(b *types.Block, c callOutcome) obj {
	logs := []any{}
	for _, l := range c.logs {
		logs = append(logs, logJSON(b, c.txIndex, l.Index, l))
	}
	out := obj{
		"returnData": data(c.res.Return()),
		"logs":       logs,
		"gasUsed":    q(c.res.UsedGas),
		"maxUsedGas": q(c.res.MaxUsedGas),
		"status":     "0x1",
	}
	if c.res.Err == nil {
		return out
	}
	out["status"] = "0x0"
	if c.res.Err == vm.ErrExecutionReverted {
		msg := "execution reverted"
		if reason, err := abi.UnpackRevert(c.res.Revert()); err == nil {
			msg += ": " + reason
		}
		out["error"] = obj{"code": 3, "message": msg, "data": data(c.res.Revert())}
	} else {
		out["error"] = obj{"code": -32015, "message": c.res.Err.Error()}
	}
	return out
}

// simTxJSON is an unsigned simulated transaction with its sender.
func simTxJSON(b *types.Block, i int, from common.Address) obj {
	tx := b.Transactions()[i]
	return obj{
		"blockHash": hash(b.Hash()), "blockNumber": q(b.NumberU64()), "blockTimestamp": q(b.Time()),
		"from": addr(from), "hash": hash(tx.Hash()), "transactionIndex": q(uint64(i)), "type": q(uint64(tx.Type())),
		"nonce": q(tx.Nonce()), "to": addrOrNull(tx.To()), "gas": q(tx.Gas()), "value": qb(tx.Value()), "input": data(tx.Data()),
		"gasPrice": qb(effectiveGasPrice(tx, b.BaseFee())), "maxFeePerGas": qb(tx.GasFeeCap()), "maxPriorityFeePerGas": qb(tx.GasTipCap()),
		"chainId": qb(tx.ChainId()), "accessList": []any{}, "v": "0x0", "r": "0x0", "s": "0x0", "yParity": "0x0",
	}
}
