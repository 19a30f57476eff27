package rpc

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkTraceTransaction traces C.set(42) of the conformance chain (a
// replay of nothing before it, then the traced transaction) through the
// handler, by tracer.
//
//	go test -run '^$' -bench TraceTransaction ./node/rpc/
func BenchmarkTraceTransaction(b *testing.B) {
	p := newTracePair(b)
	tx := p.blocks[3].Transactions()[0] // block 4: C.set(42)
	for _, cfg := range []map[string]any{
		{"tracer": "callTracer"},
		{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}},
		{},
	} {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction", "params": []any{tx.Hash(), cfg}})
		b.Run(fmt.Sprint(cfg["tracer"]), func(b *testing.B) {
			var out []byte
			for b.Loop() {
				out = p.srv.Handle(body, out[:0])
			}
		})
	}
}
