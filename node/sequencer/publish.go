package sequencer

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
)

// publisher publishes snapshots and tells the listener, for the Sequencer
// and the Replayer alike: a replica announces what the sequencer did
// exactly as the sequencer does.
type publisher struct {
	chain    *chain.Chain
	store    *pending.Store
	listener Listener
	seq      uint64 // snapshots published
}

// SetListener registers l; call it before the first publication.
func (p *publisher) SetListener(l Listener) { p.listener = l }

func (p *publisher) publish(head *types.Block, block *pending.Block, headReader, pendingReader state.Reader, sealed *types.Block) {
	p.seq++
	snap := pending.New(p.seq, head, block, p.chain.StateDatabase(), headReader, pendingReader, p.store.Load())
	p.store.Publish(snap)
	if p.listener == nil {
		return
	}
	if sealed != nil {
		p.listener.Sealed(snap, sealed)
	}
	p.listener.Preconfirmed(snap)
}

// publishHead publishes the current head with an empty pending block;
// sealed is the head when it is new to the listener.
func (p *publisher) publishHead(sealed *types.Block) error {
	head := p.currentHead()
	stateReader, err := p.chain.StateReader(head.Root())
	if err != nil {
		return fmt.Errorf("state of head %d: %w", head.NumberU64(), err)
	}
	reader := pending.NewCachedReader(stateReader)
	p.publish(head, &pending.Block{Header: head.Header()}, reader, reader, sealed)
	return nil
}

func (p *publisher) currentHead() *types.Block {
	h := p.chain.Head()
	return p.chain.BlockChain().GetBlock(h.Hash(), h.Number.Uint64())
}
