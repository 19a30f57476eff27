package rpc

import (
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// BenchmarkGetProof measures one eth_getProof of an account and one slot
// through the whole server path, accounts varying over 1,024 (existing
// dev accounts and absent ones), at latest.
func BenchmarkGetProof(b *testing.B) {
	n := newTestNode(&testing.T{}, 0, 0)
	bodies := make([][]byte, 1024)
	for i := range bodies {
		addr := fmt.Sprintf("0x%040x", i*7919)
		if i%4 == 0 {
			addr = n.addr(i / 4 % 10).Hex()
		}
		bodies[i] = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_getProof","params":["%s",["0x0"],"latest"]}`, i, addr))
	}
	out := make([]byte, 0, 8192)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		out = n.srv.Handle(bodies[i%1024], out[:0])
	}
}

// BenchmarkPendingRebuild measures the rebuild of the pending state's
// tries (the first eth_getProof of a pending state) for a pending block of
// 200 transfers.
func BenchmarkPendingRebuild(b *testing.B) {
	t := &testing.T{}
	n := newTestNode(t, time.Hour, 20*time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000f0")
	for i := range 200 {
		n.sendNonce(i%10, uint64(i/10), &to, 1)
	}
	for n.store.Load().Pending.Transactions.Len() < 200 {
		time.Sleep(10 * time.Millisecond)
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":["` + to.Hex() + `",[],"pending"]}`)
	out := make([]byte, 0, 8192)
	b.ResetTimer()
	for b.Loop() {
		n.srv.pendingProofs.mu.Lock()
		n.srv.pendingProofs.current = nil
		n.srv.pendingProofs.mu.Unlock()
		out = n.srv.Handle(body, out[:0])
	}
}
