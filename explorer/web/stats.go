package web

import (
	"math/big"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/chain"
)

// ringSize is how many block summaries the ring keeps: more than a
// minute of 200 ms blocks, which the statistics span.
const ringSize = 512

// statsWindow is the span of the home page's rates.
const statsWindow = time.Minute

// seedBlocks is how many of the chain's blocks New reads into the ring, so
// a node that produces no blocks (or just started) shows some.
const seedBlocks = 32

// blockSummary is what the home page shows of a sealed block.
type blockSummary struct {
	Number   uint64
	Hash     common.Hash
	Time     uint64 // the header's timestamp
	Txs      int
	GasUsed  uint64
	GasLimit uint64
	BaseFee  *big.Int
	// Sealed is when the listener heard of the block (for blocks read at
	// start, the header's timestamp): timestamps count whole seconds,
	// blocks come every 200 ms.
	Sealed time.Time
	// Last are the block's last transactions, newest first.
	Last []txRow
	// Recent are the chain's latest transactions as of this block, newest
	// first, however many blocks back (the home page's list): the ring
	// carries them from block to block, so the page reads no block.
	Recent []txRow
}

// summarize makes the summary of block, keeping its last keep transactions
// with the names of the methods they call (method). The senders were
// recovered when the block was built and are cached.
func summarize(config *params.ChainConfig, block *types.Block, sealed time.Time, keep int, method func(input []byte) string) *blockSummary {
	txs := block.Transactions()
	s := &blockSummary{
		Number: block.NumberU64(), Hash: block.Hash(), Time: block.Time(), Txs: len(txs),
		GasUsed: block.GasUsed(), GasLimit: block.GasLimit(), BaseFee: block.BaseFee(), Sealed: sealed,
	}
	signer := types.MakeSigner(config, block.Number(), block.Time())
	for i := len(txs) - 1; i >= 0 && len(s.Last) < keep; i-- {
		tx := txs[i]
		from, _ := types.Sender(signer, tx)
		s.Last = append(s.Last, txRow{Hash: tx.Hash(), Block: s.Number, From: from, To: tx.To(), Value: tx.Value(), Method: method(tx.Data())})
	}
	return s
}

// ring holds the latest block summaries, newest first. The sequencer's
// goroutine is its only writer; readers load the slice with one atomic
// load and never wait.
type ring struct {
	blocks atomic.Pointer[[]*blockSummary]
	// keep is the length of each summary's Recent (the home page's);
	// before is what the chain held before the first block added.
	keep   int
	before []txRow
}

// add puts s in front, dropping the oldest beyond ringSize, and sets its
// Recent: its own transactions, then the previous block's Recent. The copy
// (a few kilobytes of pointers) keeps every published slice immutable.
func (r *ring) add(s *blockSummary) {
	old := r.load()
	prev := r.before
	if len(old) > 0 {
		prev = old[0].Recent
	}
	s.Recent = recentRows(s.Last, prev, r.keep)
	next := make([]*blockSummary, 0, min(len(old)+1, ringSize))
	next = append(next, s)
	next = append(next, old[:min(len(old), ringSize-1)]...)
	r.blocks.Store(&next)
}

// recentRows is a block's Recent: its last transactions, then its
// predecessor's Recent (prev), keep in all.
func recentRows(last, prev []txRow, keep int) []txRow {
	rows := make([]txRow, 0, keep)
	rows = append(rows, last[:min(len(last), keep)]...)
	return append(rows, prev[:min(len(prev), keep-len(rows))]...)
}

// load returns the summaries, newest first; do not modify them.
func (r *ring) load() []*blockSummary {
	if p := r.blocks.Load(); p != nil {
		return *p
	}
	return nil
}

// seedScan bounds the blocks below the seeded ones that New looks through
// for the home page's latest transactions, once, at start: on a quiet chain
// they may be far back, and a page must not search for them (it takes them
// from the ring). Headers first, so an empty block costs one header read:
// 10,000 blocks (33 minutes of 200 ms blocks) in well under a second. A
// chain whose last transaction is older shows fewer, until new ones come.
const seedScan = 10_000

// seed reads the chain's last blocks into an empty ring, and the latest
// keep transactions below them, at most seedScan blocks down.
func (r *ring) seed(c *chain.Chain, keep int, method func(input []byte) string) {
	bc := c.BlockChain()
	head := c.Head().Number.Uint64()
	first := head - min(head, seedBlocks-1)
	r.keep = keep
	for n := first; n > 0 && first-n < seedScan && len(r.before) < keep; n-- {
		h := bc.GetHeaderByNumber(n - 1)
		if h == nil || h.TxHash == types.EmptyTxsHash {
			continue
		}
		if block := bc.GetBlockByNumber(n - 1); block != nil {
			r.before = append(r.before, summarize(c.Config(), block, time.Time{}, keep-len(r.before), method).Last...)
		}
	}
	for n := first; n <= head; n++ {
		block := bc.GetBlockByNumber(n)
		if block == nil {
			continue
		}
		r.add(summarize(c.Config(), block, time.Unix(int64(block.Time()), 0), keep, method))
	}
}

// stats are the home page's chain statistics.
type stats struct {
	// Blocks counts the blocks the rates are over; below two there are none.
	Blocks    int
	BlockTime time.Duration
	TPS       float64
	GasPerSec float64
	// Latest is the newest block's summary, nil before any.
	Latest *blockSummary
}

// computeStats derives the rates from the blocks sealed within statsWindow
// of the newest: the transactions and gas of all but the oldest of them,
// over the time from the oldest to the newest.
func computeStats(blocks []*blockSummary) stats {
	if len(blocks) == 0 {
		return stats{}
	}
	st := stats{Latest: blocks[0]}
	newest := blocks[0].Sealed
	n := 1
	for n < len(blocks) && newest.Sub(blocks[n].Sealed) <= statsWindow {
		n++
	}
	st.Blocks = n
	span := newest.Sub(blocks[n-1].Sealed)
	if n < 2 || span <= 0 {
		return st
	}
	var txs, gas uint64
	for _, b := range blocks[:n-1] {
		txs += uint64(b.Txs)
		gas += b.GasUsed
	}
	st.BlockTime = span / time.Duration(n-1)
	st.TPS = float64(txs) / span.Seconds()
	st.GasPerSec = float64(gas) / span.Seconds()
	return st
}
