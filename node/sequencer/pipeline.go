package sequencer

import (
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

// The seal is pipelined. Committing a sealed block to the database takes a
// few milliseconds of CPU, but under load tens of milliseconds of waiting:
// go-ethereum's commit starts a goroutine per changed account and waits
// for them all behind the requests' goroutines. Nothing could be
// pre-confirmed meanwhile, and that wait was the tail of the time to a
// pre-confirmation under a flood. So the commit runs on a goroutine of its
// own while the sequencer logs the sealed block, opens the next one on the
// sealed block's state as its pending layers hold it, and executes and logs
// the next block's first pre-confirmation. Only publication waits for the
// commit: readers never see a head the database lacks. The sequencer goes
// on pre-confirming meanwhile (its eager ticks execute and log what
// arrives during the commit), and the pre-confirmations made wait in the
// builder's unpublished until the commit is over (Sequencer.flush). A
// transaction sent during a seal so never waits for a tick after it: that
// tick met the pool taking in the new head, which holds legacypool's lock
// 10-15 ms under a flood.
//
// The log may so hold a sealed block the database lacks after a crash;
// recovery inserts it from the log, as a replica inserts every block
// (node/recovery LevelLog).

// commitment is a sealed block's commit to the database, running on its
// own goroutine.
type commitment struct {
	done chan struct{}
	err  error
}

// commitAsync starts committing block, sealed from b's state. b's state
// belongs to the commit from now on.
func (s *Sequencer) commitAsync(b *builder, block *types.Block) *commitment {
	c := &commitment{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		if s.hooks.committing != nil {
			s.hooks.committing()
		}
		if err := s.chain.Commit(block, b.receipts, b.state); err != nil {
			c.err = fmt.Errorf("commit block %d: %w", block.NumberU64(), err)
		}
	}()
	return c
}

// wait returns the commit's error once it has ended; it may be called any
// number of times.
func (c *commitment) wait() error {
	<-c.done
	return c.err
}

// sealedState is the state of the block b sealed, readable before its
// commit ends: b's pending layers topped by a last one that holds every
// account the block changed with its final storage root. Call it after
// seal and before the commit takes b's state.
func (b *builder) sealedState() *pending.Layer {
	return pending.NewLayer(b.base, b.layer, pending.CaptureSealed(b.state, b.layer, b.touched))
}

// unpublished is a logged pre-confirmation that waits for its block's
// parent to be committed before it is published.
type unpublished struct {
	block *pending.Block
	layer *pending.Layer // the pending state as of block
	// sealed is the parent, when block is the first pre-confirmation on it
	// (the one that announces it), and sealStart when its seal started.
	sealed    *types.Block
	sealStart time.Time
}

// parentCommitted is closed once b's parent's commit has ended, which
// then waits for a flush; nil when none was started since the last.
func (b *builder) parentCommitted() <-chan struct{} {
	if b.parentCommit == nil {
		return nil
	}
	return b.parentCommit.done
}

// parentCommitting reports whether b's parent's commit still runs.
func (b *builder) parentCommitting() bool {
	if b.parentCommit == nil {
		return false
	}
	select {
	case <-b.parentCommit.done:
		return false
	default:
		return true
	}
}

// awaitParent waits for the commit of the parent, if it still runs, and
// then reads the parent's state from the database, as readers of the head
// do: the layers built so far are moved onto it.
func (b *builder) awaitParent() error {
	if b.parentCommit == nil {
		return nil
	}
	err := b.parentCommit.wait()
	b.parentCommit = nil
	if err != nil {
		return err
	}
	reader, err := b.chain.StateReader(b.parent.Root())
	if err != nil {
		return fmt.Errorf("state of block %d: %w", b.parent.NumberU64(), err)
	}
	b.base = pending.NewCachedReader(reader)
	if b.layer != nil {
		b.layer = b.layer.Rebase(b.base)
	}
	return nil
}

// parentChain is the chain as the block being built on parent sees it
// (its BLOCKHASH, its engine's header checks) while parent's commit may
// still be running: parent's header is known before the database has it.
type parentChain struct {
	*core.BlockChain
	parent *types.Header
	hash   common.Hash
}

func newParentChain(bc *core.BlockChain, parent *types.Header) parentChain {
	return parentChain{BlockChain: bc, parent: parent, hash: parent.Hash()}
}

// GetHeader implements consensus.ChainHeaderReader.
func (c parentChain) GetHeader(hash common.Hash, number uint64) *types.Header {
	if hash == c.hash && number == c.parent.Number.Uint64() {
		return c.parent
	}
	return c.BlockChain.GetHeader(hash, number)
}

// GetHeaderByHash implements consensus.ChainHeaderReader.
func (c parentChain) GetHeaderByHash(hash common.Hash) *types.Header {
	if hash == c.hash {
		return c.parent
	}
	return c.BlockChain.GetHeaderByHash(hash)
}

// GetHeaderByNumber implements consensus.ChainHeaderReader.
func (c parentChain) GetHeaderByNumber(number uint64) *types.Header {
	if number == c.parent.Number.Uint64() {
		return c.parent
	}
	return c.BlockChain.GetHeaderByNumber(number)
}
