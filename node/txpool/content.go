package txpool

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Content returns the pooled transactions by sender, each sender's sorted
// by nonce: pending ones, executable on top of the head, and queued ones,
// waiting behind a nonce gap or for their sender's funds. A transaction
// the sequencer pre-confirmed stays pending here until its block is
// sealed, as geth keeps the transactions of its miner's pending block.
// On a read replica, which forwards every transaction to the sequencer,
// both are empty.
func (p *Pool) Content() (pending, queued map[common.Address][]*types.Transaction) {
	return p.pool.Content()
}

// ContentFrom returns Content's lists of one sender.
func (p *Pool) ContentFrom(addr common.Address) (pending, queued []*types.Transaction) {
	return p.pool.ContentFrom(addr)
}
