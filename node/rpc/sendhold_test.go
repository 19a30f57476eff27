package rpc

import (
	"net/netip"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/peer"
)

func TestRecentSends(t *testing.T) {
	alice, bob := peer.New(netip.MustParseAddr("192.0.2.1"), nil), peer.New(netip.MustParseAddr("192.0.2.2"), nil)
	aliceV6, aliceV6Too := peer.New(netip.MustParseAddr("2001:db8::1"), nil), peer.New(netip.MustParseAddr("2001:db8::2"), nil)
	tx := common.Hash{1}
	tests := []struct {
		name   string
		hold   time.Duration
		sender *peer.Peer
		asker  *peer.Peer
		after  time.Duration
		held   bool
	}{
		{"the sender, at once", 300 * time.Millisecond, alice, alice, 0, true},
		{"the sender, just before the hold ends", 300 * time.Millisecond, alice, alice, 299 * time.Millisecond, true},
		{"the sender, once it ended", 300 * time.Millisecond, alice, alice, 300 * time.Millisecond, false},
		{"another client", 300 * time.Millisecond, alice, bob, 0, false},
		{"the sender's /64", 300 * time.Millisecond, aliceV6, aliceV6Too, 0, true},
		{"a local caller", 300 * time.Millisecond, nil, nil, 0, true},
		{"no hold", 0, alice, alice, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			s := newRecentSends(tt.hold)
			s.now = func() time.Time { return now }
			s.sent(tt.sender, tx)
			now = now.Add(tt.after)
			if got := s.held(tt.asker, tx); got != tt.held {
				t.Errorf("held = %v, want %v", got, tt.held)
			}
			if s.held(tt.asker, common.Hash{2}) {
				t.Error("a transaction nobody sent is held")
			}
		})
	}
}

// TestRecentSendsExpire: what the hold no longer covers is forgotten, so
// the record stays as small as the sends of one hold.
func TestRecentSendsExpire(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newRecentSends(300 * time.Millisecond)
	s.now = func() time.Time { return now }
	for i := range 1000 {
		s.sent(nil, common.Hash{byte(i), byte(i >> 8)})
		now = now.Add(time.Millisecond)
	}
	if n := len(s.byHash); n > 301 || len(s.order) != n {
		t.Fatalf("%d sends remembered (%d in order), want at most the last 300 ms's", n, len(s.order))
	}
}

// TestReceiptHeldFromItsSender: on /, the client that sent a transaction
// gets its receipt (and block fields) only once the hold has passed, even
// though its block is sealed; another client gets them at the seal, and
// so does the sender on /preconf.
func TestReceiptHeldFromItsSender(t *testing.T) {
	const hold = 2 * time.Second
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond, func(c *testConfig) { c.rpc.ReceiptHold = hold })
	other := n.as(peer.New(netip.MustParseAddr("192.0.2.9"), nil))
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	sent := time.Now()
	hash := n.send(6, &to, common.Big1, 21_000, nil)
	sealed := other.waitSealed(hash)
	if time.Since(sent) > hold/2 {
		t.Skip("the machine is too slow to tell the hold from the seal")
	}
	var receipt, tx map[string]any
	n.result(&receipt, "eth_getTransactionReceipt", hash)
	n.result(&tx, "eth_getTransactionByHash", hash)
	if receipt != nil || tx["blockHash"] != nil {
		t.Fatalf("the sender got receipt %v and block %v within the hold", receipt, tx["blockHash"])
	}
	if n.in(Preconf).result(&receipt, "eth_getTransactionReceipt", hash); receipt == nil || receipt["blockHash"] != sealed["blockHash"] {
		t.Fatalf("the sender's receipt on /preconf: %v, want the sealed one", receipt)
	}
	waitFor(t, "the receipt once the hold has passed", func() bool {
		n.result(&receipt, "eth_getTransactionReceipt", hash)
		return receipt != nil
	})
	if time.Since(sent) < hold || receipt["blockHash"] != sealed["blockHash"] {
		t.Fatalf("the sender got receipt %v after %v, want the sealed one after %v", receipt, time.Since(sent), hold)
	}
}
