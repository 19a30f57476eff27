// Package revert says why a call reverted, from its revert data: Solidity's
// Error(string) and Panic(uint256), and the custom errors of the contracts
// stocknode ships (package contracts: the B20 factory and tokens, the
// PolicyRegistry, the ActivationRegistry, the TokenSupplyManager). The words
// are the reason itself (as geth gives it), and as Foundry (cast, anvil)
// words the others: "panic: <meaning> (0x11)", and "Name(arg, …)" with
// addresses checksummed, integers in decimal, bytes in hex and strings
// quoted. Decoding is go-ethereum's abi package; the table of custom errors
// is built once, on first use.
package revert

import (
	"bytes"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/contracts"
)

var (
	errorSelector = crypto.Keccak256([]byte("Error(string)"))[:4]
	panicSelector = crypto.Keccak256([]byte("Panic(uint256)"))[:4]
)

// panics are the panic codes solc documents, in go-ethereum's words
// (accounts/abi's, which alloy and so Foundry use too).
var panics = map[uint64]string{
	0x00: "generic panic",
	0x01: "assert(false)",
	0x11: "arithmetic underflow or overflow",
	0x12: "division or modulo by zero",
	0x21: "enum overflow",
	0x22: "invalid encoded storage byte array accessed",
	0x31: "out-of-bounds array access; popping on an empty array",
	0x32: "out-of-bounds access of an array or bytesN",
	0x41: "out of memory",
	0x51: "uninitialized function",
}

// Reason returns why a call that reverted with data did, and whether the
// data says: false for empty data, an unknown selector, or data its
// selector's arguments do not decode from.
func Reason(data []byte) (string, bool) {
	if len(data) < 4 {
		return "", false
	}
	switch {
	case bytes.Equal(data[:4], errorSelector):
		reason, err := abi.UnpackRevert(data)
		if err != nil || reason == "" {
			return "", false
		}
		return reason, true
	case bytes.Equal(data[:4], panicSelector):
		return panicReason(data)
	}
	for _, e := range customErrors()[[4]byte(data[:4])] {
		if s, ok := custom(e, data); ok {
			return s, true
		}
	}
	return "", false
}

// panicReason is Foundry's "panic: <meaning> (0x11)".
func panicReason(data []byte) (string, bool) {
	vals, err := abi.Arguments{{Type: uint256}}.Unpack(data[4:])
	if err != nil || len(vals) != 1 {
		return "", false
	}
	code, ok := vals[0].(*big.Int)
	if !ok {
		return "", false
	}
	if code.IsUint64() {
		if meaning, ok := panics[code.Uint64()]; ok {
			return fmt.Sprintf("panic: %s (0x%02x)", meaning, code.Uint64()), true
		}
	}
	return fmt.Sprintf("panic: unknown code (0x%x)", code), true
}

var uint256 = func() abi.Type {
	t, err := abi.NewType("uint256", "", nil)
	if err != nil {
		panic(err)
	}
	return t
}()

// custom is Foundry's "Name(arg, …)" for data that decodes as error e.
func custom(e *abi.Error, data []byte) (string, bool) {
	v, err := e.Unpack(data)
	if err != nil {
		return "", false
	}
	args, ok := v.([]any)
	if !ok || len(args) != len(e.Inputs) {
		return "", false
	}
	var b strings.Builder
	b.WriteString(e.Name)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(&b, reflect.ValueOf(a))
	}
	b.WriteByte(')')
	return b.String(), true
}

var (
	addressType = reflect.TypeOf(common.Address{})
	bigIntType  = reflect.TypeOf((*big.Int)(nil))
)

// writeValue writes one decoded argument as Foundry's format_token_raw
// does, but for strings, which are quoted as its format_token quotes them.
func writeValue(b *strings.Builder, v reflect.Value) {
	switch {
	case v.Type() == addressType:
		b.WriteString(v.Interface().(common.Address).Hex())
		return
	case v.Type() == bigIntType:
		b.WriteString(v.Interface().(*big.Int).String())
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		fmt.Fprint(b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		fmt.Fprint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		fmt.Fprint(b, v.Uint())
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 { // bytes, bytesN
			raw := make([]byte, v.Len())
			reflect.Copy(reflect.ValueOf(raw), v)
			b.WriteString(hexutil.Encode(raw))
			return
		}
		writeList(b, '[', ']', v.Len(), v.Index)
	case reflect.Struct: // a tuple
		writeList(b, '(', ')', v.NumField(), v.Field)
	default:
		fmt.Fprint(b, v.Interface())
	}
}

// shipped names the artifacts whose custom errors Reason knows.
var shipped = []string{
	contracts.B20Asset, contracts.B20Stablecoin, contracts.B20Factory,
	contracts.PolicyRegistry, contracts.ActivationRegistry, contracts.TokenSupplyManager,
}

// customErrors is the shipped contracts' custom errors by selector; errors
// that several contracts declare alike are there once. An artifact that
// does not load (they are embedded, and package contracts' tests load
// them) adds nothing.
var customErrors = sync.OnceValue(func() map[[4]byte][]*abi.Error {
	out := map[[4]byte][]*abi.Error{}
	seen := map[string]bool{}
	for _, name := range shipped {
		a, err := contracts.Load(name)
		if err != nil {
			continue
		}
		for _, e := range a.ABI.Errors {
			if seen[e.Sig] {
				continue
			}
			seen[e.Sig] = true
			id := [4]byte(e.ID[:4])
			out[id] = append(out[id], &e)
		}
	}
	return out
})

// writeList writes the n values elem gives, comma-separated, between open
// and close.
func writeList(b *strings.Builder, open, close byte, n int, elem func(int) reflect.Value) {
	b.WriteByte(open)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, elem(i))
	}
	b.WriteByte(close)
}
