package rpc

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// FuzzTraceCall sends debug_traceCall random tracer configurations (tracer
// names, muxTracers nested in muxTracers, tracerConfig JSON good and bad,
// timeouts) over random code, on a node whose traces are capped at 100 ms
// and whose responses at 256 KB: every one is answered, and the node
// answers on. A tracer's panic that escaped a trace ended the process: the
// fuzzer then stops with it. Run it with
//
//	go test -run '^$' -fuzz FuzzTraceCall -fuzztime 5m ./node/rpc/
func FuzzTraceCall(f *testing.F) {
	spin := hexutil.MustDecode(spinCode)
	keccakLoop := hexutil.MustDecode(keccakLoopCode)
	identityLoop := hexutil.MustDecode(identityLoopCode)
	for _, seed := range []struct {
		tracer, config, timeout string
		code                    []byte
	}{
		{"keccak256PreimageTracer", "", "1ms", spin},
		{"muxTracer", `{"keccak256PreimageTracer": {}}`, "1ms", spin},
		{"muxTracer", `{"muxTracer": {"muxTracer": {"keccak256PreimageTracer": null}}, "callTracer": {"withLog": true}}`, "10s", keccakLoop},
		{"muxTracer", `{"4byteTracer": {}, "callTracer": {}, "erc7562Tracer": {}, "flatCallTracer": {}, "noopTracer": {}, "prestateTracer": {}}`, "", identityLoop},
		{"erc7562Tracer", `{"ignoredOpcodes": ["0x20"], "stackTopItemsSize": 1}`, "50ms", keccakLoop},
		{"erc7562Tracer", `{"stackTopItemsSize": -1}`, "", spin},
		{"erc7562Tracer", "", "", []byte{0x54}}, // SLOAD of an empty stack: the tracer panics
		{"prestateTracer", `{"diffMode": true, "includeEmpty": true}`, "", spin},
		{"prestateTracer", `{"diffMode": true}`, "", identityLoop},
		{"flatCallTracer", `{"includePrecompiles": true}`, "1m", identityLoop},
		{"callTracer", `[]`, "", nil},
		{"callTracer", `{"onlyTopCall": true}`, "-1s", identityLoop},
		{"4byteTracer", "null", "0s", identityLoop},
		{"", `{"enableMemory": true}`, "", keccakLoop},
		{"", "", "1 hour", nil},
		{"noopTracer", "{", "", spin},
		{"muxTracer", "", "", spin},
		{"{result: function() {}}", "", "", nil},
	} {
		f.Add(seed.tracer, seed.config, seed.timeout, seed.code)
	}
	n := newTestNode(f, 0, 0, func(tc *testConfig) {
		tc.rpc.EVMTimeout, tc.rpc.BatchResponseLimit = 100*time.Millisecond, 256<<10
	})
	to := common.HexToAddress("0x00000000000000000000000000000000000c0de1")
	f.Fuzz(func(t *testing.T, tracer, config, timeout string, code []byte) {
		n := n.on(t)
		cfg := map[string]any{"tracer": tracer, "stateOverrides": map[string]any{to.Hex(): map[string]any{"code": hexutil.Bytes(code)}}}
		switch {
		case json.Valid([]byte(config)):
			cfg["tracerConfig"] = json.RawMessage(config)
		case config != "":
			cfg["tracerConfig"] = config // a string: a bad tracerConfig
		}
		if timeout != "" {
			cfg["timeout"] = timeout
		}
		resp := n.call("debug_traceCall", map[string]any{"to": to, "gas": "0x1000000"}, "latest", cfg)
		switch {
		case resp.Error == nil && !json.Valid(resp.Result):
			t.Fatalf("%v: result %.200s is not JSON", cfg, resp.Result)
		case resp.Error != nil && strings.Contains(resp.Error.Message, "(in tracing."):
			t.Fatalf("%v: the node's own tracing code crashed: %s", cfg, resp.Error.Message)
		}
		var head hexutil.Uint64
		n.result(&head, "eth_blockNumber")
	})
}
