package rpc

import (
	"fmt"
	"math/big"
	"testing"
	"time"
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
