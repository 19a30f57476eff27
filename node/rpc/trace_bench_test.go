package rpc

import (
	"bytes"
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

// BenchmarkTraceBlock traces a chain's blocks in turn
// (debug_traceBlockByNumber with callTracer) through the handler: a
// block's replay of its system calls, then each transaction traced. The
// execution-apis chain is the one make compare traces.
//
//	go test -run '^$' -bench TraceBlock ./node/rpc/
func BenchmarkTraceBlock(b *testing.B) {
	for _, c := range []struct{ name, dir string }{{"conformance", conformanceChain}, {"execution-apis", forksChain}} {
		b.Run(c.name, func(b *testing.B) {
			p := newTracePairOf(b, c.dir)
			bodies := make([][]byte, len(p.blocks))
			for i, block := range p.blocks {
				bodies[i], _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "debug_traceBlockByNumber",
					"params": []any{fmt.Sprintf("%#x", block.NumberU64()), map[string]any{"tracer": "callTracer"}}})
			}
			var out []byte
			for i, body := range bodies {
				if out = p.srv.Handle(body, out[:0]); !bytes.Contains(out, []byte(`"result":[`)) {
					b.Fatalf("block %d: %s", i+1, out)
				}
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out = p.srv.Handle(bodies[i%len(bodies)], out[:0])
			}
		})
	}
}
