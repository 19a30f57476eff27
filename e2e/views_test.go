package e2e

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// TestViewsOnReplica: a read replica serves both views, as the sequencer
// does. While a transfer is pre-confirmed in a 3 s block, / answers no
// receipt of a block its latest has not reached, on either node, and
// /preconf answers the pre-confirmed one, with
// the same block hash on both (the block's PreconfHash, which
// eth_getBlockByHash resolves on /preconf); once sealed, every view of
// both nodes answers the sealed receipt.
func TestViewsOnReplica(t *testing.T) {
	seq := startNode(t, "--nats.listen", "127.0.0.1:0", "--block-time", "3s", "--preconf-interval", "100ms")
	replica := startNode(t, append(followFlags(t, seq), "--block-time", "3s", "--preconf-interval", "100ms")...)
	ctx := testContext(t, 60*time.Second)
	client, _ := replica.dial(t)

	views := map[string]*rpc.Client{}
	for name, url := range map[string]string{
		"sequencer /": seq.URL, "sequencer /preconf": seq.URL + "/preconf",
		"replica /": replica.URL, "replica /preconf": replica.URL + "/preconf",
	} {
		c, err := rpc.DialContext(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		views[name] = c
	}
	var hash common.Hash
	receipt := func(name string) map[string]any {
		t.Helper()
		var r map[string]any
		if err := views[name].CallContext(ctx, &r, "eth_getTransactionReceipt", hash); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	// A transfer sent just before a seal may be sealed by the time it is
	// read: send another.
	var preconf map[string]any
	for attempt := 0; preconf == nil; attempt++ {
		if attempt == 3 {
			t.Fatal("three transfers sealed before their first read, in 3 s blocks")
		}
		to := freshAddress(t)
		hash = send(t, ctx, client, devAccount(t, 3), &to, big.NewInt(7), nil).Hash()
		poll(t, ctx, "the pre-confirmed receipt on the replica's /preconf", func() bool {
			preconf = receipt("replica /preconf")
			return preconf != nil
		})
		var head hexutil.Uint64
		if err := views["replica /"].CallContext(ctx, &head, "eth_blockNumber"); err != nil {
			t.Fatal(err)
		}
		if hexutil.MustDecodeUint64(preconf["blockNumber"].(string)) <= uint64(head) {
			preconf = nil // sealed already
		}
	}
	if on := receipt("sequencer /preconf"); on == nil || on["blockHash"] != preconf["blockHash"] {
		t.Fatalf("sequencer /preconf receipt %v, replica's %v: want the same block hash", on, preconf)
	}
	// What / must never do: answer a receipt of a block its latest has
	// not reached.
	for _, name := range []string{"replica /", "sequencer /"} {
		r := receipt(name)
		var head hexutil.Uint64
		if err := views[name].CallContext(ctx, &head, "eth_blockNumber"); err != nil {
			t.Fatal(err)
		}
		if r != nil && hexutil.MustDecodeUint64(r["blockNumber"].(string)) > uint64(head) {
			t.Fatalf("%s answered a receipt %v of a block latest (%d) has not reached", name, r, head)
		}
	}
	var block map[string]any
	if err := views["replica /preconf"].CallContext(ctx, &block, "eth_getBlockByHash", preconf["blockHash"], false); err != nil || block == nil || block["number"] != preconf["blockNumber"] {
		t.Fatalf("eth_getBlockByHash(%v) on the replica's /preconf: %v, %v", preconf["blockHash"], block, err)
	}

	sealed := waitSealed(t, ctx, client, hash)
	for name := range views {
		var r map[string]any
		poll(t, ctx, name+" answering the sealed receipt", func() bool {
			r = receipt(name)
			return r != nil && r["blockHash"] == sealed.BlockHash.Hex()
		})
	}
	if sealed.BlockHash == common.HexToHash(preconf["blockHash"].(string)) {
		t.Fatal("the sealed block's hash is the PreconfHash")
	}
}
