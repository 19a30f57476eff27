package rpc

import (
	"context"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/node/pending"
)

// Proofs of the pending state.
//
// The pre-confirmed state has no trie: the sequencer keeps it as flat
// overlays and computes a root only when it seals the block, and the
// pending block's header says stateRoot zero until then. To prove against
// it, the tries are rebuilt: the pending block's transactions are executed
// again on the head's state (after the block's pre-execution system calls,
// exactly as the sequencer executed them, as a replica re-executes
// pre-confirmations), its root computed by go-ethereum's StateDB
// (IntermediateRoot), and the storage tries of the accounts they changed
// updated with the slots they wrote. The proofs verify against that root,
// which the answer carries as stateRoot; it is the root the pending block
// would have if it were sealed now, before the post-execution system calls
// (EIP-7002/7251 queues) that sealing runs.
//
// One rebuild serves every pending proof of the same pending state: it is
// the pending block's whole execution again, so it runs under the eth_call
// bound and is kept until the pending state changes.

// pendingProofCache holds the tries of the latest pending state proven.
type pendingProofCache struct {
	mu      sync.Mutex
	current *pendingTries
}

// pendingTries are the rebuilt tries of one pending state. use guards them:
// a trie is not safe for concurrent use, and reads cache resolved nodes in
// it.
type pendingTries struct {
	key   pendingKey
	use   sync.Mutex
	tries *proofTries // nil until built
	err   error       // a rebuild that failed for good
}

// pendingKey names a pending state: a pending block only grows, so its
// parent, its header's random fields and its transaction count say which
// state it is.
type pendingKey struct {
	parent common.Hash
	mix    common.Hash
	time   uint64
	txs    int
	last   common.Hash // the last transaction, for a block reopened with others
}

// building reports whether snap has a block being built on its head; a
// node that produces no blocks serves its head as pending.
func building(snap *pending.Snapshot) bool {
	return snap.Pending.Header.Number.Cmp(snap.Head.Number()) != 0
}

func keyOf(snap *pending.Snapshot) pendingKey {
	p := snap.Pending
	k := pendingKey{parent: snap.Head.Hash(), mix: p.Header.MixDigest, time: p.Header.Time, txs: len(p.Transactions)}
	if k.txs > 0 {
		k.last = p.Transactions[k.txs-1].Hash()
	}
	return k
}

// entry returns the cache entry of snap's pending state, replacing an
// older one.
func (c *pendingProofCache) entry(snap *pending.Snapshot) *pendingTries {
	key := keyOf(snap)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil || c.current.key != key {
		c.current = &pendingTries{key: key}
	}
	return c.current
}

// provePending proves addr and keys in the pending state of snap.
func (s *Server) provePending(task *callbound.Task, snap *pending.Snapshot, addr common.Address, keys []proofKey) (*accountProof, error) {
	e := s.pendingProofs.entry(snap)
	// Waiting here is bounded by the rebuild another request runs, which
	// the call bound's time limit bounds.
	e.use.Lock()
	defer e.use.Unlock()
	if e.err != nil {
		return nil, e.err
	}
	if e.tries == nil {
		tries, err := s.rebuildPending(task, snap)
		if err != nil {
			if !isCancelled(err) {
				e.err = err // the next request would fail the same way
			}
			return nil, err
		}
		e.tries = tries
	}
	out, err := s.prove(task, e.tries, addr, keys)
	if err != nil {
		return nil, err
	}
	root := e.tries.root
	out.StateRoot = &root
	return out, nil
}

