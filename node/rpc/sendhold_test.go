package rpc

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

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
			held := s.held(tt.asker)
			if got := len(held) == 1 && held[0].hash == tx; got != tt.held {
				t.Errorf("held %v, want the send: %v", held, tt.held)
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
	if n := len(s.order); n > 301 || len(s.byClient[netip.Addr{}]) != n {
		t.Fatalf("%d sends remembered (%d by client), want at most the last 300 ms's", n, len(s.byClient[netip.Addr{}]))
	}
}

// TestSenderSeesTheChainBeforeItsBlock: on /, the client that sent a
// transaction sees, within the hold, the chain as it was before the
// transaction's block sealed: no receipt, no block fields, latest short of
// that block, the transaction pre-confirmed in pending (with its effect
// there and the pending nonce counting it). Another client sees the sealed
// block at once, and so does the sender on /preconf; after the hold the
// sender sees it too.
func TestSenderSeesTheChainBeforeItsBlock(t *testing.T) {
	const hold = 2 * time.Second
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond, func(c *testConfig) { c.rpc.ReceiptHold = hold })
	other := n.as(peer.New(netip.MustParseAddr("192.0.2.9"), nil))
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	sent := time.Now()
	hash := n.send(6, &to, common.Big1, 21_000, nil)
	sealed := other.waitSealed(hash)
	if time.Since(sent) > hold/2 {
		t.Fatalf("the transfer took %v to seal in 50 ms blocks: the hold cannot be told from the seal", time.Since(sent))
	}
	var receipt, tx map[string]any
	var latest hexutil.Uint64
	var balance, pendingBalance hexutil.Big
	var nonce hexutil.Uint64
	n.result(&receipt, "eth_getTransactionReceipt", hash)
	n.result(&tx, "eth_getTransactionByHash", hash)
	n.result(&latest, "eth_blockNumber")
	n.result(&balance, "eth_getBalance", to, "latest")
	n.result(&pendingBalance, "eth_getBalance", to, "pending")
	n.result(&nonce, "eth_getTransactionCount", n.addr(6), "pending")
	block := hexutil.MustDecodeUint64(sealed["blockNumber"].(string))
	if receipt != nil || tx["blockHash"] != nil || uint64(latest) >= block || balance.ToInt().Sign() != 0 || pendingBalance.ToInt().Int64() != 1 || nonce != 1 {
		t.Fatalf("the sender within the hold: receipt %v, block %v, latest %d (the transfer sealed in %d), balance %v latest and %v pending, pending nonce %d",
			receipt, tx["blockHash"], latest, block, balance.ToInt(), pendingBalance.ToInt(), nonce)
	}
	// A block named by number or hash past the held head was learnt of
	// elsewhere (a push, another client): it reads as sealed.
	var byNumber, byHash map[string]any
	var logs []map[string]any
	n.result(&byNumber, "eth_getBlockByNumber", sealed["blockNumber"], false)
	n.result(&byHash, "eth_getBlockByHash", sealed["blockHash"], false)
	n.result(&logs, "eth_getLogs", map[string]any{"fromBlock": sealed["blockNumber"], "toBlock": sealed["blockNumber"]})
	if byNumber == nil || byNumber["hash"] != sealed["blockHash"] || byHash == nil || byHash["number"] != sealed["blockNumber"] {
		t.Fatalf("the sender within the hold: block %v by number is %v, by hash %v", sealed["blockNumber"], byNumber, byHash)
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

// On /, a log range that names a block past the head by number reaches
// into the future, as on geth, pre-confirmed or not; the pending tag
// reads the pre-confirmed block.
func TestStandardLogRangeEndsAtTheHead(t *testing.T) {
	n := newTestNode(t, time.Hour, 10*time.Millisecond)
	var head hexutil.Uint64
	n.result(&head, "eth_blockNumber")
	next := hexutil.Uint64(head + 1)
	for _, tt := range []struct {
		name     string
		view     View
		from, to any
		refused  bool
	}{
		{"the pending block by number on /", Standard, next, next, true},
		{"the pending tag on /", Standard, "latest", "pending", false},
		{"the pending block by number on /preconf", Preconf, next, next, false},
		{"past the pending block on /preconf", Preconf, next + 1, next + 1, true},
	} {
		resp := n.in(tt.view).call("eth_getLogs", map[string]any{"fromBlock": tt.from, "toBlock": tt.to})
		if refused := resp.Error != nil && strings.Contains(resp.Error.Message, "beyond current head"); refused != tt.refused || (resp.Error != nil && !refused) {
			t.Errorf("%s: error %+v, want refused %v", tt.name, resp.Error, tt.refused)
		}
	}
}
