package rpc

import (
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

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
//
// A send is recorded when it arrives, before the pool (or, on a replica,
// the leader through the relay) takes it, so that no block can seal it
// before its record: the client's view then never goes back. Recorded
// once the pool had taken it, a send whose answer was slow (a relay
// across a failover, a loaded machine) was sealed, and its block read by
// the client's other requests, before the hold began; the hold then took
// the client back to the block before (a reader saw the head go from 32
// to 30). A send the pool refuses holds nothing (refuse): the
// transaction may be one sealed before, sent again.

// DefaultReceiptHold outlives ethers' 250 ms request cache, with room for
// a busy JavaScript event loop's late timers.
const DefaultReceiptHold = 300 * time.Millisecond

// recentSends remembers which client sent each transaction of the last
// hold, and when, and in which block each was sealed. The sequencer's
// listener (Server.Sealed) marks the sends a block seals as it is
// announced, so a request finds its client's held view by reading marks,
// never by looking transactions up in the database: a client that sends
// thousands of transactions a second (a bot, a relay, clients behind one
// address) has thousands of sends in every hold, and each of its requests
// looking each one up made a flood's cost grow with the square of its rate
// (PERFORMANCE.md, "eth_sendRawTransactionSync under a flood").
type recentSends struct {
	hold time.Duration
	now  func() time.Time
	// last is when anyone last sent (Unix nanoseconds): past the hold,
	// a request skips the lookup.
	last atomic.Int64
	// marked is the last block whose sends are marked (0: none yet): a
	// send not marked is in no block up to it.
	marked atomic.Uint64

	mu       sync.RWMutex
	byClient map[netip.Addr][]*recentSend
	order    []*recentSend // oldest first, to expire
	byHash   map[common.Hash]*recentSend
}

type recentSend struct {
	client netip.Addr // peer.Key of the sender; the zero Addr for a local caller
	hash   common.Hash
	at     time.Time
	// sealedIn is the block that holds it, once known; 0 before.
	sealedIn atomic.Uint64
	// refused: the pool did not take it, and it holds no view.
	refused atomic.Bool
}

// refuse says the pool did not take the send (nil: none recorded).
func (s *recentSend) refuse() {
	if s != nil {
		s.refused.Store(true)
	}
}

func newRecentSends(hold time.Duration) *recentSends {
	return &recentSends{hold: hold, now: time.Now, byClient: map[netip.Addr][]*recentSend{},
		byHash: map[common.Hash]*recentSend{}}
}

// sent records that p sends the transaction hash now, and returns the
// record (nil without a hold); call it before the pool takes the
// transaction, and refuse the record if the pool does not.
func (s *recentSends) sent(p *peer.Peer, hash common.Hash) *recentSend {
	if s.hold <= 0 {
		return nil
	}
	now := s.now()
	send := &recentSend{client: clientKey(p), hash: hash, at: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	s.byClient[send.client] = append(s.byClient[send.client], send)
	s.order = append(s.order, send)
	// A send again of a transaction the pool holds is refused: the first
	// send's record stays the one its block marks.
	if prev := s.byHash[hash]; prev == nil || prev.refused.Load() {
		s.byHash[hash] = send
	}
	s.last.Store(now.UnixNano())
	return send
}

// maxCatchUp bounds the blocks marked at once: the first marking, and
// one after a long stall, start that many blocks below the head. A send
// is sealed within a few blocks of its recording, and a hold lasts a few.
const maxCatchUp = 64

// markThrough marks the sends sealed in the blocks after the last marked
// one up to head, whose transactions block returns (nil for a block it
// does not have).
func (s *recentSends) markThrough(head uint64, block func(number uint64) types.Transactions) {
	if s.hold <= 0 || head <= s.marked.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.markLocked(head, block)
}

// tryMarkThrough is markThrough unless the lock is taken: then it marks
// nothing, and the first request to read past the last marked block marks
// it (heldSnapshot). The sequencer marks with it. Under a flood of sends,
// waiting for this lock behind the requests cost the sequencer tens of
// milliseconds at a seal, each wait a turn of the scheduler's run queue,
// before the next pre-confirmation.
func (s *recentSends) tryMarkThrough(head uint64, block func(number uint64) types.Transactions) {
	if s.hold <= 0 || head <= s.marked.Load() || !s.mu.TryLock() {
		return
	}
	defer s.mu.Unlock()
	s.markLocked(head, block)
}

// markLocked marks through head; the caller holds mu.
func (s *recentSends) markLocked(head uint64, block func(number uint64) types.Transactions) {
	now := s.now()
	from := s.marked.Load() + 1
	if head < from { // marked while this one waited for the lock
		return
	}
	if head-from >= maxCatchUp {
		from = head - maxCatchUp + 1
	}
	s.expire(now)
	for n := from; n <= head; n++ {
		for _, tx := range block(n) {
			hash := tx.Hash()
			if send := s.byHash[hash]; send != nil {
				send.sealedIn.Store(n)
			}
		}
	}
	s.marked.Store(head)
}

// active reports whether anyone sent in the last hold.
func (s *recentSends) active() bool {
	return s.hold > 0 && s.now().UnixNano()-s.last.Load() < int64(s.hold)
}

// earliestSealed is the first block up to head that seals a send of p's
// in the last hold, or 0; the blocks up to head must be marked.
func (s *recentSends) earliestSealed(p *peer.Peer, head uint64) uint64 {
	if !s.active() {
		return 0
	}
	now := s.now()
	earliest := uint64(0)
	s.mu.RLock()
	defer s.mu.RUnlock()
	sends := s.byClient[clientKey(p)]
	for i := len(sends) - 1; i >= 0; i-- { // newest first: stop at the hold's start
		send := sends[i]
		if now.Sub(send.at) >= s.hold {
			break
		}
		if n := send.sealedIn.Load(); n > 0 && n <= head && (earliest == 0 || n < earliest) && !send.refused.Load() {
			earliest = n
		}
	}
	return earliest
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
		if s.byHash[send.hash] == send {
			delete(s.byHash, send.hash)
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
	if !s.sends.active() {
		return r.snap
	}
	// The sequencer's listener marks each block as it announces it
	// (Sealed); a request that loaded the snapshot first marks it itself.
	s.markThrough(r.snap.Head)
	earliest := s.sends.earliestSealed(r.peer, r.snap.Head.NumberU64())
	if earliest == 0 {
		return r.snap
	}
	if before := s.b.Snapshots.Before(earliest); before != nil {
		return before
	}
	return r.snap
}

// markThrough marks the sends sealed in the blocks up to head, reading
// head's transactions from it and those of any block below it not yet
// marked from the chain.
func (s *Server) markThrough(head *types.Block) {
	if head.NumberU64() <= s.sends.marked.Load() { // marked: no closure to make
		return
	}
	s.sends.markThrough(head.NumberU64(), s.blockTxs(head))
}

// blockTxs returns the transactions of head, and of the blocks below it
// from the chain.
func (s *Server) blockTxs(head *types.Block) func(uint64) types.Transactions {
	return func(n uint64) types.Transactions {
		if n == head.NumberU64() {
			return head.Transactions()
		}
		if block := s.b.Chain.BlockChain().GetBlockByNumber(n); block != nil {
			return block.Transactions()
		}
		return nil
	}
}

// Sealed implements sequencer.Listener: it marks the sends block seals,
// so that the held views of their senders are found without looking
// their transactions up, unless requests hold the marks' lock.
func (s *Server) Sealed(_ *pending.Snapshot, block *types.Block) {
	s.sends.tryMarkThrough(block.NumberU64(), s.blockTxs(block))
}

// Preconfirmed implements sequencer.Listener.
func (s *Server) Preconfirmed(*pending.Snapshot) {}
