package sequencer

import (
	"fmt"
	"log/slog"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
)

// Replayer rebuilds, on a read replica, what a sequencer decided and
// logged: it opens the blocks the sequencer opened, with their logged
// headers, executes each pre-confirmation's transactions on the head state
// in the logged order and publishes the pending snapshot after each, and
// inserts the sealed blocks. The replica's `pending` is so the
// sequencer's, one log entry later. Only one goroutine may call it.
type Replayer struct {
	publisher
	log *slog.Logger
	b   *builder // the block being rebuilt; nil until one opens on the head

	// announce is the block sealed last, until a publication announces it
	// (with the first pre-confirmation of the next block, as the sequencer
	// publishes head and pending together, or by Flush).
	announce *types.Block

	// logWins: a sealed block of the head's number that is not the head
	// replaces it (SetLogWins).
	logWins bool
}

// NewReplayer returns a replayer that publishes to store.
func NewReplayer(c *chain.Chain, store *pending.Store, log *slog.Logger) *Replayer {
	return &Replayer{publisher: publisher{chain: c, store: store}, log: log}
}

// PublishHead publishes the head with an empty pending block, as a replica
// serves before the first block opens.
func (r *Replayer) PublishHead() error { return r.publishHead(nil) }

// Building reports the number of the block being rebuilt, if any.
func (r *Replayer) Building() (uint64, bool) {
	if r.b == nil {
		return 0, false
	}
	return r.b.header.Number.Uint64(), true
}

// Opened starts rebuilding the block of header, which supersedes any
// block of the same number being rebuilt (a sequencer that rebuilt it). A
// block opened on a parent other than the head is not rebuilt: the replica
// missed what came between, and pending stays empty until a block opens on
// its head.
func (r *Replayer) Opened(header *types.Header) error {
	r.b = nil
	head := r.currentHead()
	if header.ParentHash != head.Hash() {
		r.log.Warn("Replica skips a block opened on another parent than its head; pending stays empty until the next block",
			"number", header.Number, "parent", header.ParentHash, "head", head.NumberU64())
		return r.flush()
	}
	b, err := newBuilder(r.chain, head, types.CopyHeader(header))
	if err != nil {
		return fmt.Errorf("rebuild block %d: %w", header.Number, err)
	}
	r.b = b
	return nil
}

// Preconfirmed executes txs, the transactions the sequencer's
// pre-confirmation index of the block being rebuilt executed, and
// publishes the pending snapshot. A pre-confirmation that does not follow
// the last one, a transaction that does not execute or a gas total other
// than the sequencer's gasUsed means the replica's block is not the
// sequencer's: it is dropped, and pending shows the head until the next
// block opens. Without a block being rebuilt it does nothing.
func (r *Replayer) Preconfirmed(index int, gasUsed uint64, txs types.Transactions) error {
	b := r.b
	if b == nil {
		return nil
	}
	if index != b.ticks {
		return r.mismatch(fmt.Sprintf("pre-confirmation %d follows %d", index, b.ticks-1))
	}
	for _, tx := range txs {
		if err := b.apply(tx); err != nil {
			return r.mismatch(fmt.Sprintf("transaction %s does not execute: %v", tx.Hash(), err))
		}
	}
	if b.header.GasUsed != gasUsed {
		return r.mismatch(fmt.Sprintf("gas used %d, the sequencer's %d", b.header.GasUsed, gasUsed))
	}
	block, reader := b.preconfirm()
	r.publish(b.parent, block, b.base, reader, r.announce)
	r.announce = nil
	return nil
}

func (r *Replayer) mismatch(why string) error {
	r.log.Warn("Replica's rebuilt block differs from the sequencer's; pending stays empty until the next block",
		"number", r.b.header.Number, "why", why)
	r.b = nil
	return r.flush()
}

// Sealed makes block, sealed by the sequencer, the head. When the block
// being rebuilt holds the same transactions, sealing it must give the very
// same block (hash, so state root, receipts and all): its state is
// committed as the sequencer committed its own, without executing the
// block again. Otherwise the block is validated and inserted as `stocknode
// import` does (chain.Append: full execution, state root checked). A block
// the chain already holds is skipped; one that does not extend the head is
// an error.
func (r *Replayer) Sealed(block *types.Block) (inserted bool, err error) {
	b := r.b
	r.b = nil
	bc := r.chain.BlockChain()
	head := r.chain.Head()
	number := block.NumberU64()
	if r.logWins && number == head.Number.Uint64() && block.Hash() != head.Hash() && block.ParentHash() == head.ParentHash {
		r.log.Warn("Dropping the head this node committed but never logged: the log holds another block of its number", "number", number, "dropped", head.Hash(), "logged", block.Hash())
		if err := r.chain.Rewind(number - 1); err != nil {
			return false, err
		}
		head = r.chain.Head()
	}
	if number <= head.Number.Uint64() {
		if have := bc.GetCanonicalHash(number); have != block.Hash() {
			return false, fmt.Errorf("sealed block %d is %s, this replica's is %s: the log is another chain's", number, block.Hash(), have)
		}
		return false, nil
	}
	if block.ParentHash() != head.Hash() {
		return false, fmt.Errorf("sealed block %d does not extend this replica's head %d %s", number, head.Number, head.Hash())
	}
	if !r.commitRebuilt(b, block) {
		if err := r.chain.Append(block); err != nil {
			return false, err
		}
	}
	r.announce = block
	return true, nil
}

// commitRebuilt seals b and commits it if it is block.
func (r *Replayer) commitRebuilt(b *builder, block *types.Block) bool {
	if b == nil || b.parent.Hash() != block.ParentHash() || len(b.txs) != len(block.Transactions()) {
		return false
	}
	sealed, err := b.seal()
	if err != nil || sealed.Hash() != block.Hash() {
		return false
	}
	if err := r.chain.Commit(sealed, b.receipts, b.state); err != nil {
		r.log.Warn("Replica could not commit its rebuilt block; inserting the sequencer's", "number", block.Number(), "err", err)
		return false
	}
	return true
}

// Flush announces a block sealed but not yet announced, with an empty
// pending block: the follower calls it when the log is quiet after a seal
// (a sequencer that stopped before opening the next block).
func (r *Replayer) Flush() error {
	if r.announce == nil {
		return nil
	}
	return r.flush()
}

func (r *Replayer) flush() error {
	err := r.publishHead(r.announce)
	r.announce = nil
	return err
}

// SetLogWins has the replay replace a head that the log does not hold by
// the log's block of its number: a sequencer candidate (app's --ha) that
// committed a block and died before logging it never announced it, and the
// leader after it sealed another. A replica's head always came from the
// log, and a mismatch there means another chain's log.
func (r *Replayer) SetLogWins(on bool) { r.logWins = on }
