package pending

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Layer is an immutable set of state changes over a base state.Reader: the
// changes that one pre-confirmation tick made to the block being built. A
// layer points at the previous tick's layer, so a snapshot's view of the
// pending state is its newest layer; building a new one copies nothing.
//
// A Layer implements state.Reader and is safe for concurrent use.
type Layer struct {
	parent   *Layer       // the previous tick of the same block, or nil
	base     state.Reader // state of the block the pending block builds on
	accounts map[common.Address]*types.StateAccount
	storage  map[common.Address]map[common.Hash]common.Hash
	code     map[common.Hash][]byte
}

// Changes are what a tick changed, as final values. A nil account means the
// account does not exist after the tick.
type Changes struct {
	Accounts map[common.Address]*types.StateAccount
	Storage  map[common.Address]map[common.Hash]common.Hash
	Code     map[common.Hash][]byte
}

// NewLayer stacks changes over parent, or over base when parent is nil. The
// layer takes ownership of the maps in changes.
func NewLayer(base state.Reader, parent *Layer, changes Changes) *Layer {
	if parent != nil {
		base = parent.base
	}
	return &Layer{parent: parent, base: base, accounts: changes.Accounts, storage: changes.Storage, code: changes.Code}
}

// Rebase returns l's changes, and those of the layers under it, over base
// instead of l's base: the same view once base reads what l's base and
// the layers it replaces read. It copies no map.
func (l *Layer) Rebase(base state.Reader) *Layer {
	var parent *Layer
	if l.parent != nil {
		parent = l.parent.Rebase(base)
	}
	return &Layer{parent: parent, base: base, accounts: l.accounts, storage: l.storage, code: l.code}
}

// Account implements state.StateReader.
func (l *Layer) Account(addr common.Address) (*types.StateAccount, error) {
	for layer := l; layer != nil; layer = layer.parent {
		if account, ok := layer.accounts[addr]; ok {
			if account == nil {
				return nil, nil
			}
			return account.Copy(), nil
		}
	}
	return l.base.Account(addr)
}

// AccountShared implements SharedAccountReader.
func (l *Layer) AccountShared(addr common.Address) (*types.StateAccount, error) {
	for layer := l; layer != nil; layer = layer.parent {
		if account, ok := layer.accounts[addr]; ok {
			return account, nil
		}
	}
	if shared, ok := l.base.(SharedAccountReader); ok {
		return shared.AccountShared(addr)
	}
	return l.base.Account(addr)
}

// Storage implements state.StateReader.
func (l *Layer) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	for layer := l; layer != nil; layer = layer.parent {
		if value, ok := layer.storage[addr][slot]; ok {
			return value, nil
		}
	}
	return l.base.Storage(addr, slot)
}

// Has implements state.ContractCodeReader.
func (l *Layer) Has(addr common.Address, codeHash common.Hash) bool {
	if _, ok := l.lookupCode(codeHash); ok {
		return true
	}
	return l.base.Has(addr, codeHash)
}

// Code implements state.ContractCodeReader.
func (l *Layer) Code(addr common.Address, codeHash common.Hash) []byte {
	if code, ok := l.lookupCode(codeHash); ok {
		return code
	}
	return l.base.Code(addr, codeHash)
}

// CodeSize implements state.ContractCodeReader.
func (l *Layer) CodeSize(addr common.Address, codeHash common.Hash) int {
	if code, ok := l.lookupCode(codeHash); ok {
		return len(code)
	}
	return l.base.CodeSize(addr, codeHash)
}

func (l *Layer) lookupCode(codeHash common.Hash) ([]byte, bool) {
	for layer := l; layer != nil; layer = layer.parent {
		if code, ok := layer.code[codeHash]; ok {
			return code, true
		}
	}
	return nil, false
}

// Capture reads the final values of the touched accounts and slots from the
// block builder's state, as the Changes of one tick.
func Capture(st *state.StateDB, touched *Touched) Changes {
	changes := Changes{
		Accounts: make(map[common.Address]*types.StateAccount, len(touched.accounts)),
		Storage:  make(map[common.Address]map[common.Hash]common.Hash, len(touched.slots)),
		Code:     make(map[common.Hash][]byte),
	}
	for addr := range touched.accounts {
		if !st.Exist(addr) {
			changes.Accounts[addr] = nil
			continue
		}
		codeHash := st.GetCodeHash(addr)
		changes.Accounts[addr] = &types.StateAccount{
			Nonce:    st.GetNonce(addr),
			Balance:  st.GetBalance(addr).Clone(),
			Root:     st.GetStorageRoot(addr),
			CodeHash: codeHash.Bytes(),
		}
		if codeHash != types.EmptyCodeHash {
			if _, known := touched.code[codeHash]; known {
				changes.Code[codeHash] = st.GetCode(addr)
			}
		}
	}
	for addr, slots := range touched.slots {
		values := make(map[common.Hash]common.Hash, len(slots))
		for slot := range slots {
			values[slot] = st.GetState(addr, slot)
		}
		changes.Storage[addr] = values
	}
	return changes
}

// CaptureSealed is Capture for the last layer of a sealed block, whose
// state has been hashed: besides what touched holds, it captures again
// every account top or a layer under it holds, because only now are their
// storage roots final (a tick's layer holds each account's root as of the
// last hashing). Layered over top, it makes the block's state readable,
// roots included, before its commit to the database ends. touched is
// spent.
func CaptureSealed(st *state.StateDB, top *Layer, touched *Touched) Changes {
	for layer := top; layer != nil; layer = layer.parent {
		for addr := range layer.accounts {
			touched.Account(addr)
		}
	}
	return Capture(st, touched)
}

// Touched collects which accounts, slots and code a tick changed; its hook
// methods are wired into a tracing.Hooks on the builder's state.
type Touched struct {
	accounts map[common.Address]struct{}
	slots    map[common.Address]map[common.Hash]struct{}
	code     map[common.Hash]struct{}
}

// NewTouched returns an empty set.
func NewTouched() *Touched {
	return &Touched{
		accounts: make(map[common.Address]struct{}),
		slots:    make(map[common.Address]map[common.Hash]struct{}),
		code:     make(map[common.Hash]struct{}),
	}
}

// Empty reports whether nothing was touched.
func (t *Touched) Empty() bool { return len(t.accounts) == 0 && len(t.slots) == 0 }

// Account marks an account's balance, nonce or existence as changed.
func (t *Touched) Account(addr common.Address) { t.accounts[addr] = struct{}{} }

// Code marks an account's code as changed.
func (t *Touched) Code(addr common.Address, code []byte) {
	t.accounts[addr] = struct{}{}
	if len(code) > 0 {
		t.code[crypto.Keccak256Hash(code)] = struct{}{}
	}
}

// Slot marks a storage slot as changed.
func (t *Touched) Slot(addr common.Address, slot common.Hash) {
	t.accounts[addr] = struct{}{}
	slots := t.slots[addr]
	if slots == nil {
		slots = make(map[common.Hash]struct{})
		t.slots[addr] = slots
	}
	slots[slot] = struct{}{}
}
