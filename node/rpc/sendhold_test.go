package rpc

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/peer"
)

func transfers(n int) []*types.Transaction {
	txs := make([]*types.Transaction, n)
	for i := range txs {
		txs[i] = types.NewTx(&types.LegacyTx{Nonce: uint64(i), Gas: 21_000})
	}
	return txs
}

func TestRecentSends(t *testing.T) {
	alice, bob := peer.New(netip.MustParseAddr("192.0.2.1"), nil), peer.New(netip.MustParseAddr("192.0.2.2"), nil)
	aliceV6, aliceV6Too := peer.New(netip.MustParseAddr("2001:db8::1"), nil), peer.New(netip.MustParseAddr("2001:db8::2"), nil)
	tx := transfers(1)[0]
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
			s.sent(tt.sender, tx.Hash())
			s.markThrough(7, blocks(map[uint64]types.Transactions{7: {tx}}))
			now = now.Add(tt.after)
			want := uint64(0)
			if tt.held {
				want = 7
			}
			if got := s.earliestSealed(tt.asker, 7); got != want {
				t.Errorf("earliest sealed block %d, want %d", got, want)
			}
		})
	}
}

// blocks serves markThrough the transactions of the blocks in m.
func blocks(m map[uint64]types.Transactions) func(uint64) types.Transactions {
	return func(n uint64) types.Transactions { return m[n] }
}

// TestRecentSendsMarks: a request finds the block that seals its client's
// sends from the marks of the blocks up to its head, whichever came
// first, the send's record or its block's marking; blocks past its head
// do not count; blocks are marked once, the first marking from at most
// maxCatchUp blocks below the head.
func TestRecentSendsMarks(t *testing.T) {
	alice := peer.New(netip.MustParseAddr("192.0.2.1"), nil)
	txs := transfers(4)
	t.Run("the earliest of several", func(t *testing.T) {
		s := newRecentSends(time.Second)
		for _, tx := range txs {
			s.sent(alice, tx.Hash())
		}
		s.markThrough(6, blocks(map[uint64]types.Transactions{5: txs[2:3], 6: txs[1:2]}))
		if got := s.earliestSealed(alice, 6); got != 5 {
			t.Errorf("earliest sealed block %d, want 5", got)
		}
		if got := s.earliestSealed(alice, 4); got != 0 {
			t.Errorf("with head 4: earliest sealed block %d, want none", got)
		}
	})
	t.Run("refused by the pool", func(t *testing.T) {
		s := newRecentSends(time.Second)
		s.sent(alice, txs[3].Hash()).refuse()
		s.markThrough(5, blocks(map[uint64]types.Transactions{5: txs}))
		if got := s.earliestSealed(alice, 5); got != 0 {
			t.Errorf("earliest sealed block %d, want none", got)
		}
	})
	t.Run("sent again and refused", func(t *testing.T) {
		s := newRecentSends(time.Second)
		s.sent(alice, txs[3].Hash())
		s.sent(alice, txs[3].Hash()).refuse() // the pool has it already
		s.markThrough(5, blocks(map[uint64]types.Transactions{5: txs}))
		if got := s.earliestSealed(alice, 5); got != 5 {
			t.Errorf("earliest sealed block %d, want 5, the first send's", got)
		}
	})
	t.Run("each block once, from at most maxCatchUp below the head", func(t *testing.T) {
		s := newRecentSends(time.Second)
		var asked []uint64
		block := func(n uint64) types.Transactions { asked = append(asked, n); return nil }
		s.markThrough(1000, block)
		if len(asked) != maxCatchUp || asked[0] != 1000-maxCatchUp+1 || asked[len(asked)-1] != 1000 {
			t.Fatalf("first marking asked for blocks %v, want the %d up to 1000", asked, maxCatchUp)
		}
		asked = nil
		s.markThrough(999, block)
		s.markThrough(1000, block)
		s.markThrough(1002, block)
		if !slices.Equal(asked, []uint64{1001, 1002}) {
			t.Errorf("then asked for blocks %v, want 1001 and 1002", asked)
		}
	})
}

// TestTryMarkThrough: the sequencer's marking never waits for the
// requests' lock: held, it marks nothing, and a request's marking later
// marks the block.
func TestTryMarkThrough(t *testing.T) {
	alice := peer.New(netip.MustParseAddr("192.0.2.1"), nil)
	tx := transfers(1)[0]
	s := newRecentSends(time.Second)
	s.sent(alice, tx.Hash())
	sealed := blocks(map[uint64]types.Transactions{5: {tx}})

	s.mu.RLock() // a request reading the marks
	s.tryMarkThrough(5, sealed)
	s.mu.RUnlock()
	if got := s.earliestSealed(alice, 5); got != 0 {
		t.Fatalf("with the lock held: earliest sealed block %d, want none marked", got)
	}
	s.markThrough(5, sealed)
	if got := s.earliestSealed(alice, 5); got != 5 {
		t.Fatalf("then a request marked: earliest sealed block %d, want 5", got)
	}
	s.tryMarkThrough(6, blocks(map[uint64]types.Transactions{6: {}}))
	if s.marked.Load() != 6 {
		t.Errorf("with the lock free: marked through %d, want 6", s.marked.Load())
	}
}

// TestRecentSendsExpire: what the hold no longer covers is forgotten, so
// the record stays as small as the sends of one hold.
func TestRecentSendsExpire(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newRecentSends(300 * time.Millisecond)
	s.now = func() time.Time { return now }
	for i, tx := range transfers(1000) {
		s.sent(nil, tx.Hash())
		if i%10 == 0 {
			s.markThrough(uint64(i/10+1), blocks(map[uint64]types.Transactions{uint64(i/10 + 1): {tx}}))
		}
		now = now.Add(time.Millisecond)
	}
	if n := len(s.order); n > 301 || len(s.byClient[netip.Addr{}]) != n || len(s.byHash) != n {
		t.Fatalf("%d sends remembered (%d by client, %d by hash), want at most the last 300 ms's", n, len(s.byClient[netip.Addr{}]), len(s.byHash))
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

// TestSenderViewNeverGoesBack: a send answered only after its block
// sealed (the sequencer's log slow to take it, a relay across a failover)
// holds its client from its arrival: what the client reads while the send
// is unanswered is never later than what it reads after.
func TestSenderViewNeverGoesBack(t *testing.T) {
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond, func(c *testConfig) { c.rpc.ReceiptHold = 2 * time.Second })
	other := n.as(peer.New(netip.MustParseAddr("192.0.2.9"), nil))
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	var sealed map[string]any
	var during hexutil.Uint64
	n.pool.OnAccepted(func(tx *types.Transaction) error {
		sealed = other.waitSealed(tx.Hash())
		n.result(&during, "eth_blockNumber") // another request of the sender's, its send unanswered
		return nil
	})
	n.send(6, &to, common.Big1, 21_000, nil)
	var after hexutil.Uint64
	n.result(&after, "eth_blockNumber")
	block := hexutil.MustDecodeUint64(sealed["blockNumber"].(string))
	if after < during || uint64(during) >= block {
		t.Fatalf("the sender read head %d while its send was unanswered and %d after it; the transfer sealed in %d", during, after, block)
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
