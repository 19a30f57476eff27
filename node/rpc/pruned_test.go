package rpc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stocknode/stocknode/node/chain"
)

// A state a full node has pruned answers -32000 with the block and what
// keeps it; recent states still answer.
func TestPrunedStateError(t *testing.T) {
	const window = 2
	n := newTestNode(t, 2*time.Millisecond, 2*time.Millisecond, func(tc *testConfig) {
		c := &tc.chain
		c.GCMode, c.StateHistory = chain.GCFull, window
	})
	// Past the 128 states held in memory and the window.
	waitFor(t, "140 blocks", func() bool { return n.store.Load().Head.NumberU64() >= 140 })
	to := n.addr(1).Hex()
	resp := n.call("eth_getBalance", to, "0x1")
	if resp.Error == nil {
		t.Fatalf("balance at block 1 of a full node with a %d-block window: %s", window, resp.Result)
	}
	t.Logf("error %d %s", resp.Error.Code, resp.Error.Message)
	if resp.Error.Code != -32000 {
		t.Errorf("code %d, want -32000", resp.Error.Code)
	}
	for _, want := range []string{"block 1", "pruned", "--gcmode archive"} {
		if !strings.Contains(resp.Error.Message, want) {
			t.Errorf("message %q does not mention %q", resp.Error.Message, want)
		}
	}
	recent := fmt.Sprintf("%#x", n.store.Load().Head.NumberU64()-10)
	if resp := n.call("eth_getBalance", to, recent); resp.Error != nil {
		t.Fatalf("balance at recent block %s: %s", recent, resp.Error.Message)
	}
}
