package rpc

import (
	"math"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/peer"
)

// On /, a client that sent a transaction through eth_sendRawTransaction
// sees, until Config.ReceiptHold after the send, the chain as it was just
// before that transaction's block sealed: the last snapshot of the block
// before (pending.Store.Before), with the transaction pre-confirmed in
// pending. Every read it makes in that time (receipts, blocks, balances at
// latest, the pending nonce) is of that one consistent view; other
// clients, and it on /preconf, see the current one.
//
// Why: ethers v6, with its default options, answers an identical request
// from a 250 ms cache. A wallet's sendTransaction reads the pending nonce
// just before sending; on 200 ms blocks the block can seal within that
// time, and a tx.wait() that returned then has the next send read its
// pending nonce from the cache (a nonce collision, "nonce too low"), and
// the script read the balances it read before sending (a stale read).
// Showing the sender its receipt only once that cache has expired makes
// every such read go to the node. Holding the receipt alone would not do:
// viem, seeing the transaction's nonce in the latest block without a
// receipt, takes it for replaced and fails; a whole older view is
// consistent for every client.

// DefaultReceiptHold outlives ethers' 250 ms request cache, with room for
// a busy JavaScript event loop's late timers.
const DefaultReceiptHold = 300 * time.Millisecond

// recentSends remembers which client sent each transaction of the last
// hold, and when.
type recentSends struct {
	hold time.Duration
	now  func() time.Time
	// last is when anyone last sent (Unix nanoseconds): past the hold,
	// a request skips the lookup.
	last atomic.Int64

	mu       sync.RWMutex
	byClient map[netip.Addr][]*recentSend
	order    []*recentSend // oldest first, to expire
}

type recentSend struct {
	client netip.Addr // peer.Key of the sender; the zero Addr for a local caller
	hash   common.Hash
	at     time.Time
	// sealedIn is the block that holds it, once known; 0 before.
	sealedIn atomic.Uint64
}

func newRecentSends(hold time.Duration) *recentSends {
	return &recentSends{hold: hold, now: time.Now, byClient: map[netip.Addr][]*recentSend{}}
}

// sent records that p sent the transaction hash now.
func (s *recentSends) sent(p *peer.Peer, hash common.Hash) {
	if s.hold <= 0 {
		return
	}
	now := s.now()
	send := &recentSend{client: clientKey(p), hash: hash, at: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	s.byClient[send.client] = append(s.byClient[send.client], send)
	s.order = append(s.order, send)
	s.last.Store(now.UnixNano())
}

// held returns p's sends of the last hold.
func (s *recentSends) held(p *peer.Peer) []*recentSend {
	if s.hold <= 0 {
		return nil
	}
	now := s.now()
	if now.UnixNano()-s.last.Load() >= int64(s.hold) {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*recentSend
	for _, send := range s.byClient[clientKey(p)] {
		if now.Sub(send.at) < s.hold {
			out = append(out, send)
		}
	}
	return out
}

// expire drops the sends older than the hold; the caller holds mu.
func (s *recentSends) expire(now time.Time) {
	n := 0
	for ; n < len(s.order) && now.Sub(s.order[n].at) >= s.hold; n++ {
		send := s.order[n]
		sends := s.byClient[send.client]
		if len(sends) <= 1 {
			delete(s.byClient, send.client)
		} else {
			s.byClient[send.client] = sends[1:] // a client's sends are in order too
		}
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

// heldSnapshot is the snapshot a Standard request of r's client reads:
// current, unless a transaction the client sent in the last hold is sealed
// in it; then the last one before the earliest such block.
func (s *Server) heldSnapshot(r *request) *pending.Snapshot {
	sends := s.sends.held(r.peer)
	if len(sends) == 0 {
		return r.snap
	}
	earliest := uint64(math.MaxUint64)
	for _, send := range sends {
		if n := s.sealedIn(send, r.snap); n > 0 && n < earliest {
			earliest = n
		}
	}
	if earliest == math.MaxUint64 {
		return r.snap
	}
	if before := s.b.Snapshots.Before(earliest); before != nil {
		return before
	}
	return r.snap
}

// sealedIn is the number of the block of snap's chain that holds send's
// transaction, 0 if none does yet.
func (s *Server) sealedIn(send *recentSend, snap *pending.Snapshot) uint64 {
	if n := send.sealedIn.Load(); n > 0 {
		return n
	}
	entry, tx := s.b.Chain.BlockChain().GetCanonicalTransaction(send.hash)
	if tx == nil || entry.BlockIndex > snap.Head.NumberU64() {
		return 0
	}
	send.sealedIn.Store(entry.BlockIndex)
	return entry.BlockIndex
}
