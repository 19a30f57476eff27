package tracing

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/callbound"
)

// The guard stops a call tracer once the least JSON of the frames it
// recorded passes the room, through whichever form of the frame hooks the
// tracer has (a muxTracer's children are metered one by one), and passes
// nothing more on.
func TestGuard(t *testing.T) {
	const room = callFrameLeast + 2*30 + 2*20 // a frame with 30 bytes in and 20 out
	for _, c := range []struct {
		name string
		cfg  json.RawMessage
	}{
		{"callTracer", nil},
		{"muxTracer", json.RawMessage(`{"callTracer": {}}`)},
	} {
		stopped := 0
		g := &guard{room: room, stop: func() { stopped++ }}
		tracer, err := (&builder{txctx: &tracers.Context{}, chainConfig: params.MergedTestChainConfig, g: g}).named(c.name, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		hooks := tracer.Hooks
		hooks.OnTxStart(&tracing.VMContext{BlockNumber: common.Big1}, types.NewTx(&types.LegacyTx{Gas: 100}), common.Address{})
		hooks.EmitEnter(0, 0xf1, common.Address{}, common.Address{}, make([]byte, 30), tracing.Gas{Execution: 100}, nil)
		hooks.EmitExit(0, make([]byte, 20), tracing.Gas{Execution: 100}, tracing.Gas{}, nil, false)
		if stopped != 0 || g.used != room {
			t.Errorf("%s: stopped %d times at %d bytes of a %d-byte room, want 0 at %d", c.name, stopped, g.used, room, room)
		}
		hooks.EmitEnter(1, 0xf1, common.Address{}, common.Address{}, make([]byte, 1), tracing.Gas{Execution: 10}, nil)
		hooks.EmitEnter(1, 0xf1, common.Address{}, common.Address{}, nil, tracing.Gas{Execution: 10}, nil)
		if stopped != 1 {
			t.Errorf("%s: stopped %d times past the room, want once", c.name, stopped)
		}
		res, err := tracer.GetResult()
		if err != nil || strings.Contains(string(res), `"calls"`) {
			t.Errorf("%s: the frames past the room were recorded: %s %v", c.name, res, err)
		}
	}
}

// meteredConfigs are tracers with the options that change what they keep.
var meteredConfigs = []string{
	`{}`,
	`{"enableMemory": true, "enableReturnData": true}`,
	`{"disableStack": true, "disableStorage": true}`,
	`{"tracer": "4byteTracer"}`,
	`{"tracer": "callTracer"}`,
	`{"tracer": "callTracer", "tracerConfig": {"withLog": true}}`,
	`{"tracer": "callTracer", "tracerConfig": {"onlyTopCall": true, "withLog": true}}`,
	`{"tracer": "flatCallTracer"}`,
	`{"tracer": "flatCallTracer", "tracerConfig": {"includePrecompiles": true, "convertParityErrors": true}}`,
	`{"tracer": "erc7562Tracer"}`,
	`{"tracer": "erc7562Tracer", "tracerConfig": {"withLog": true, "ignoredOpcodes": []}}`,
	`{"tracer": "keccak256PreimageTracer"}`,
	`{"tracer": "noopTracer"}`,
	`{"tracer": "prestateTracer"}`,
	`{"tracer": "prestateTracer", "tracerConfig": {"includeEmpty": true}}`,
	`{"tracer": "prestateTracer", "tracerConfig": {"disableCode": true, "disableStorage": true}}`,
	`{"tracer": "prestateTracer", "tracerConfig": {"diffMode": true}}`,
	`{"tracer": "muxTracer", "tracerConfig": {"4byteTracer": {}, "callTracer": {"withLog": true}, "erc7562Tracer": {"withLog": true},
		"flatCallTracer": {}, "keccak256PreimageTracer": {}, "noopTracer": {}, "prestateTracer": {}}}`,
}

// helperCode logs its calldata's first word x, then returns it when x
// is even and reverts with it when x is odd.
func helperCode(t testing.TB) []byte {
	return program(t, 0, vm.CALLDATALOAD, vm.DUP1, 0, 0, vm.LOG1,
		vm.DUP1, 1, vm.AND, jumpTo("odd"), vm.JUMPI,
		0, vm.MSTORE, 32, 0, vm.RETURN,
		label("odd"), 0, vm.MSTORE, 32, 0, vm.REVERT)
}

// initCode deploys a 32-byte contract whose last byte is 0x2a; it is
// stored at memory offset 512 by storeInit.
var initCode = []byte{0x60, 0x2a, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3}

func storeInit() []any {
	word := make([]byte, 32)
	copy(word, initCode)
	return []any{word, 512, vm.MSTORE}
}

// boundPrograms exercise what the tracers keep, and what they drop again.
func boundPrograms(t testing.TB) map[string]map[common.Address][]byte {
	everything := []any{40, label("loop"), 1, vm.SWAP1, vm.SUB, // n--
		vm.DUP1, 0, vm.MSTORE,
		100, 0, vm.KECCAK256, vm.POP, // a preimage per turn
		64, 32, vm.KECCAK256, vm.POP, // the same preimage each turn
		vm.DUP1, vm.DUP1, vm.SSTORE, vm.DUP1, vm.SLOAD, vm.POP, 7, vm.SLOAD, vm.POP,
		vm.DUP1, vm.DUP1, vm.TSTORE, vm.DUP1, vm.TLOAD, vm.POP,
		vm.ADDRESS, vm.EXTCODESIZE, vm.POP, 4, vm.EXTCODESIZE, vm.ISZERO, vm.POP,
		helper.Bytes(), vm.BALANCE, vm.POP, 3, vm.EXTCODEHASH, vm.POP,
		1, vm.DUP2, 40, 0, vm.LOG2,
		32, 256, 64, 0, 0, 4, 100_000, vm.CALL, vm.POP, // identity
		32, 256, 36, 0, 0, helper.Bytes(), 100_000, vm.CALL, vm.POP,
		32, 256, 36, 0, helper.Bytes(), 100_000, vm.STATICCALL, vm.POP, // fails: a log
		vm.DUP1, jumpTo("loop"), vm.JUMPI}
	everything = append(everything, storeInit()...)
	everything = append(everything,
		len(initCode), 512, 0, vm.CREATE, // created, then called and read
		0, 0, 0, 0, 0, vm.DUP6, 100_000, vm.CALL, vm.POP, vm.BALANCE, vm.POP,
		9, len(initCode), 512, 0, vm.CREATE2,
		0, 0, 0, 0, vm.DUP5, 100_000, vm.DELEGATECALL, vm.POP, vm.EXTCODESIZE, vm.POP,
		0xfe, 700, vm.MSTORE8, 1, 700, 0, vm.CREATE, vm.POP, // fails: INVALID
		helper.Bytes(), vm.SELFDESTRUCT)
	reverting := []any{7, 0, 0, vm.LOG1,
		32, 256, 36, 0, 0, helper.Bytes(), 100_000, vm.CALL, vm.POP,
		1, 0, vm.MSTORE, 32, 256, 36, 0, 0, helper.Bytes(), 100_000, vm.CALL, vm.POP,
		0x1234, 0, vm.MSTORE, 32, 0, vm.REVERT}
	padded := []any{1, 0, vm.MSTORE,
		64, 16, vm.KECCAK256, vm.POP, // past memory: padded with zeros
		64, 16, vm.KECCAK256, vm.POP, // the same bytes, now in memory
		0, 0, vm.KECCAK256, vm.POP, 32, 4096, vm.KECCAK256, vm.POP,
		0x20, 0, vm.RETURN}
	return map[string]map[common.Address][]byte{
		"everything": {contract: program(t, everything...), helper: helperCode(t)},
		"reverting":  {contract: program(t, reverting...), helper: helperCode(t)},
		"padded":     {contract: program(t, padded...)},
	}
}

// A trace whose result fits the room is answered as it is: the guard's
// count is a lower bound of the result, for every tracer, whatever the
// transaction does, including what the tracers drop again (a failed
// frame's logs, flatCallTracer's calls to precompiles, prestateTracer's
// empty accounts) and what they keep once (equal preimages, slots read
// again).
func TestGuardNeverRefusesWhatFits(t *testing.T) {
	p := newPool(t)
	for name, codes := range boundPrograms(t) {
		for _, raw := range meteredConfigs {
			cfg := parse(t, raw)
			full, err := trace(p, callbound.Caller{}, cfg, call(t, codes, 10_000_000), 1<<30)
			if err != nil {
				t.Errorf("%s, %s: %v", name, raw, err)
				continue
			}
			fit, err := trace(p, callbound.Caller{}, cfg, call(t, codes, 10_000_000), len(full))
			if err != nil || !bytes.Equal(fit, full) {
				t.Errorf("%s, %s: in a room of its %d bytes: %v", name, raw, len(full), err)
			}
		}
	}
}

// What grows without a bound in a call's gas is stopped as soon as the
// least JSON of what the tracer keeps passes the room: each of these would
// otherwise run to its timeout (of 30 s), copying all the while.
func TestGuardStopsWhatGrows(t *testing.T) {
	const room = 4 << 20
	keccakLoop := program(t, 0, label("loop"), 1, vm.ADD, vm.DUP1, 0, vm.MSTORE,
		1<<20, 0, vm.KECCAK256, vm.POP, jumpTo("loop"), vm.JUMP)
	identityLoop := program(t, label("loop"), 0, 0, 32<<10, 0, 0, 4, vm.GAS, vm.CALL, vm.POP, jumpTo("loop"), vm.JUMP)
	callLoop := program(t, label("loop"), 0, 0, 0, 0, 0, 0x1234, vm.GAS, vm.CALL, vm.POP, jumpTo("loop"), vm.JUMP)
	spin := program(t, label("loop"), jumpTo("loop"), vm.JUMP)
	extCodeLoop := program(t, label("loop"), vm.ADDRESS, vm.EXTCODESIZE, vm.POP, jumpTo("loop"), vm.JUMP)
	transientLoop := program(t, 0, label("loop"), 1, vm.ADD, vm.DUP1, vm.DUP1, vm.TSTORE, jumpTo("loop"), vm.JUMP)
	selectorLoop := program(t, 0, label("loop"), 1, vm.ADD, 0, 0, vm.DUP3, 4, vm.ADD, 0, 0, helper.Bytes(), 1000, vm.CALL, vm.POP,
		jumpTo("loop"), vm.JUMP)
	// 300 contracts of 8 KiB read one after another, then empty accounts.
	accounts := map[common.Address][]byte{contract: program(t, 0x100000, label("loop"), 1, vm.ADD, vm.DUP1, vm.EXTCODESIZE, vm.POP,
		jumpTo("loop"), vm.JUMP)}
	for i := range 300 {
		accounts[common.BigToAddress(big.NewInt(int64(0x100001+i)))] = bytes.Repeat([]byte{byte(i)}, 8<<10)
	}
	for _, c := range []struct {
		name  string
		codes map[common.Address][]byte
		cfgs  []string
	}{
		{"KECCAK256 of a megabyte", map[common.Address][]byte{contract: keccakLoop}, []string{
			`{"tracer": "keccak256PreimageTracer"}`, `{"tracer": "erc7562Tracer"}`,
			`{"tracer": "muxTracer", "tracerConfig": {"noopTracer": {}, "muxTracer": {"keccak256PreimageTracer": {}}}}`}},
		{"calls of 32 KiB", map[common.Address][]byte{contract: identityLoop}, []string{
			`{"tracer": "callTracer"}`, `{"tracer": "erc7562Tracer"}`, `{"tracer": "flatCallTracer", "tracerConfig": {"includePrecompiles": true}}`}},
		{"calls", map[common.Address][]byte{contract: callLoop}, []string{
			`{"tracer": "callTracer"}`, `{"tracer": "erc7562Tracer"}`, `{"tracer": "flatCallTracer"}`}},
		{"steps", map[common.Address][]byte{contract: spin}, []string{`{}`, `{"disableStack": true}`}},
		{"EXTCODESIZE", map[common.Address][]byte{contract: extCodeLoop}, []string{`{"tracer": "erc7562Tracer"}`}},
		{"transient slots", map[common.Address][]byte{contract: transientLoop}, []string{`{"tracer": "erc7562Tracer"}`}},
		{"call data sizes", map[common.Address][]byte{contract: selectorLoop, helper: {0}}, []string{`{"tracer": "4byteTracer"}`}},
		{"accounts with code", accounts, []string{`{"tracer": "prestateTracer"}`}},
	} {
		for _, raw := range c.cfgs {
			cfg := parse(t, raw)
			withTimeout("30s")(cfg)
			_, err := trace(newPool(t), callbound.Caller{}, cfg, call(t, c.codes, 1<<40), room)
			var tooLarge *TooLargeError
			if !errors.As(err, &tooLarge) || tooLarge.Room != room {
				t.Errorf("%s, %s: %v, want too large for %d bytes", c.name, raw, err, room)
			}
		}
	}
}
