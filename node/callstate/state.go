// Package callstate reuses go-ethereum StateDBs across eth_calls on one
// immutable state (a sealed block's, or one pending snapshot's).
//
// A fresh StateDB per call costs seven maps, a journal and a state object
// (with four storage maps) for every account the call touches, and the
// contract's code and storage are looked up again each time. A State is
// instead reverted to where its call began and handed to the next call on
// the same state: what go-ethereum's journal restores is exactly what a call
// changes (balances, nonces, storage, code, logs, refund, transient storage,
// created and destructed accounts), while what it keeps (loaded accounts,
// code, committed storage) is the same immutable state the next call reads.
//
// Only what eth_call runs goes through here: no Finalise, no commit, no
// state overrides (SetStorage changes the StateDB outside the journal, so
// overridden calls use a fresh StateDB).
package callstate

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// State is a StateDB for one call at a time, with a cheaper EIP-2929 access
// list (accessList). Get it from a Pool and give it back with Put.
//
// Its access-list methods are Warm's, over the concrete *state.StateDB:
// embedding a Warm would send every state read of an eth_call through an
// interface.
type State struct {
	*state.StateDB
	start int // the revision the call begins at
	// base is the revision before the sender's account was made to exist:
	// a call's gas purchase creates the sender's account (even a zero
	// purchase), so a State keeps it across calls from the same sender
	// and rolls it back to base for another one.
	base      int
	sender    common.Address
	hasSender bool
	warm      warmSet
}

var _ vm.StateDB = (*State)(nil)

// Prepare starts a call: it sets the warm set (sender, destination,
// precompiles, the access list, and the coinbase from Shanghai on). The
// transient storage is already empty: a State is fresh or reverted.
func (s *State) Prepare(rules params.Rules, sender, coinbase common.Address, dst *common.Address, precompiles []common.Address, list types.AccessList) {
	s.warm.prepare(s.StateDB, rules, sender, coinbase, dst, precompiles, list)
}

// AddressInAccessList reports whether addr is warm.
func (s *State) AddressInAccessList(addr common.Address) bool {
	return s.warm.addressIn(s.StateDB, addr)
}

// SlotInAccessList reports whether addr and its slot are warm.
func (s *State) SlotInAccessList(addr common.Address, slot common.Hash) (addressOk, slotOk bool) {
	return s.warm.slotIn(s.StateDB, addr, slot)
}

// AddAddressToAccessList warms addr.
func (s *State) AddAddressToAccessList(addr common.Address) { s.warm.addAddress(s.StateDB, addr) }

// AddSlotToAccessList warms addr and its slot.
func (s *State) AddSlotToAccessList(addr common.Address, slot common.Hash) {
	s.warm.addSlot(s.StateDB, addr, slot)
}

// Snapshot returns a revision to revert to.
func (s *State) Snapshot() int { return s.warm.snapshot(s.StateDB) }

// RevertToSnapshot undoes every change since revision id, the warm set's
// included.
func (s *State) RevertToSnapshot(id int) { s.warm.revertToSnapshot(s.StateDB, id) }

// Pool hands out States over one immutable state. It is safe for concurrent
// use; each State is used by one call at a time.
type Pool struct {
	root   common.Hash
	db     state.Database
	reader state.Reader // concurrency-safe
	free   sync.Pool

	contextOnce sync.Once
	context     vm.BlockContext

	resultsOnce sync.Once
	results     *Results
}

// NewPool makes a pool over the state root reads through reader.
func NewPool(root common.Hash, db state.Database, reader state.Reader) *Pool {
	return &Pool{root: root, db: db, reader: reader}
}

// Get returns a State at the pool's state, ready for one call from sender.
//
// The sender's account exists in it, as go-ethereum's gas purchase makes it
// exist before anything in the call can look (the purchase's balance check
// reads zero either way): this saves creating, and reverting, a state object
// per call for the usual sender that is not in the state.
func (p *Pool) Get(sender common.Address) (*State, error) {
	s, ok := p.free.Get().(*State)
	if !ok {
		db, err := state.NewWithReader(p.root, p.db, p.reader)
		if err != nil {
			return nil, err
		}
		s = &State{StateDB: db, warm: warmSet{al: newAccessList()}}
		s.base = db.Snapshot()
	}
	if !s.hasSender || s.sender != sender {
		if s.hasSender {
			s.StateDB.RevertToSnapshot(s.base)
			s.base = s.StateDB.Snapshot()
		}
		s.StateDB.SubBalance(sender, new(uint256.Int), tracing.BalanceDecreaseGasBuy)
		s.sender, s.hasSender = sender, true
	}
	s.start = s.StateDB.Snapshot()
	return s, nil
}

// Put reverts s to the pool's state and keeps it for the next call (whose
// Prepare resets the warm set). A State whose reads failed is dropped:
// go-ethereum keeps the first database error.
func (p *Pool) Put(s *State) {
	if s.Error() != nil {
		return
	}
	s.StateDB.RevertToSnapshot(s.start)
	p.free.Put(s)
}

// Results returns the pool's memo of call results, made on first use to
// hold at most limit bytes (the first caller's limit holds for the pool's
// life); nil when limit is not positive.
func (p *Pool) Results(limit int64) *Results {
	if limit <= 0 {
		return nil
	}
	p.resultsOnce.Do(func() { p.results = NewResults(limit) })
	return p.results
}

// BlockContext returns the EVM block context of the pool's block, made by
// build on first use. Calls share it: build must return a context whose
// GetHash is safe for concurrent use.
func (p *Pool) BlockContext(build func() vm.BlockContext) vm.BlockContext {
	p.contextOnce.Do(func() { p.context = build() })
	return p.context
}
