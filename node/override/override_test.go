package override

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/codec"
)

var (
	ecrecover = common.BytesToAddress([]byte{1})
	sha256    = common.BytesToAddress([]byte{2})
	identity  = common.BytesToAddress([]byte{4})
	addrA     = common.HexToAddress("0xa000000000000000000000000000000000000000")
	addrB     = common.HexToAddress("0xb000000000000000000000000000000000000000")
	addrC     = common.HexToAddress("0xc000000000000000000000000000000000000000")
)

func TestParseState(t *testing.T) {
	tests := []struct {
		name, raw string
		want      State  // when no error
		err       string // a part of the error
	}{
		{name: "absent", raw: ``},
		{name: "null", raw: `null`},
		{name: "empty", raw: `{}`, want: State{}},
		{name: "null account", raw: `{"0xa000000000000000000000000000000000000000": null}`, want: State{addrA: {}}},
		{name: "every field", raw: `{"0xa000000000000000000000000000000000000000": {"nonce": "0x7", "code": "0x00", "balance": "0x10",
			"stateDiff": {"0x0000000000000000000000000000000000000000000000000000000000000001": "0x0000000000000000000000000000000000000000000000000000000000000002"},
			"movePrecompileToAddress": "0xb000000000000000000000000000000000000000"}}`, want: State{addrA: {
			Nonce: ptr(hexutil.Uint64(7)), Code: &hexutil.Bytes{0}, Balance: (*hexutil.Big)(big.NewInt(16)),
			StateDiff: map[common.Hash]common.Hash{common.BigToHash(big.NewInt(1)): common.BigToHash(big.NewInt(2))}, MoveTo: &addrB}}},
		{name: "keys in any case", raw: `{"0xa000000000000000000000000000000000000000": {"Nonce": "0x7"}}`, want: State{addrA: {Nonce: ptr(hexutil.Uint64(7))}}},
		{name: "not an object", raw: `[]`, err: "cannot unmarshal array"},
		{name: "bad address", raw: `{"0x12": {}}`, err: "hex string has length 2"},
		{name: "unknown key", raw: `{"0xa000000000000000000000000000000000000000": {"stateDif": {}}}`, err: `account 0xa000000000000000000000000000000000000000: json: unknown field "stateDif"`},
		{name: "bad balance", raw: `{"0xa000000000000000000000000000000000000000": {"balance": "lots"}}`, err: "account 0xa000000000000000000000000000000000000000"},
		{name: "balance over 256 bits", raw: `{"0xa000000000000000000000000000000000000000": {"balance": "0x1` + strings.Repeat("0", 64) + `"}}`, err: "256 bits"},
		{name: "nonce over 64 bits", raw: `{"0xa000000000000000000000000000000000000000": {"nonce": "0x10000000000000000"}}`, err: "64 bits"},
		{name: "not an account object", raw: `{"0xa000000000000000000000000000000000000000": 7}`, err: "cannot unmarshal number"},
		// Of two bad accounts, the lower address is named, whatever the order of the keys.
		{name: "first bad in address order", raw: `{"0xc000000000000000000000000000000000000000": {"x": 1}, "0xb000000000000000000000000000000000000000": {"y": 1}}`,
			err: `account 0xB000000000000000000000000000000000000000: json: unknown field "y"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 10 { // map order varies between runs
				got, err := ParseState([]byte(tt.raw))
				if tt.err != "" {
					if err == nil || !strings.Contains(err.Error(), tt.err) {
						t.Fatalf("error %v, want one with %q", err, tt.err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if !equalState(got, tt.want) {
					t.Fatalf("got %+v, want %+v", got, tt.want)
				}
			}
		})
	}
}

func TestParseBlock(t *testing.T) {
	tests := []struct {
		name, raw string
		want      *Block
		err       string
	}{
		{name: "absent", raw: ``},
		{name: "null", raw: `null`},
		{name: "fields", raw: `{"number": "0x10", "time": "0x20", "gasLimit": "0x30", "baseFeePerGas": "0x7", "blobBaseFee": "0x8",
			"feeRecipient": "0xa000000000000000000000000000000000000000", "prevRandao": "0x0000000000000000000000000000000000000000000000000000000000000009"}`,
			want: &Block{Number: ptr(hexutil.Uint64(16)), Time: ptr(hexutil.Uint64(32)), GasLimit: ptr(hexutil.Uint64(48)),
				BaseFeePerGas: (*hexutil.Big)(big.NewInt(7)), BlobBaseFee: (*hexutil.Big)(big.NewInt(8)), FeeRecipient: &addrA,
				PrevRandao: ptr(common.BigToHash(big.NewInt(9)))}},
		{name: "withdrawals", raw: `{"withdrawals": [{"index": "0x0", "validatorIndex": "0x1", "address": "0xa000000000000000000000000000000000000000", "amount": "0x2"}]}`,
			want: &Block{Withdrawals: types.Withdrawals{{Index: 0, Validator: 1, Address: addrA, Amount: 2}}}},
		{name: "unknown key", raw: `{"timestamp": "0x1"}`, err: `unknown field "timestamp"`},
		{name: "number over 64 bits", raw: `{"number": "0x10000000000000000"}`, err: "64 bits"},
		{name: "bad number", raw: `{"number": "ten"}`, err: "cannot unmarshal"},
		{name: "not an object", raw: `"latest"`, err: "cannot unmarshal string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBlock([]byte(tt.raw))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tt.want == nil) || (got != nil && !equalBlock(got, tt.want)) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Apply: what each field does, the checks done before anything changes
// (in address order, whatever the map's), and the precompile moves.
func TestApply(t *testing.T) {
	slot1, slot2, v := common.BigToHash(big.NewInt(1)), common.BigToHash(big.NewInt(2)), common.BigToHash(big.NewInt(42))
	tests := []struct {
		name        string
		set         State
		noMoves     bool // nil precompiles: a method that moves none
		code        int  // the error's, 0: none
		err         string
		changed     bool
		precompiles map[common.Address]common.Address // address -> the precompile (by its original address) found there; zero: none
		check       func(t *testing.T, st *state.StateDB)
	}{
		{name: "fields", set: State{addrA: {Nonce: ptr(hexutil.Uint64(5)), Code: &hexutil.Bytes{0x60, 0x00}, Balance: (*hexutil.Big)(big.NewInt(99)),
			StateDiff: map[common.Hash]common.Hash{slot2: v}}},
			check: func(t *testing.T, st *state.StateDB) {
				if st.GetNonce(addrA) != 5 || st.GetBalance(addrA).Uint64() != 99 || len(st.GetCode(addrA)) != 2 {
					t.Errorf("nonce %d balance %v code %x", st.GetNonce(addrA), st.GetBalance(addrA), st.GetCode(addrA))
				}
				if st.GetState(addrA, slot1) != v || st.GetState(addrA, slot2) != v {
					t.Error("stateDiff replaced the other slots")
				}
				// Finalised: the overrides are what SSTORE prices against.
				if st.GetCommittedState(addrA, slot2) != v {
					t.Error("stateDiff not committed")
				}
			}},
		{name: "state replaces storage", set: State{addrA: {State: map[common.Hash]common.Hash{slot2: v}}},
			check: func(t *testing.T, st *state.StateDB) {
				if st.GetState(addrA, slot1) != (common.Hash{}) || st.GetState(addrA, slot2) != v {
					t.Error("state did not replace the storage")
				}
			}},
		{name: "state and stateDiff", set: State{addrA: {State: map[common.Hash]common.Hash{}, StateDiff: map[common.Hash]common.Hash{}}},
			code: codec.CodeInvalidParams, err: "has both 'state' and 'stateDiff'"},
		// Of several bad accounts, the lowest address's error, and nothing applied.
		{name: "first bad in address order", set: State{
			addrA: {Nonce: ptr(hexutil.Uint64(9))},
			addrB: {State: map[common.Hash]common.Hash{}, StateDiff: map[common.Hash]common.Hash{}},
			addrC: {State: map[common.Hash]common.Hash{}, StateDiff: map[common.Hash]common.Hash{}}},
			code: codec.CodeInvalidParams, err: "account " + addrB.Hex()},
		{name: "move", set: State{ecrecover: {MoveTo: &addrC}}, changed: true,
			precompiles: map[common.Address]common.Address{addrC: ecrecover, ecrecover: {}}},
		{name: "move and replace the code", set: State{ecrecover: {MoveTo: &addrC, Code: &hexutil.Bytes{0x00}}}, changed: true,
			precompiles: map[common.Address]common.Address{addrC: ecrecover, ecrecover: {}},
			check: func(t *testing.T, st *state.StateDB) {
				if len(st.GetCode(ecrecover)) != 1 {
					t.Error("code not set at the old address")
				}
			}},
		{name: "move onto another precompile", set: State{ecrecover: {MoveTo: &identity}}, changed: true,
			precompiles: map[common.Address]common.Address{identity: ecrecover, ecrecover: {}, sha256: sha256}},
		{name: "overridden precompile stops being one", set: State{sha256: {Balance: (*hexutil.Big)(big.NewInt(1))}}, changed: true,
			precompiles: map[common.Address]common.Address{sha256: {}, ecrecover: ecrecover}},
		{name: "no precompile touched", set: State{addrA: {}}, precompiles: map[common.Address]common.Address{ecrecover: ecrecover}},
		{name: "empty set", set: State{}, precompiles: map[common.Address]common.Address{ecrecover: ecrecover}},
		{name: "no set", precompiles: map[common.Address]common.Address{ecrecover: ecrecover}},
		{name: "negative balance made in Go", set: State{addrA: {Balance: (*hexutil.Big)(big.NewInt(-1))}}, code: codec.CodeInvalidParams, err: "balance out of range"},
		{name: "move to itself", set: State{ecrecover: {MoveTo: &ecrecover}}, code: CodeMoveToItself, err: "references itself"},
		{name: "two moves to one address", set: State{ecrecover: {MoveTo: &addrC}, sha256: {MoveTo: &addrC}}, code: CodeMoveToSameAddress,
			err: "accounts " + ecrecover.Hex() + " and " + sha256.Hex() + " are both moved to " + addrC.Hex()},
		{name: "move of a non-precompile", set: State{addrA: {MoveTo: &addrC}}, code: codec.CodeInvalidParams, err: "is not a precompile"},
		{name: "move of a non-precompile to itself", set: State{addrA: {MoveTo: &addrA}}, code: codec.CodeInvalidParams, err: "is not a precompile"},
		{name: "move onto an override", set: State{ecrecover: {MoveTo: &addrC}, addrC: {Nonce: ptr(hexutil.Uint64(1))}},
			code: codec.CodeInvalidParams, err: "account " + addrC.Hex() + " is already overridden"},
		{name: "method without moves", set: State{ecrecover: {MoveTo: &addrC}}, noMoves: true, code: codec.CodeInvalidParams, err: "not supported by this method"},
		{name: "method without moves keeps precompiles", set: State{ecrecover: {Code: &hexutil.Bytes{0}}}, noMoves: true},
	}
	rules := params.MergedTestChainConfig.Rules(big.NewInt(0), true, 0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 10 { // map order varies between runs
				st := newState(t)
				st.SetState(addrA, slot1, v)
				st.Finalise(params.Rules{})
				var precompiles vm.PrecompiledContracts
				original := vm.ActivePrecompiledContracts(rules)
				if !tt.noMoves {
					precompiles = vm.ActivePrecompiledContracts(rules)
				}
				changed, err := tt.set.Apply(st, precompiles)
				if tt.code != 0 {
					var cerr *codec.Error
					if !errors.As(err, &cerr) || cerr.Code != tt.code || !strings.Contains(cerr.Message, tt.err) {
						t.Fatalf("error %v, want code %d with %q", err, tt.code, tt.err)
					}
					if st.GetNonce(addrA) != 0 || (!tt.noMoves && len(precompiles) != len(original)) {
						t.Fatal("a refused set changed the state or the precompiles")
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if changed != tt.changed {
					t.Errorf("changed %v, want %v", changed, tt.changed)
				}
				for at, want := range tt.precompiles {
					got, ok := precompiles[at]
					switch {
					case want == (common.Address{}) && ok:
						t.Errorf("%s: still a precompile", at.Hex())
					case want != (common.Address{}) && got != original[want]:
						t.Errorf("%s: %v, want the precompile of %s", at.Hex(), got, want.Hex())
					}
				}
				if tt.check != nil {
					tt.check(t, st)
				}
			}
		})
	}
}

func TestBlock(t *testing.T) {
	random := common.BigToHash(big.NewInt(5))
	o := &Block{Number: ptr(hexutil.Uint64(11)), Time: ptr(hexutil.Uint64(12)), GasLimit: ptr(hexutil.Uint64(13)),
		FeeRecipient: &addrA, PrevRandao: &random, BaseFeePerGas: (*hexutil.Big)(big.NewInt(14)),
		BlobBaseFee: (*hexutil.Big)(big.NewInt(15)), Difficulty: (*hexutil.Big)(big.NewInt(16))}
	t.Run("MakeHeader", func(t *testing.T) {
		for _, difficulty := range []int64{0, 1} {
			h := &types.Header{Number: big.NewInt(1), Time: 2, GasLimit: 3, BaseFee: big.NewInt(4), Difficulty: big.NewInt(difficulty)}
			got := o.MakeHeader(h)
			if got == h || h.Number.Uint64() != 1 || h.Time != 2 {
				t.Fatal("MakeHeader changed its argument")
			}
			if got.Number.Uint64() != 11 || got.Time != 12 || got.GasLimit != 13 || got.Coinbase != addrA || got.MixDigest != random || got.BaseFee.Uint64() != 14 {
				t.Errorf("header %+v", got)
			}
			// The difficulty changes only before the merge.
			if want := map[int64]int64{0: 0, 1: 16}[difficulty]; got.Difficulty.Int64() != want {
				t.Errorf("difficulty %v -> %v, want %d", difficulty, got.Difficulty, want)
			}
		}
		var none *Block
		if h := new(types.Header); none.MakeHeader(h) != h {
			t.Error("a nil override copied the header")
		}
	})
	t.Run("Apply", func(t *testing.T) {
		ctx := vm.BlockContext{BlockNumber: big.NewInt(1)}
		if err := o.Apply(&ctx); err != nil {
			t.Fatal(err)
		}
		if ctx.BlockNumber.Uint64() != 11 || ctx.Time != 12 || ctx.GasLimit != 13 || ctx.Coinbase != addrA || *ctx.Random != random ||
			ctx.BaseFee.Uint64() != 14 || ctx.BlobBaseFee.Uint64() != 15 || ctx.Difficulty.Uint64() != 16 {
			t.Errorf("context %+v", ctx)
		}
	})
	for _, tt := range []struct {
		name string
		o    *Block
		err  string
	}{
		{"nil", nil, ""},
		{"fields of a call", o, ""},
		{"beaconRoot", &Block{BeaconRoot: &random}, `"beaconRoot" is not supported`},
		{"withdrawals", &Block{Withdrawals: types.Withdrawals{}}, `"withdrawals" is not supported`},
	} {
		t.Run("ForCall/"+tt.name, func(t *testing.T) {
			err := tt.o.ForCall()
			if err2 := tt.o.Apply(new(vm.BlockContext)); (err == nil) != (err2 == nil) {
				t.Errorf("ForCall %v, Apply %v", err, err2)
			}
			if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
		})
	}
}

func newState(t *testing.T) *state.StateDB {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func ptr[T any](v T) *T { return &v }

func equalState(a, b State) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for addr, x := range a {
		y, ok := b[addr]
		if !ok || !equalJSON(x, y) {
			return false
		}
	}
	return true
}

func equalBlock(a, b *Block) bool { return equalJSON(a, b) }

// equalJSON compares overrides by their encoding: every field is a
// pointer, map or slice.
func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
