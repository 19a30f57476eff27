package rpc

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// BenchmarkSimulate measures eth_simulateV1 through the whole server path:
// a wallet's preview (one block, a transfer from an account a state
// override funds), eight blocks of it, and the same preview on a pending
// block of 50 pre-confirmed transfers, which the simulation re-executes.
func BenchmarkSimulate(b *testing.B) {
	t := &testing.T{}
	preview := func(blocks int, tag string) []byte {
		one := `{"stateOverrides":{"0xc000000000000000000000000000000000000000":{"balance":"0xde0b6b3a7640000"}},"calls":[{"from":"0xc000000000000000000000000000000000000000","to":"0xc100000000000000000000000000000000000000","value":"0x1"}]}`
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[%s]},"%s"]}`,
			strings.TrimSuffix(strings.Repeat(one+",", blocks), ","), tag))
	}
	run := func(b *testing.B, n *testNode, body []byte) {
		if out := n.srv.Handle(body, nil); !strings.Contains(string(out), `"result"`) {
			b.Fatalf("%s", out)
		}
		out := make([]byte, 0, 64<<10)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			out = n.srv.Handle(body, out[:0])
		}
	}
	idle := newTestNode(t, 0, 0)
	b.Run("latest/1-block", func(b *testing.B) { run(b, idle, preview(1, "latest")) })
	b.Run("latest/8-blocks", func(b *testing.B) { run(b, idle, preview(8, "latest")) })
	busy := newTestNode(t, time.Hour, 10*time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000ab")
	for i := 0; i < 50; i++ {
		busy.send(i%10, &to, big.NewInt(1), 21000, nil)
	}
	waitFor(t, "50 pre-confirmed transfers", func() bool { return busy.store.Load().Pending.Transactions.Len() == 50 })
	b.Run("pending-50-txs/1-block", func(b *testing.B) { run(b, busy, preview(1, "pending")) })
}
