package revert

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/contracts"
)

func typ(t testing.TB, name string) abi.Type {
	t.Helper()
	ty, err := abi.NewType(name, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// encode is selector(sig) followed by args packed as types.
func encode(t testing.TB, sig string, types []string, args ...any) []byte {
	t.Helper()
	var in abi.Arguments
	for _, name := range types {
		in = append(in, abi.Argument{Type: typ(t, name)})
	}
	packed, err := in.Pack(args...)
	if err != nil {
		t.Fatal(err)
	}
	return append(crypto.Keccak256([]byte(sig))[:4], packed...)
}

// shippedError is the revert data of a shipped contract's custom error.
func shippedError(t testing.TB, artifact, name string, args ...any) []byte {
	t.Helper()
	e, ok := contracts.MustLoad(artifact).ABI.Errors[name]
	if !ok {
		t.Fatalf("%s declares no error %s", artifact, name)
	}
	packed, err := e.Inputs.Pack(args...)
	if err != nil {
		t.Fatal(err)
	}
	return append(e.ID[:4:4], packed...)
}

func panicData(t testing.TB, code *big.Int) []byte {
	return encode(t, "Panic(uint256)", []string{"uint256"}, code)
}

func TestReason(t *testing.T) {
	admin := common.HexToAddress("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
	reason := encode(t, "Error(string)", []string{"string"}, "always fails")
	custom := shippedError(t, contracts.B20Asset, "AccessControlUnauthorizedAccount", admin, contracts.MintRole)
	tests := []struct {
		name string
		data []byte
		want string // "" for no reason
	}{
		{"Error(string)", reason, "always fails"},
		{"Error(string) with quotes and a newline", encode(t, "Error(string)", []string{"string"}, "say \"no\"\nagain"), "say \"no\"\nagain"},
		{"Error(string) empty", encode(t, "Error(string)", []string{"string"}, ""), ""},
		{"Panic unknown code", panicData(t, big.NewInt(0x99)), "panic: unknown code (0x99)"},
		{"Panic code past uint64", panicData(t, new(big.Int).Lsh(big.NewInt(1), 70)), "panic: unknown code (0x400000000000000000)"},

		{"AccessControlUnauthorizedAccount", custom,
			"AccessControlUnauthorizedAccount(0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed, " + contracts.MintRole.Hex() + ")"},
		{"InsufficientBalance", shippedError(t, contracts.B20Asset, "InsufficientBalance", admin, big.NewInt(5), new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)),
			"InsufficientBalance(0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed, 5, 1000000000000000000000)"},
		{"ContractPaused(uint8)", shippedError(t, contracts.B20Asset, "ContractPaused", contracts.FeatureMint), "ContractPaused(1)"},
		{"AnnouncementIdAlreadyUsed(string)", shippedError(t, contracts.B20Asset, "AnnouncementIdAlreadyUsed", "split-2026-1"), `AnnouncementIdAlreadyUsed("split-2026-1")`},
		{"InternalCallFailed(bytes)", shippedError(t, contracts.B20Asset, "InternalCallFailed", []byte{0xde, 0xad}), "InternalCallFailed(0xdead)"},
		{"PolicyForbids(bytes32,uint64)", shippedError(t, contracts.B20Asset, "PolicyForbids", contracts.TransferSenderPolicy, contracts.AlwaysBlock),
			"PolicyForbids(" + contracts.TransferSenderPolicy.Hex() + ", 72057594037927937)"},
		{"no arguments", shippedError(t, contracts.B20Asset, "EmptyBatch"), "EmptyBatch()"},
		{"the factory's", shippedError(t, contracts.B20Factory, "UnsupportedVersion", uint8(2), uint8(1)), "UnsupportedVersion(2, 1)"},
		{"the PolicyRegistry's PolicyNotFound()", shippedError(t, contracts.PolicyRegistry, "PolicyNotFound"), "PolicyNotFound()"},
		{"the token's PolicyNotFound(uint64)", shippedError(t, contracts.B20Asset, "PolicyNotFound", uint64(7)), "PolicyNotFound(7)"},
		{"the ActivationRegistry's Unauthorized(address)", shippedError(t, contracts.ActivationRegistry, "Unauthorized", admin), "Unauthorized(0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed)"},
		{"the TokenSupplyManager's", shippedError(t, contracts.TokenSupplyManager, "NotOperator", admin, common.Address{}),
			"NotOperator(0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed, 0x0000000000000000000000000000000000000000)"},
		{"trailing bytes after a custom error", append(shippedError(t, contracts.B20Asset, "ContractPaused", uint8(0)), 1, 2, 3), "ContractPaused(0)"},

		{"unknown selector", encode(t, "Unauthorized(address,uint256)", []string{"address", "uint256"}, admin, big.NewInt(42)), ""},
		{"unknown selector alone", []byte{1, 2, 3, 4}, ""},
		{"nil", nil, ""},
		{"empty", []byte{}, ""},
		{"three bytes", []byte{0x08, 0xc3, 0x79}, ""},
		{"Error selector alone", reason[:4], ""},
		{"Error(string) cut short", reason[:4+40], ""},
		{"Error(string) length past the data", func() []byte {
			d := append([]byte{}, reason...)
			d[4+63] = 0xff // the string's length word
			return d
		}(), ""},
		{"Error(string) offset past the data", func() []byte {
			d := append([]byte{}, reason...)
			copy(d[4:36], common.MaxHash[:])
			return d
		}(), ""},
		{"Panic selector alone", panicData(t, big.NewInt(1))[:4], ""},
		{"Panic cut short", panicData(t, big.NewInt(1))[:20], ""},
		{"custom error selector alone", custom[:4], ""},
		{"custom error cut short", custom[:4+32+10], ""},
		{"custom error with a bad string offset", func() []byte {
			d := shippedError(t, contracts.B20Asset, "AnnouncementIdAlreadyUsed", "x")
			copy(d[4:36], common.MaxHash[:])
			return d
		}(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Reason(tt.data)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("Reason(%x) = %q, %v; want %q", tt.data, got, ok, tt.want)
			}
		})
	}
}

// Every panic code solc documents, in go-ethereum's words (accounts/abi's
// UnpackRevert), with the code as Foundry shows it.
func TestReasonPanics(t *testing.T) {
	tests := []struct {
		code uint64
		want string
	}{
		{0x00, "panic: generic panic (0x00)"},
		{0x01, "panic: assert(false) (0x01)"},
		{0x11, "panic: arithmetic underflow or overflow (0x11)"},
		{0x12, "panic: division or modulo by zero (0x12)"},
		{0x21, "panic: enum overflow (0x21)"},
		{0x22, "panic: invalid encoded storage byte array accessed (0x22)"},
		{0x31, "panic: out-of-bounds array access; popping on an empty array (0x31)"},
		{0x32, "panic: out-of-bounds access of an array or bytesN (0x32)"},
		{0x41, "panic: out of memory (0x41)"},
		{0x51, "panic: uninitialized function (0x51)"},
	}
	if len(tests) != len(panics) {
		t.Fatalf("%d codes tested, %d known", len(tests), len(panics))
	}
	for _, tt := range tests {
		data := panicData(t, new(big.Int).SetUint64(tt.code))
		got, ok := Reason(data)
		if !ok || got != tt.want {
			t.Errorf("Panic(%#x): %q, %v; want %q", tt.code, got, ok, tt.want)
		}
		geth, err := abi.UnpackRevert(data)
		if err != nil || !strings.Contains(got, "panic: "+geth+" (") {
			t.Errorf("Panic(%#x): %q, go-ethereum says %q (%v)", tt.code, got, geth, err)
		}
	}
}

// The table holds every shipped contract's errors.
func TestCustomErrorsTable(t *testing.T) {
	table := customErrors()
	for _, name := range shipped {
		for _, e := range contracts.MustLoad(name).ABI.Errors {
			found := false
			for _, have := range table[[4]byte(e.ID[:4])] {
				found = found || have.Sig == e.Sig
			}
			if !found {
				t.Errorf("%s's %s is not in the table", name, e.Sig)
			}
		}
	}
}

// Whatever the data, Reason does not panic.
func FuzzReason(f *testing.F) {
	f.Add(encode(f, "Error(string)", []string{"string"}, "always fails"))
	f.Add(panicData(f, big.NewInt(0x11)))
	f.Add(shippedError(f, contracts.B20Asset, "AnnouncementIdAlreadyUsed", "split"))
	f.Add(shippedError(f, contracts.B20Asset, "InternalCallFailed", []byte{1, 2, 3}))
	f.Add(shippedError(f, contracts.B20Asset, "InsufficientBalance", common.Address{1}, big.NewInt(1), big.NewInt(2)))
	f.Add([]byte{0x08, 0xc3, 0x79, 0xa0, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) { Reason(data) })
}
