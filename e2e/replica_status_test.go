package e2e

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// TestReplicaTransactionStatus: base_transactionStatus on a read replica
// answers for the transactions only the sequencer knows, by asking it:
// one sent to the sequencer and queued there behind a nonce gap (never
// pre-confirmed, so the replica cannot have seen it) is Known, as on the
// sequencer; one sent to the sequencer and run is Known at once and after
// its block seals; a hash nobody sent is Unknown.
func TestReplicaTransactionStatus(t *testing.T) {
	seq, replica := startWithReplica(t)
	ctx := testContext(t, 30*time.Second)
	from := devAccount(t, 2)
	nonce, err := seq.eth.PendingNonceAt(ctx, from.addr)
	if err != nil {
		t.Fatal(err)
	}
	gapped := signTransfer(from, nonce+1, freshAddress(t), big.NewInt(1))
	run := signTransfer(from, nonce, freshAddress(t), big.NewInt(1))
	for _, tx := range []common.Hash{gapped.Hash(), run.Hash()} {
		if got := status(t, ctx, replica, tx); got != "Unknown" {
			t.Fatalf("status of %s before it was sent: %s", tx, got)
		}
	}
	if err := sendRaw(ctx, seq.rpc, gapped); err != nil {
		t.Fatal(err)
	}
	var seen map[string]any
	if err := replica.rpc.CallContext(ctx, &seen, "eth_getTransactionByHash", gapped.Hash()); err != nil || seen != nil {
		t.Fatalf("the replica has the queued transaction itself (%v, %v): the test needs one only the sequencer knows", seen, err)
	}
	for _, p := range []*peer{seq, replica} {
		if got := status(t, ctx, p, gapped.Hash()); got != "Known" {
			t.Errorf("%s: status of a transaction queued on the sequencer: %s, want Known", p.name, got)
		}
	}
	if err := sendRaw(ctx, seq.rpc, run); err != nil {
		t.Fatal(err)
	}
	if got := status(t, ctx, replica, run.Hash()); got != "Known" {
		t.Errorf("status of a transaction just sent to the sequencer: %s, want Known", got)
	}
	waitSealed(t, ctx, replica.eth, gapped.Hash())
	for _, tx := range []common.Hash{gapped.Hash(), run.Hash()} {
		if got := status(t, ctx, replica, tx); got != "Known" {
			t.Errorf("status of sealed %s: %s, want Known", tx, got)
		}
	}
	if got := status(t, ctx, replica, common.HexToHash("0x5eed")); got != "Unknown" {
		t.Errorf("status of a hash nobody sent: %s, want Unknown", got)
	}
}

// status is p's base_transactionStatus for hash.
func status(t *testing.T, ctx context.Context, p *peer, hash common.Hash) string {
	t.Helper()
	var out struct{ Status string }
	if err := p.rpc.CallContext(ctx, &out, "base_transactionStatus", hash); err != nil {
		t.Fatalf("%s: base_transactionStatus(%s): %v", p.name, hash, err)
	}
	return out.Status
}
