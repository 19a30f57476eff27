package sequencer

import (
	"fmt"

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
// the next block's first pre-confirmation. Only the publication of that
// pre-confirmation waits for the commit: readers never see a head the
// database lacks.
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
