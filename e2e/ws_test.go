package e2e

import (
	"math/big"
	"reflect"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// go-ethereum's ethclient over the WebSocket endpoint (rpc.Dial("ws://...")),
// with the default 200 ms blocks: SubscribeNewHead delivers every sealed
// header once, in order, each hashing to the block the node serves;
// SubscribeFilterLogs delivers the Transfer logs of transfers sent
// meanwhile, in order, exactly as FilterLogs reports them afterwards.
func TestEthclientWebSocketSubscriptions(t *testing.T) {
	n := startNode(t)
	c, _ := n.dialWS(t)
	ctx := testContext(t, 30*time.Second)
	a, _ := loadToken(t)
	owner := devAccount(t, 0)

	// Ordinary calls over the socket.
	if id, err := c.ChainID(ctx); err != nil || id.Int64() != chainID {
		t.Fatalf("ChainID over ws = %v, %v", id, err)
	}
	if bal, err := c.BalanceAt(ctx, owner.addr, nil); err != nil || bal.Sign() <= 0 {
		t.Fatalf("BalanceAt over ws = %v, %v", bal, err)
	}

	// newHeads, collected for the whole test.
	heads := make(chan *types.Header, 512)
	start := time.Now()
	headSub, err := c.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatalf("SubscribeNewHead: %v", err)
	}
	var got []*types.Header
	var arrivals []time.Duration
	next := func(what string) *types.Header {
		t.Helper()
		select {
		case h := <-heads:
			got = append(got, h)
			arrivals = append(arrivals, time.Since(start))
			return h
		case err := <-headSub.Err():
			t.Fatalf("newHeads subscription ended while waiting for %s: %v", what, err)
		case <-time.After(5 * time.Second):
			t.Fatalf("no newHeads notification within 5 s while waiting for %s (got %d heads)", what, len(got))
		}
		return nil
	}
	for range 6 {
		next("the first six heads")
	}

	// logs of the token's Transfer events.
	token := deployToken(t, ctx, c, owner, tokens(1000))
	query := ethereum.FilterQuery{Addresses: []common.Address{token}, Topics: [][]common.Hash{{a.Events["Transfer"].ID}}}
	logs := make(chan types.Log, 64)
	logSub, err := c.SubscribeFilterLogs(ctx, query, logs)
	if err != nil {
		t.Fatalf("SubscribeFilterLogs: %v", err)
	}
	// Three transfers back to back, then three more once the first is
	// sealed, so that they span several blocks. The sender counts its own
	// nonces: eth_getTransactionCount(pending) asked right after
	// eth_sendRawTransaction may not count that transaction yet (the pool
	// promotes it asynchronously, as geth's does).
	const transfers = 6
	recipients := make([]common.Address, transfers)
	values := make([]*big.Int, transfers)
	var txs []*types.Transaction
	nonce, err := c.PendingNonceAt(ctx, owner.addr)
	if err != nil {
		t.Fatalf("PendingNonceAt: %v", err)
	}
	for i := range transfers {
		recipients[i], values[i] = freshAddress(t), tokens(int64(i+1))
		tx := signTxNonce(t, ctx, c, owner, nonce+uint64(i), &token, nil, pack(t, a, "transfer", recipients[i], values[i]))
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("SendTransaction(transfer %d): %v", i, err)
		}
		txs = append(txs, tx)
		if i == 2 {
			waitSealed(t, ctx, c, txs[0].Hash())
		}
	}
	var received []types.Log
	for len(received) < transfers {
		select {
		case l := <-logs:
			received = append(received, l)
		case err := <-logSub.Err():
			t.Fatalf("logs subscription ended after %d logs: %v", len(received), err)
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d Transfer logs within 10 s of the last transfer", len(received), transfers)
		}
	}
	blocks := map[uint64]bool{}
	for i := range received {
		l := &received[i]
		checkTransferLog(t, a, l, token, owner.addr, recipients[i], values[i])
		if l.TxHash != txs[i].Hash() {
			t.Errorf("log %d is of tx %s, want %s (logs out of order?)", i, l.TxHash, txs[i].Hash())
		}
		if i > 0 {
			p := &received[i-1]
			if l.BlockNumber < p.BlockNumber || l.BlockNumber == p.BlockNumber && l.Index <= p.Index {
				t.Errorf("log %d (block %d index %d) not after log %d (block %d index %d)", i, l.BlockNumber, l.Index, i-1, p.BlockNumber, p.Index)
			}
		}
		blocks[l.BlockNumber] = true
	}
	first, last := received[0].BlockNumber, received[transfers-1].BlockNumber
	t.Logf("%d Transfer logs over %d blocks (%d..%d)", transfers, len(blocks), first, last)

	// FilterLogs over the same range reports the same logs.
	query.FromBlock, query.ToBlock = new(big.Int).SetUint64(first), new(big.Int).SetUint64(last)
	filtered, err := c.FilterLogs(ctx, query)
	if err != nil {
		t.Fatalf("FilterLogs(%d..%d): %v", first, last, err)
	}
	if !reflect.DeepEqual(filtered, received) {
		t.Errorf("FilterLogs(%d..%d) differs from the subscription's logs:\nFilterLogs:   %+v\nsubscription: %+v", first, last, filtered, received)
	}

	// Heads until two past the last transfer's block: nothing more arrives
	// on the logs subscription, and every block of a log was announced.
	for got[len(got)-1].Number.Uint64() < last+2 {
		next("heads past the transfers")
	}
	select {
	case l := <-logs:
		t.Errorf("a seventh log after the six transfers: %+v", l)
	default:
	}
	logSub.Unsubscribe()
	headSub.Unsubscribe()

	// The heads: consecutive, each the parent of the next, each hashing to
	// the block the node serves (so every header field is there and right).
	announced := map[common.Hash]bool{}
	for i, h := range got {
		if i > 0 {
			if h.Number.Uint64() != got[i-1].Number.Uint64()+1 {
				t.Errorf("head %d follows head %d", h.Number, got[i-1].Number)
			}
			if h.ParentHash != got[i-1].Hash() {
				t.Errorf("head %d parentHash %s, previous head's hash %s", h.Number, h.ParentHash, got[i-1].Hash())
			}
		}
		served, err := c.HeaderByNumber(ctx, h.Number)
		if err != nil {
			t.Fatalf("HeaderByNumber(%d): %v", h.Number, err)
		}
		if served.Hash() != h.Hash() {
			t.Errorf("newHeads header %d hashes to %s, eth_getBlockByNumber's to %s:\nnewHeads: %+v\nserved:   %+v", h.Number, h.Hash(), served.Hash(), h, served)
		}
		announced[h.Hash()] = true
	}
	for _, l := range received {
		if !announced[l.BlockHash] {
			t.Errorf("log of block %d (%s) whose header was not announced", l.BlockNumber, l.BlockHash)
		}
	}
	if t.Failed() {
		return
	}
	gaps := arrivals[len(arrivals)-1] - arrivals[0]
	t.Logf("%d consecutive heads %d..%d, first after %v, mean gap %v", len(got), got[0].Number, got[len(got)-1].Number,
		arrivals[0].Round(time.Millisecond), (gaps / time.Duration(len(got)-1)).Round(time.Millisecond))
}
