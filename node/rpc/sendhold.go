package rpc

import (
	"net/netip"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/peer"
)

// On /, a transaction's receipt and block fields are answered, to the
// client that sent it through eth_sendRawTransaction, no sooner than
// Config.ReceiptHold after the send, even once its block is sealed.
//
// Why: ethers v6, with its default options, answers an identical request
// from a 250 ms cache. A wallet's sendTransaction reads the pending nonce
// just before sending; on 200 ms blocks the block can seal within that
// time, and a tx.wait() that returned then has the next send read its
// pending nonce from the cache (a nonce collision, "nonce too low"), and
// the script read the balances it read before sending (a stale read).
// Holding the sender's receipt past the cache's life makes every such
// read go to the node. Other clients (an indexer, an explorer) get the
// receipt at the seal: they read nothing before the send.

// DefaultReceiptHold outlives ethers' 250 ms request cache, with room for
// a busy JavaScript event loop's late timers.
const DefaultReceiptHold = 300 * time.Millisecond

// recentSends remembers who sent each transaction of the last hold, and
// when.
type recentSends struct {
	hold time.Duration
	now  func() time.Time

	mu     sync.RWMutex
	byHash map[common.Hash]recentSend
	order  []common.Hash // oldest first, to expire
}

type recentSend struct {
	client netip.Addr // peer.Key of the sender; the zero Addr for a local caller
	at     time.Time
}

func newRecentSends(hold time.Duration) *recentSends {
	return &recentSends{hold: hold, now: time.Now, byHash: map[common.Hash]recentSend{}}
}

// sent records that p sent the transaction hash now.
func (s *recentSends) sent(p *peer.Peer, hash common.Hash) {
	if s.hold <= 0 {
		return
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	if _, ok := s.byHash[hash]; !ok {
		s.order = append(s.order, hash)
	}
	s.byHash[hash] = recentSend{client: clientKey(p), at: now}
}

// held reports whether hash's receipt is still held from p: p sent it
// less than the hold ago.
func (s *recentSends) held(p *peer.Peer, hash common.Hash) bool {
	if s.hold <= 0 {
		return false
	}
	s.mu.RLock()
	send, ok := s.byHash[hash]
	s.mu.RUnlock()
	return ok && send.client == clientKey(p) && s.now().Sub(send.at) < s.hold
}

// expire drops the sends older than the hold; the caller holds mu.
func (s *recentSends) expire(now time.Time) {
	n := 0
	for ; n < len(s.order); n++ {
		if send, ok := s.byHash[s.order[n]]; ok && now.Sub(send.at) < s.hold {
			break
		}
		delete(s.byHash, s.order[n])
	}
	if n > 0 {
		s.order = append(s.order[:0], s.order[n:]...)
	}
}

func clientKey(p *peer.Peer) netip.Addr {
	if p == nil {
		return netip.Addr{}
	}
	return p.Key()
}
