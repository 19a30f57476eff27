package e2e

import (
	"context"
	"math/big"
	"testing"
	"time"
)

// TestPendingNonceAfterSend: a wallet that sends 20 transfers in a row,
// each at the pending nonce it reads right after the last send was
// answered, never reuses a nonce, through the sequencer or through a read
// replica (which forwards to the sequencer): the pending nonce counts
// every transaction the sequencer accepted as soon as the send returns,
// and never one it refused or one behind a nonce gap, until the gap is
// filled.
func TestPendingNonceAfterSend(t *testing.T) {
	seq, replica := startWithReplica(t)
	ctx := testContext(t, 60*time.Second)
	for _, tt := range []struct {
		via  *peer
		from account
	}{
		{seq, devAccount(t, 1)},
		{replica, devAccount(t, 0)},
	} {
		t.Run(tt.via.name, func(t *testing.T) { sendInARow(t, ctx, tt.via, tt.from, 20) })
	}
}

// startWithReplica starts a sequencer that exposes its log and a read
// replica started with the flags the sequencer logs for it, and waits
// until the replica has caught up.
func startWithReplica(t *testing.T) (seq, replica *peer) {
	t.Helper()
	seqNode := startNode(t, "--nats.listen", "127.0.0.1:0")
	seq = newPeer(t, "sequencer", seqNode)
	replica = newPeer(t, "replica", startNode(t, followFlags(t, seqNode)...))
	ctx := testContext(t, 30*time.Second)
	head, err := seq.eth.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the replica at the sequencer's head", func() bool {
		n, err := replica.eth.BlockNumber(ctx)
		return err == nil && n >= head
	})
	return seq, replica
}

// sendInARow sends n transfers from `from` through p, each at the pending
// nonce p answers, and checks that answer after every send. Halfway, it
// sends one transfer two nonces ahead (accepted, not counted until the
// transfers in a row reach it) and three that the sequencer refuses.
func sendInARow(t *testing.T, ctx context.Context, p *peer, from account, n int) {
	sent := map[uint64]bool{}
	pendingNonce := func() uint64 {
		t.Helper()
		nonce, err := p.eth.PendingNonceAt(ctx, from.addr)
		if err != nil {
			t.Fatal(err)
		}
		return nonce
	}
	next := pendingNonce()
	for i := range n {
		nonce := pendingNonce()
		if nonce != next {
			t.Fatalf("send %d: pending nonce %d, want %d", i, nonce, next)
		}
		if err := sendRaw(ctx, p.rpc, signTransfer(from, nonce, freshAddress(t), big.NewInt(1))); err != nil {
			t.Fatalf("send %d at the pending nonce %d: %v", i, nonce, err)
		}
		sent[nonce] = true
		for next = nonce + 1; sent[next]; next++ {
		}
		if got := pendingNonce(); got != next {
			t.Fatalf("send %d: pending nonce %d right after nonce %d was accepted, want %d", i, got, nonce, next)
		}
		if i == n/2 {
			gapped := next + 1
			if err := sendRaw(ctx, p.rpc, signTransfer(from, gapped, freshAddress(t), big.NewInt(1))); err != nil {
				t.Fatalf("send at nonce %d, behind a gap: %v", gapped, err)
			}
			sent[gapped] = true
			sendRefused(t, ctx, p, from, nonce)
			if got := pendingNonce(); got != next {
				t.Fatalf("pending nonce %d after a transfer behind a gap and three refused, want %d", got, next)
			}
		}
	}
}

// sendRefused sends three transactions from `from` that the sequencer
// refuses: one replacing the pending one at nonce at the same price, one
// whose fee cap is below the base fee and one at nonce 0, long used.
func sendRefused(t *testing.T, ctx context.Context, p *peer, from account, nonce uint64) {
	t.Helper()
	for _, tt := range []struct {
		name  string
		nonce uint64
		fee   *big.Int
	}{
		{"replacement at the same price", nonce, big.NewInt(100e9)},
		{"fee cap below the base fee", nonce + 1, big.NewInt(1)},
		{"nonce long used", 0, big.NewInt(100e9)},
	} {
		tx := signTx1559(from, tt.nonce, freshAddress(t), big.NewInt(2), 21000, tt.fee)
		if err := sendRaw(ctx, p.rpc, tx); err == nil {
			t.Fatalf("%s: accepted", tt.name)
		}
	}
}
