package rpc

import (
	"fmt"
	"math/big"
	"net/netip"
	"testing"
	"time"

	"github.com/stocknode/stocknode/peer"
	"github.com/stocknode/stocknode/ratelimit"
)

// BenchmarkHandleGetBalance measures one eth_getBalance through the whole
// server path (scan, snapshot, state read, encode), bodies varying over
// 1,024 addresses.
func BenchmarkHandleGetBalance(b *testing.B) {
	for _, tag := range []string{"latest", "pending"} {
		b.Run(tag, func(b *testing.B) {
			n := newTestNode(&testing.T{}, 0, 0)
			bodies := make([][]byte, 1024)
			for i := range bodies {
				bodies[i] = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_getBalance","params":["0x%040x","%s"]}`, i, i*7919, tag))
			}
			out := make([]byte, 0, 512)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				out = n.srv.Handle(bodies[i%1024], out[:0])
			}
		})
	}
}

// BenchmarkHandleCall measures one eth_call of a deployed contract through
// the whole server path (decode, state, EVM, encode).
func BenchmarkHandleCall(b *testing.B) {
	t := &testing.T{}
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond)
	hash := n.send(1, nil, new(big.Int), 200_000, deployCode(answerRuntime))
	contract := n.waitSealed(hash)["contractAddress"].(string)
	for _, tag := range []string{"latest", "pending"} {
		b.Run(tag, func(b *testing.B) {
			bodies := make([][]byte, 1024)
			for i := range bodies {
				bodies[i] = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_call","params":[{"to":"%s","data":"0x70a08231000000000000000000000000%040x"},"%s"]}`, i, contract, i*7919, tag))
			}
			out := make([]byte, 0, 512)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				out = n.srv.Handle(bodies[i%1024], out[:0])
			}
		})
	}
}

// BenchmarkHandleRateLimited measures what --public's rate limiter adds to
// one eth_getBalance from a client (limits so high that nothing is
// denied): "default" is the same request with no limiter, the anchor.
func BenchmarkHandleRateLimited(b *testing.B) {
	for _, bench := range []struct {
		name   string
		limits ratelimit.Config
	}{
		{"default", ratelimit.Config{}},
		{"public", ratelimit.Config{Requests: 1e12, Units: 1e12}},
	} {
		b.Run(bench.name, func(b *testing.B) {
			n := newTestNode(b, 0, 0, func(tc *testConfig) { tc.rpc.RateLimit = bench.limits })
			p := peer.New(netip.MustParseAddr("192.0.2.9"), nil)
			bodies := make([][]byte, 1024)
			for i := range bodies {
				bodies[i] = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_getBalance","params":["0x%040x","latest"]}`, i, i*7919))
			}
			out := make([]byte, 0, 512)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out, _ = n.srv.HandleFrom(p, Standard, bodies[i%1024], out[:0], nil)
			}
		})
	}
}
