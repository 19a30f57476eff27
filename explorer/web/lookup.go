package web

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

// Where a transaction is, as of one snapshot.
const (
	statusSealed       = "sealed"
	statusPreconfirmed = "preconfirmed"
	statusPool         = "pool"
)

// foundTx is a transaction and where it is.
type foundTx struct {
	tx     *types.Transaction
	status string
	// header is the sealed block's, or the pending block's for a
	// pre-confirmed transaction; nil in the pool.
	header *types.Header
	index  int
	// receipt is nil in the pool.
	receipt *types.Receipt
}

// findTx looks a transaction up as node/rpc's eth_getTransactionByHash does:
// the pending block first (pre-confirmed), then the canonical chain up to
// the snapshot's head, then the pool. A pre-confirmed transaction here
// comes with its pre-confirmed receipt, which the RPC withholds from
// wallets (they take a receipt to mean sealed) but a person may read.
func (e *Explorer) findTx(snap *pending.Snapshot, hash common.Hash) (foundTx, error) {
	p := snap.Pending
	if p.Header.Number.Cmp(snap.HeadHeader.Number) > 0 {
		for i, tx := range p.Transactions {
			if tx.Hash() == hash {
				return foundTx{tx: tx, status: statusPreconfirmed, header: p.Header, index: i, receipt: p.Receipts[i]}, nil
			}
		}
	}
	bc := e.deps.Chain.BlockChain()
	if tx, block, index := e.deps.Chain.CanonicalTx(hash, snap.Head.NumberU64()); tx != nil {
		receipt, err := bc.GetCanonicalReceipt(tx, block.Hash(), block.NumberU64(), uint64(index))
		if err != nil {
			return foundTx{}, fmt.Errorf("receipt of %s: %w", hash.Hex(), err)
		}
		return foundTx{tx: tx, status: statusSealed, header: block.Header(), index: index, receipt: receipt}, nil
	}
	if tx := e.deps.Pool.Get(hash); tx != nil {
		return foundTx{tx: tx, status: statusPool}, nil
	}
	if snap.Head.NumberU64() > 0 && !bc.TxIndexDone() {
		return foundTx{}, unavailable("The node is still indexing its transactions; try again in a moment.")
	}
	return foundTx{}, notFound("No transaction %s: not in a block, not pre-confirmed, not in the pool.", hash.Hex())
}

// findBlock resolves a block number or hash, as of the snapshot's head.
func (e *Explorer) findBlock(snap *pending.Snapshot, id string) (*types.Block, error) {
	head := snap.Head
	bc := e.deps.Chain.BlockChain()
	if n, ok := parseNumber(id); ok {
		switch {
		case n == head.NumberU64():
			return head, nil
		case n > head.NumberU64():
			return nil, notFound("Block %d has not been sealed yet: the head is block %d.", n, head.NumberU64())
		}
		if b := bc.GetBlockByNumber(n); b != nil {
			return b, nil
		}
		return nil, notFound("Block %d is not in this node's database.", n)
	}
	hash, ok := parseHash(id)
	if !ok {
		return nil, badRequest("A block is named by its number (e.g. 42) or its hash (0x and 64 hex digits).")
	}
	if hash == head.Hash() {
		return head, nil
	}
	b := bc.GetBlockByHash(hash)
	if b == nil || b.NumberU64() > head.NumberU64() || bc.GetCanonicalHash(b.NumberU64()) != hash {
		return nil, notFound("No block has the hash %s.", hash.Hex())
	}
	return b, nil
}
