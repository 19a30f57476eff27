package tracing

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/callbound"
)

// stopConfigs are the tracers a trace can be stopped under: each one
// go-ethereum registers, the struct logger, and muxTracers over them
// (keccak256PreimageTracer, whose Stop is nil, alone, among others, and
// in a nested mux).
var stopConfigs = []string{
	`{}`,
	`{"enableMemory": true, "enableReturnData": true}`,
	`{"tracer": "4byteTracer"}`,
	`{"tracer": "callTracer", "tracerConfig": {"withLog": true}}`,
	`{"tracer": "erc7562Tracer"}`,
	`{"tracer": "flatCallTracer"}`,
	`{"tracer": "keccak256PreimageTracer"}`,
	`{"tracer": "noopTracer"}`,
	`{"tracer": "prestateTracer"}`,
	`{"tracer": "prestateTracer", "tracerConfig": {"diffMode": true}}`,
	`{"tracer": "muxTracer", "tracerConfig": {"keccak256PreimageTracer": {}}}`,
	`{"tracer": "muxTracer", "tracerConfig": {"4byteTracer": {}, "callTracer": {}, "erc7562Tracer": {}, "flatCallTracer": {},
		"keccak256PreimageTracer": {}, "noopTracer": {}, "prestateTracer": {}}}`,
	`{"tracer": "muxTracer", "tracerConfig": {"muxTracer": {"keccak256PreimageTracer": {}}, "callTracer": {}}}`,
	`{"tracer": "muxTracer"}`,
}

// Every tracer can be stopped by its timeout (a timer's goroutine), by its
// client's hang-up (the call pool's monitor) and by the node's shutdown
// (the pool's Close), or run to its end, and answers: a tracer's Stop used
// to be called there even when it had none, a panic outside any recover
// that ended the process.
func TestStopEveryTracer(t *testing.T) {
	spin := map[common.Address][]byte{contract: program(t, label("top"), jumpTo("top"), vm.JUMP)}
	finite := map[common.Address][]byte{contract: program(t,
		100, label("loop"), 1, vm.SWAP1, vm.SUB, // n--
		vm.DUP1, 0, vm.MSTORE, 32, 0, vm.KECCAK256, vm.POP,
		vm.DUP1, jumpTo("loop"), vm.JUMPI, vm.STOP)}
	const room = 1 << 30 // the guard is tested on its own
	for _, raw := range stopConfigs {
		for _, c := range []struct {
			name   string
			codes  map[common.Address][]byte
			config func(*Config)
			caller callbound.Caller
			closes bool
			want   error // nil: a result
		}{
			{name: "timeout", codes: spin, config: withTimeout("1ms"), want: errTimeout},
			{name: "hang-up", codes: spin, config: withTimeout("1m"), caller: callbound.Caller{Peer: gone{}}, want: callbound.ErrGone},
			{name: "shutdown", codes: spin, config: withTimeout("1m"), closes: true, want: callbound.ErrClosed},
			{name: "completion", codes: finite, config: withTimeout("1m")},
		} {
			cfg := parse(t, raw)
			c.config(cfg)
			p := newPool(t)
			if c.closes {
				defer closeWhenRunning(p).Wait()
			}
			res, err := trace(p, c.caller, cfg, call(t, c.codes, 1<<40), room)
			switch {
			case c.want != nil && !errors.Is(err, c.want):
				t.Errorf("%s, %s: %v, want %v", raw, c.name, err, c.want)
			case c.want == nil && (err != nil || !json.Valid(res)):
				t.Errorf("%s, %s: %.200s, %v", raw, c.name, res, err)
			}
		}
	}
}

func withTimeout(d string) func(*Config) {
	return func(c *Config) {
		if err := json.Unmarshal([]byte(`"`+d+`"`), &c.Timeout); err != nil {
			panic(err)
		}
		c.check(testConfig)
	}
}

// A tracer that panics in a hook makes its trace's answer an error that
// names it and where it failed; go-ethereum's have such inputs.
func TestTracerCrashIsAnError(t *testing.T) {
	for _, c := range []struct {
		cfg  string
		code []byte
		want string
	}{
		// erc7562Tracer reads the slot of an SLOAD whose stack is empty
		// (then its OnTxEnd, deferred, the receipt there is none of).
		{`{"tracer": "erc7562Tracer"}`, program(t, vm.SLOAD),
			"tracing failed: tracer erc7562Tracer crashed: runtime error: invalid memory address or nil pointer dereference (in native.(*erc7562Tracer).OnTxEnd)"},
		{`{"tracer": "muxTracer", "tracerConfig": {"noopTracer": {}, "erc7562Tracer": {}}}`, program(t, vm.SLOAD),
			"tracing failed: tracer muxTracer (erc7562Tracer, noopTracer) crashed: runtime error: invalid memory address or nil pointer dereference (in native.(*erc7562Tracer).OnTxEnd)"},
		// The preimage's offset and size overflow: a slice of 2^63-1 bytes.
		{`{"tracer": "keccak256PreimageTracer"}`, program(t, 1, 0, vm.MSTORE, uint64(1<<63-1), 1, vm.KECCAK256),
			"tracing failed: tracer keccak256PreimageTracer crashed: runtime error: makeslice: len out of range (in internal.memoryCopy)"},
	} {
		_, err := trace(newPool(t), callbound.Caller{}, parse(t, c.cfg), call(t, map[common.Address][]byte{contract: c.code}, 100_000), 1<<20)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.cfg, err, c.want)
		}
	}
}