// rebuildPending executes snap's pending block again on the head's state
// and returns the tries of the result.
func (s *Server) rebuildPending(task *callbound.Task, snap *pending.Snapshot) (*proofTries, error) {
	config, bc := s.b.Chain.Config(), s.b.Chain.BlockChain()
	head, header := snap.HeadHeader, snap.Pending.Header
	db := s.b.Chain.StateDatabase()
	st, err := state.NewWithReader(head.Root, db, snap.LatestReader())
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", head.Number, err)
	}
	written := make(map[common.Address]map[common.Hash]struct{})
	hooked := state.NewHookedState(st, &tracing.Hooks{
		OnStorageChange: func(addr common.Address, slot common.Hash, _, _ common.Hash) {
			if written[addr] == nil {
				written[addr] = make(map[common.Hash]struct{})
			}
			written[addr][slot] = struct{}{}
		},
	})
	coinbase := header.Coinbase
	evm := vm.NewEVM(core.NewEVMBlockContext(header, bc, &coinbase), hooked, config, vm.Config{})
	task.Watch(evm)
	defer task.Unwatch()
	ctx := context.Background()
	core.PreExecution(ctx, header.ParentBeaconRoot, head, config, evm, header.Number, header.Time)
	gp := core.NewGasPool(header.GasLimit)
	for i, tx := range snap.Pending.Transactions {
		st.SetTxContext(tx.Hash(), i, uint32(i+1))
		_, _, err := core.ApplyTransaction(ctx, evm, gp, st, header, tx)
		if cause := task.Err(); cause != nil {
			return nil, &cancelledError{s.aborted(cause)}
		}
		if err != nil {
			return nil, fmt.Errorf("rebuild the pending state: transaction %s: %w", tx.Hash().Hex(), err)
		}
	}
	root := st.IntermediateRoot(config.Rules(header.Number, true, header.Time))
	if err := st.Error(); err != nil {
		return nil, fmt.Errorf("rebuild the pending state: %w", err)
	}
	tries := &proofTries{db: db, openRoot: head.Root, root: root, accounts: st.GetTrie(), rebuilt: make(map[common.Address]state.Trie, len(written))}
	for addr, slots := range written {
		tr, err := pendingStorage(db, snap, st, addr, slots)
		if err != nil {
			return nil, err
		}
		tries.rebuilt[addr] = tr
	}
	return tries, nil
}

// pendingStorage returns addr's storage trie in the pending state st (nil:
// none): its trie at the head with the slots the pending block wrote set
// to their pending values, checked against the storage root st computed.
// An account the pending block created anew starts from empty storage.
func pendingStorage(db state.Database, snap *pending.Snapshot, st *state.StateDB, addr common.Address, slots map[common.Hash]struct{}) (state.Trie, error) {
	want := st.GetStorageRoot(addr)
	if !st.Exist(addr) || want == types.EmptyRootHash {
		return nil, nil
	}
	base := types.EmptyRootHash
	if acct, err := snap.LatestReader().Account(addr); err != nil {
		return nil, fmt.Errorf("account %s at the head: %w", addr.Hex(), err)
	} else if acct != nil {
		base = acct.Root
	}
	for _, from := range []common.Hash{base, types.EmptyRootHash} {
		tr, err := db.OpenStorageTrie(snap.Head.Root(), addr, from, nil)
		if err != nil {
			return nil, fmt.Errorf("storage of %s at the head: %w", addr.Hex(), err)
		}
		for slot := range slots {
			if err := setSlot(tr, addr, slot, st.GetState(addr, slot)); err != nil {
				return nil, err
			}
		}
		if tr.Hash() == want {
			return tr, nil
		}
		if from == types.EmptyRootHash {
			break
		}
	}
	return nil, fmt.Errorf("rebuild the pending storage of %s: no trie has its root %s", addr.Hex(), want.Hex())
}

// setSlot writes a slot as StateDB writes it into a trie: zero deletes.
func setSlot(tr state.Trie, addr common.Address, slot, value common.Hash) error {
	var err error
	if value == (common.Hash{}) {
		err = tr.DeleteStorage(addr, slot[:])
	} else {
		err = tr.UpdateStorage(addr, slot[:], common.TrimLeftZeroes(value[:]))
	}
	if err != nil {
		return fmt.Errorf("write slot %s of %s: %w", slot.Hex(), addr.Hex(), err)
	}
	return nil
}
