package callstate

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// accessList is the EIP-2929 warm set of one call, reused across calls.
//
// go-ethereum's StateDB.Prepare builds a fresh access list per transaction
// and inserts every precompile into it: 18 map insertions and two map
// allocations, measured at 8% of an eth_call's CPU under load. Here the
// precompiles live in a set built once per State, and the per-call maps are
// cleared, not reallocated. Changes are journaled so that a reverted frame
// forgets what it warmed, as go-ethereum's journal does.
type accessList struct {
	precompiles map[common.Address]struct{}
	precompileN int // len of the precompile list the set was built from
	// addrs holds the addresses warmed in this call; a nil value is an
	// address without warm slots.
	addrs   map[common.Address]map[common.Hash]struct{}
	spare   []map[common.Hash]struct{} // cleared slot sets for reuse
	journal []change
}

// change is one journaled addition; slot is meaningful when isSlot.
type change struct {
	addr   common.Address
	slot   common.Hash
	isSlot bool
}

func newAccessList() accessList {
	return accessList{addrs: make(map[common.Address]map[common.Hash]struct{})}
}

// prepare resets the list for a new call, as StateDB.Prepare does.
func (al *accessList) prepare(sender, coinbase common.Address, dst *common.Address, precompiles []common.Address, list types.AccessList, warmCoinbase bool) {
	al.reset()
	if al.precompiles == nil || al.precompileN != len(precompiles) {
		al.precompiles = make(map[common.Address]struct{}, len(precompiles))
		for _, p := range precompiles {
			al.precompiles[p] = struct{}{}
		}
		al.precompileN = len(precompiles)
	}
	al.addAddress(sender)
	if dst != nil {
		al.addAddress(*dst)
	}
	for _, el := range list {
		al.addAddress(el.Address)
		for _, key := range el.StorageKeys {
			al.addSlot(el.Address, key)
		}
	}
	if warmCoinbase {
		al.addAddress(coinbase)
	}
	// Prepare's own additions are not revertible.
	al.journal = al.journal[:0]
}

func (al *accessList) reset() {
	for _, slots := range al.addrs {
		if slots != nil {
			clear(slots)
			al.spare = append(al.spare, slots)
		}
	}
	clear(al.addrs)
	al.journal = al.journal[:0]
}

func (al *accessList) containsAddress(addr common.Address) bool {
	if _, ok := al.addrs[addr]; ok {
		return true
	}
	_, ok := al.precompiles[addr]
	return ok
}

func (al *accessList) contains(addr common.Address, slot common.Hash) (addressOk, slotOk bool) {
	slots, ok := al.addrs[addr]
	if !ok {
		return al.containsAddress(addr), false
	}
	_, slotOk = slots[slot]
	return true, slotOk
}

// addAddress warms addr, journaling it if it was cold.
func (al *accessList) addAddress(addr common.Address) {
	if al.containsAddress(addr) {
		return
	}
	al.addrs[addr] = nil
	al.journal = append(al.journal, change{addr: addr})
}

// addSlot warms addr and its slot, journaling each that was cold.
func (al *accessList) addSlot(addr common.Address, slot common.Hash) {
	al.addAddress(addr)
	slots := al.addrs[addr]
	if _, ok := slots[slot]; ok {
		return
	}
	if slots == nil {
		if n := len(al.spare); n > 0 {
			slots, al.spare = al.spare[n-1], al.spare[:n-1]
		} else {
			slots = make(map[common.Hash]struct{}, 4)
		}
		al.addrs[addr] = slots
	}
	slots[slot] = struct{}{}
	al.journal = append(al.journal, change{addr: addr, slot: slot, isSlot: true})
}

// revert undoes the changes after the first n.
func (al *accessList) revert(n int) {
	for i := len(al.journal) - 1; i >= n; i-- {
		c := al.journal[i]
		if c.isSlot {
			delete(al.addrs[c.addr], c.slot)
			continue
		}
		// A precompile warmed with a slot sits in addrs without having
		// been journaled as an address: only journaled ones are removed.
		if slots := al.addrs[c.addr]; slots != nil {
			clear(slots)
			al.spare = append(al.spare, slots)
		}
		delete(al.addrs, c.addr)
	}
	al.journal = al.journal[:n]
}
