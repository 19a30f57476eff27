package index

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/pending"
)

// Sealed tells the index a block became the head (sequencer.Listener). It
// never blocks: heads that come faster than the index writes are
// coalesced. The block is kept so that Run indexes it with the senders the
// sequencer recovered already rather than recovering them again.
func (x *Index) Sealed(_ *pending.Snapshot, block *types.Block) {
	x.sealed.Store(block)
	x.Notify()
}

// Preconfirmed is part of sequencer.Listener: the index holds sealed
// blocks only.
func (x *Index) Preconfirmed(*pending.Snapshot) {}

// Notify asks the index to catch up with the chain's head.
func (x *Index) Notify() {
	select {
	case x.wake <- struct{}{}:
	default:
	}
}

// Run catches up with the chain (from the last indexed block: a new index,
// an imported chain and a restart after a crash alike), then follows its
// head until ctx ends.
func (x *Index) Run(ctx context.Context) error {
	x.Notify()
	var failing warning
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-x.wake:
		}
		err := x.catchUp(ctx)
		if ctx.Err() != nil {
			return nil
		}
		// The next head tries again; what is indexed stays.
		failing.report(x.log, err)
	}
}

// warning logs a failure that repeats with every block once, and again
// when it changes or a minute later.
type warning struct {
	last   string
	logged time.Time
}

func (w *warning) report(log *slog.Logger, err error) {
	if err == nil {
		w.last = ""
		return
	}
	if msg := err.Error(); msg != w.last || time.Since(w.logged) >= time.Minute {
		log.Warn("Address index behind the head", "err", err)
		w.last, w.logged = msg, time.Now()
	}
}

// catchUpChunk is how many blocks catching up reads ahead, so that their
// senders are recovered on every core while this goroutine indexes.
const catchUpChunk = 64

// catchUp indexes the blocks from the next one to the chain's head. A
// long catch-up (a new index of a long chain, an import) logs its
// progress.
func (x *Index) catchUp(ctx context.Context) error {
	start, from := time.Now(), x.next.Load()
	head := x.src.CurrentBlock().Number.Uint64()
	long := head-min(from, head) >= 10*catchUpChunk
	if long {
		x.log.Info("Address index catching up", "from", from, "head", head)
	}
	logged := start
	for next := from; ; next = x.next.Load() {
		head = x.src.CurrentBlock().Number.Uint64()
		if next > head {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if long && time.Since(logged) >= progressEvery {
			x.log.Info("Address index catching up", "next", next, "head", head)
			logged = time.Now()
		}
		err := x.indexRange(next, min(head, next+catchUpChunk-1))
		if errors.Is(err, errDiverged) {
			err = x.reset("the chain is not the one indexed", "err", err)
		}
		if err != nil {
			return err
		}
	}
	if long {
		x.log.Info("Address index caught up", "head", head, "elapsed", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// progressEvery is how often a long catch-up logs.
const progressEvery = 10 * time.Second

// indexRange indexes blocks from..to of the chain.
func (x *Index) indexRange(from, to uint64) error {
	blocks := make([]*types.Block, 0, to-from+1)
	for n := from; n <= to; n++ {
		b, err := x.blockAt(n)
		if err != nil {
			return err
		}
		blocks = append(blocks, b)
	}
	if len(blocks) > 1 {
		// Following the head, the one block is the sealed one, its senders
		// known; recovering them here too would only race apply.
		signer := types.MakeSigner(x.config, blocks[0].Number(), blocks[0].Time())
		core.SenderCacher().RecoverFromBlocks(signer, blocks)
	}
	for _, b := range blocks {
		var receipts types.Receipts
		if len(b.Transactions()) > 0 {
			if receipts = x.src.GetRawReceipts(b.Hash(), b.NumberU64()); receipts == nil {
				return fmt.Errorf("receipts of block %d missing", b.NumberU64())
			}
		}
		if err := x.apply(b, receipts); err != nil {
			return err
		}
	}
	return nil
}

// blockAt reads block n of the chain; a block without transactions only
// by its header.
func (x *Index) blockAt(n uint64) (*types.Block, error) {
	if b := x.sealed.Load(); b != nil && b.NumberU64() == n {
		return b, nil
	}
	header := x.src.GetHeaderByNumber(n)
	if header == nil {
		return nil, fmt.Errorf("block %d missing", n)
	}
	if header.TxHash == types.EmptyTxsHash {
		return types.NewBlockWithHeader(header), nil
	}
	b := x.src.GetBlock(header.Hash(), n)
	if b == nil {
		return nil, fmt.Errorf("block %d missing", n)
	}
	return b, nil
}

// source is what the index reads of the chain: go-ethereum's blockchain,
// or a test's synthetic chain.
type source interface {
	Config() *params.ChainConfig
	CurrentBlock() *types.Header
	GetCanonicalHash(number uint64) common.Hash
	GetHeaderByNumber(number uint64) *types.Header
	GetBlock(hash common.Hash, number uint64) *types.Block
	// GetRawReceipts returns receipts without the derived fields, which
	// the index derives itself: go-ethereum would read the block again
	// and recover senders the sealed block already knows.
	GetRawReceipts(hash common.Hash, number uint64) types.Receipts
}
