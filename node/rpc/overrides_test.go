package rpc

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// eth_call, eth_estimateGas and eth_createAccessList take their overrides
// from package override: precompile moves (not in eth_createAccessList, as
// go-ethereum), strict decoding, the specification's codes.
func TestCallOverrides(t *testing.T) {
	n := newTestNode(t, 0, 0)
	identity := common.HexToAddress("0x0000000000000000000000000000000000000004")
	moved := common.HexToAddress("0x000000000000000000000000000000000000beef")
	move := map[string]any{identity.Hex(): map[string]any{"movePrecompileToAddress": moved}}

	// The identity precompile answers at its new address; its old one runs no code.
	var ret string
	n.result(&ret, "eth_call", map[string]any{"to": moved, "input": "0x1234"}, "latest", move)
	if ret != "0x1234" {
		t.Errorf("moved identity returned %s, want 0x1234", ret)
	}
	n.result(&ret, "eth_call", map[string]any{"to": identity, "input": "0x1234"}, "latest", move)
	if ret != "0x" {
		t.Errorf("identity's old address returned %s, want 0x", ret)
	}
	// Without overrides the precompile is where it was (the pooled set is untouched).
	n.result(&ret, "eth_call", map[string]any{"to": identity, "input": "0x1234"}, "latest")
	if ret != "0x1234" {
		t.Errorf("identity returned %s after a call that moved it", ret)
	}
	// A moved BLAKE2F is the interruptible one, bound to the call's EVM.
	blake := common.HexToAddress("0x0000000000000000000000000000000000000009")
	input := "0x" + strings.Repeat("00", 213)
	n.result(&ret, "eth_call", map[string]any{"to": moved, "input": input}, "latest", map[string]any{blake.Hex(): map[string]any{"movePrecompileToAddress": moved}})
	if len(ret) != 2+128 {
		t.Errorf("moved BLAKE2F returned %s", ret)
	}
	var gas string
	n.result(&gas, "eth_estimateGas", map[string]any{"to": moved, "input": "0x1234"}, "latest", move)
	if gas == "0x5208" {
		t.Errorf("estimateGas of the moved precompile charged a transfer only")
	}

	for _, tt := range []struct {
		name   string
		method string
		params []any
		code   int
		msg    string
	}{
		{"move to itself", "eth_call", []any{map[string]any{"to": identity}, "latest",
			map[string]any{identity.Hex(): map[string]any{"movePrecompileToAddress": identity}}}, -38022, "invalid argument 2: account " + identity.Hex() + ": movePrecompileToAddress references itself"},
		{"two moves to one address", "eth_estimateGas", []any{map[string]any{"to": identity}, "latest",
			map[string]any{identity.Hex(): map[string]any{"movePrecompileToAddress": moved}, "0x0000000000000000000000000000000000000002": map[string]any{"movePrecompileToAddress": moved}}}, -38023, "are both moved to"},
		{"no moves in createAccessList", "eth_createAccessList", []any{map[string]any{"to": identity}, "latest", move}, -32602, "not supported by this method"},
		{"unknown state key", "eth_call", []any{map[string]any{"to": identity}, "latest",
			map[string]any{identity.Hex(): map[string]any{"stateDif": map[string]any{}}}}, -32602, `invalid argument 2: account ` + identity.Hex() + `: json: unknown field "stateDif"`},
		{"unknown block key", "eth_call", []any{map[string]any{"to": identity}, "latest", nil, map[string]any{"timestamp": "0x1"}}, -32602, `invalid argument 3: json: unknown field "timestamp"`},
		{"beaconRoot", "eth_call", []any{map[string]any{"to": identity}, "latest", nil, map[string]any{"beaconRoot": common.Hash{}}}, -32602, `"beaconRoot" is not supported`},
		{"state and stateDiff", "eth_createAccessList", []any{map[string]any{"to": identity}, "latest",
			map[string]any{moved.Hex(): map[string]any{"state": map[string]any{}, "stateDiff": map[string]any{}}}}, -32602, "has both 'state' and 'stateDiff'"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := n.call(tt.method, tt.params...)
			if resp.Error == nil || resp.Error.Code != tt.code || !strings.Contains(resp.Error.Message, tt.msg) {
				t.Fatalf("error %+v, want %d with %q", resp.Error, tt.code, tt.msg)
			}
		})
	}
}
