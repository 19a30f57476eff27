package pending

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
)

// mapReader is a base state for tests.
type mapReader struct {
	accounts map[common.Address]*types.StateAccount
	storage  map[common.Address]map[common.Hash]common.Hash
	code     map[common.Hash][]byte
}

func (m *mapReader) Account(addr common.Address) (*types.StateAccount, error) {
	if a := m.accounts[addr]; a != nil {
		return a.Copy(), nil
	}
	return nil, nil
}
func (m *mapReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	return m.storage[addr][slot], nil
}
func (m *mapReader) Has(_ common.Address, h common.Hash) bool     { _, ok := m.code[h]; return ok }
func (m *mapReader) Code(_ common.Address, h common.Hash) []byte  { return m.code[h] }
func (m *mapReader) CodeSize(_ common.Address, h common.Hash) int { return len(m.code[h]) }

func account(balance uint64, code []byte) *types.StateAccount {
	return &types.StateAccount{Balance: uint256.NewInt(balance), Root: types.EmptyRootHash, CodeHash: crypto.Keccak256(code)}
}

func TestLayerReads(t *testing.T) {
	a, b, c := common.Address{0xa}, common.Address{0xb}, common.Address{0xc}
	slot := common.Hash{1}
	oldCode, newCode := []byte{0x60, 0x00}, []byte{0x60, 0x01}
	base := &mapReader{
		accounts: map[common.Address]*types.StateAccount{a: account(1, nil), b: account(2, oldCode)},
		storage:  map[common.Address]map[common.Hash]common.Hash{b: {slot: {0x11}}},
		code:     map[common.Hash][]byte{crypto.Keccak256Hash(oldCode): oldCode},
	}
	tick1 := NewLayer(base, nil, Changes{
		Accounts: map[common.Address]*types.StateAccount{a: account(10, nil), c: account(3, newCode)},
		Storage:  map[common.Address]map[common.Hash]common.Hash{b: {slot: {0x22}}},
		Code:     map[common.Hash][]byte{crypto.Keccak256Hash(newCode): newCode},
	})
	tick2 := NewLayer(base, tick1, Changes{
		Accounts: map[common.Address]*types.StateAccount{a: nil},
		Storage:  map[common.Address]map[common.Hash]common.Hash{b: {{2}: {0x33}}},
	})

	tests := []struct {
		name        string
		reader      *Layer
		addr        common.Address
		wantBalance uint64 // 0 with wantNil
		wantNil     bool
		slot        common.Hash
		wantSlot    common.Hash
	}{
		{"tick1 overrides base balance", tick1, a, 10, false, slot, common.Hash{}},
		{"tick2 deletes the account", tick2, a, 0, true, slot, common.Hash{}},
		{"untouched account reads base", tick2, b, 2, false, slot, common.Hash{0x22}},
		{"tick1 slot", tick1, b, 2, false, slot, common.Hash{0x22}},
		{"tick2 slot of its own", tick2, b, 2, false, common.Hash{2}, common.Hash{0x33}},
		{"slot unknown to every layer reads base", tick1, b, 2, false, common.Hash{2}, common.Hash{}},
		{"account created in tick1", tick2, c, 3, false, slot, common.Hash{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acct, err := tt.reader.Account(tt.addr)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantNil != (acct == nil) {
				t.Fatalf("Account() = %v, want nil %v", acct, tt.wantNil)
			}
			if acct != nil && acct.Balance.Uint64() != tt.wantBalance {
				t.Fatalf("balance = %d, want %d", acct.Balance.Uint64(), tt.wantBalance)
			}
			if got, _ := tt.reader.Storage(tt.addr, tt.slot); got != tt.wantSlot {
				t.Fatalf("Storage() = %x, want %x", got, tt.wantSlot)
			}
		})
	}
	// Code: new code from a layer, old code from base.
	if got := tick2.Code(c, crypto.Keccak256Hash(newCode)); string(got) != string(newCode) {
		t.Fatalf("layer code = %x", got)
	}
	if got := tick2.CodeSize(b, crypto.Keccak256Hash(oldCode)); got != len(oldCode) {
		t.Fatalf("base code size = %d", got)
	}
	// Readers get copies: mutating one must not change the layer.
	acct, _ := tick1.Account(a)
	acct.Balance.SetUint64(999)
	if again, _ := tick1.Account(a); again.Balance.Uint64() != 10 {
		t.Fatal("Account() returned the layer's own value")
	}
}

func TestStorePublishLoad(t *testing.T) {
	var s Store
	if s.Load() != nil {
		t.Fatal("empty store returned a snapshot")
	}
	snap := &Snapshot{Seq: 7}
	s.Publish(snap)
	if s.Load() != snap {
		t.Fatal("Load() did not return the published snapshot")
	}
}

// TestRebase: a rebased layer keeps its own and its parents' changes and
// reads everything else from the new base.
func TestRebase(t *testing.T) {
	a, b, c := common.Address{0xa}, common.Address{0xb}, common.Address{0xc}
	old := &mapReader{accounts: map[common.Address]*types.StateAccount{a: account(1, nil), b: account(2, nil), c: account(3, nil)}}
	tick1 := NewLayer(old, nil, Changes{Accounts: map[common.Address]*types.StateAccount{a: account(10, nil)}})
	tick2 := NewLayer(old, tick1, Changes{Accounts: map[common.Address]*types.StateAccount{b: nil}})
	fresh := &mapReader{accounts: map[common.Address]*types.StateAccount{a: account(5, nil), b: account(6, nil), c: account(7, nil)}}
	rebased := tick2.Rebase(fresh)
	for _, tt := range []struct {
		addr common.Address
		want *types.StateAccount
	}{
		{a, account(10, nil)}, // tick1's change
		{b, nil},              // deleted by tick2
		{c, account(7, nil)},  // the new base's
	} {
		got, err := rebased.Account(tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		if (got == nil) != (tt.want == nil) || (got != nil && got.Balance.Cmp(tt.want.Balance) != 0) {
			t.Errorf("account %s: %+v, want %+v", tt.addr, got, tt.want)
		}
	}
	if got, _ := tick2.Account(c); got.Balance.Uint64() != 3 {
		t.Errorf("the original layer reads %v for c, want its own base's 3", got.Balance)
	}
}
