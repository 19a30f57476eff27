package callstate

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// warmSet is the EIP-2929 half of a StateDB that keeps its warm set in an
// accessList, journaled beside the StateDB's own journal; State and Warm
// share it.
type warmSet struct {
	al    accessList
	marks []mark
	// geth is set when the rules need go-ethereum's own access list
	// handling (Verkle access events, block-level access lists): every
	// access-list method then goes to the StateDB.
	geth bool
}

// mark ties a StateDB revision to the access-list journal length at that
// revision, so that reverting one reverts both.
type mark struct{ id, journal int }

// warmDB is what a warmSet needs of the StateDB under it.
type warmDB interface {
	Prepare(rules params.Rules, sender, coinbase common.Address, dst *common.Address, precompiles []common.Address, list types.AccessList)
	AddressInAccessList(addr common.Address) bool
	SlotInAccessList(addr common.Address, slot common.Hash) (addressOk, slotOk bool)
	AddAddressToAccessList(addr common.Address)
	AddSlotToAccessList(addr common.Address, slot common.Hash)
	Snapshot() int
	RevertToSnapshot(id int)
}

func (w *warmSet) prepare(db warmDB, rules params.Rules, sender, coinbase common.Address, dst *common.Address, precompiles []common.Address, list types.AccessList) {
	w.marks = w.marks[:0]
	w.geth = !rules.IsEIP2929 || rules.IsEIP4762 || rules.IsAmsterdam
	if w.geth {
		db.Prepare(rules, sender, coinbase, dst, precompiles, list)
		return
	}
	w.al.prepare(sender, coinbase, dst, precompiles, list, rules.IsShanghai)
}

func (w *warmSet) addressIn(db warmDB, addr common.Address) bool {
	if w.geth {
		return db.AddressInAccessList(addr)
	}
	return w.al.containsAddress(addr)
}

func (w *warmSet) slotIn(db warmDB, addr common.Address, slot common.Hash) (addressOk, slotOk bool) {
	if w.geth {
		return db.SlotInAccessList(addr, slot)
	}
	return w.al.contains(addr, slot)
}

func (w *warmSet) addAddress(db warmDB, addr common.Address) {
	if w.geth {
		db.AddAddressToAccessList(addr)
		return
	}
	w.al.addAddress(addr)
}

func (w *warmSet) addSlot(db warmDB, addr common.Address, slot common.Hash) {
	if w.geth {
		db.AddSlotToAccessList(addr, slot)
		return
	}
	w.al.addSlot(addr, slot)
}

func (w *warmSet) snapshot(db warmDB) int {
	id := db.Snapshot()
	w.marks = append(w.marks, mark{id: id, journal: len(w.al.journal)})
	return id
}

func (w *warmSet) revertToSnapshot(db warmDB, id int) {
	for i := len(w.marks) - 1; i >= 0; i-- {
		if w.marks[i].id == id {
			w.al.revert(w.marks[i].journal)
			w.marks = w.marks[:i]
			break
		}
	}
	db.RevertToSnapshot(id)
}

// Warm is any vm.StateDB with State's cheaper warm set: for an EVM that runs
// transactions one after another on a StateDB of its own, as tracing a block
// does. go-ethereum's Prepare makes a fresh access list for every
// transaction and inserts each precompile into it, 8% of the CPU of tracing
// a block of token transfers.
type Warm struct {
	vm.StateDB
	warm warmSet
}

var _ vm.StateDB = (*Warm)(nil)

// NewWarm wraps db.
func NewWarm(db vm.StateDB) *Warm { return &Warm{StateDB: db, warm: warmSet{al: newAccessList()}} }

// Prepare starts a transaction, as StateDB.Prepare does.
func (w *Warm) Prepare(rules params.Rules, sender, coinbase common.Address, dst *common.Address, precompiles []common.Address, list types.AccessList) {
	w.warm.prepare(w.StateDB, rules, sender, coinbase, dst, precompiles, list)
}

// AddressInAccessList reports whether addr is warm.
func (w *Warm) AddressInAccessList(addr common.Address) bool {
	return w.warm.addressIn(w.StateDB, addr)
}

// SlotInAccessList reports whether addr and its slot are warm.
func (w *Warm) SlotInAccessList(addr common.Address, slot common.Hash) (addressOk, slotOk bool) {
	return w.warm.slotIn(w.StateDB, addr, slot)
}

// AddAddressToAccessList warms addr.
func (w *Warm) AddAddressToAccessList(addr common.Address) { w.warm.addAddress(w.StateDB, addr) }

// AddSlotToAccessList warms addr and its slot.
func (w *Warm) AddSlotToAccessList(addr common.Address, slot common.Hash) {
	w.warm.addSlot(w.StateDB, addr, slot)
}

// Snapshot returns a revision to revert to.
func (w *Warm) Snapshot() int { return w.warm.snapshot(w.StateDB) }

// RevertToSnapshot undoes every change since revision id, the warm set's
// included.
func (w *Warm) RevertToSnapshot(id int) { w.warm.revertToSnapshot(w.StateDB, id) }
