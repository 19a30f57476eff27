package chain

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
)

// CanonicalTx finds the transaction hash in the canonical chain at or
// below block limit: it returns the transaction, its block and its index,
// or a nil transaction.
//
// It reads the lookup entry's block number and takes the block from the
// blockchain's cache, whose transactions keep their hashes once computed.
// go-ethereum's GetCanonicalTransaction, on a miss of its cache of 1,024
// lookups (a flood seals thousands of transactions a second), decodes the
// block's body again and hashes its transactions until it meets the one
// asked for: clients polling for receipts in a block of 800 transfers made
// it hash the block's transactions again at every first lookup.
func (c *Chain) CanonicalTx(hash common.Hash, limit uint64) (*types.Transaction, *types.Block, int) {
	number := rawdb.ReadTxLookupEntry(c.db, hash)
	if number == nil || *number > limit {
		return nil, nil, 0
	}
	block := c.bc.GetBlockByNumber(*number)
	if block == nil {
		return nil, nil, 0
	}
	for i, tx := range block.Transactions() {
		if tx.Hash() == hash {
			return tx, block, i
		}
	}
	return nil, nil, 0 // the entry is of a block no longer canonical
}
