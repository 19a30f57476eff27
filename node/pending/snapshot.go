// Package pending holds the immutable views of the chain that readers use:
// the latest sealed block and the pre-confirmed block being built on it,
// published together by one atomic pointer swap.
package pending

import (
	"encoding/binary"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/stocknode/stocknode/node/callstate"
)

// Block is the pre-confirmed block: what the sequencer has executed into the
// block being built as of one pre-confirmation tick. Its header has no state
// root or hash-derived fields yet; they are set when the block is sealed.
type Block struct {
	// Index counts the pre-confirmations of this block: 0 when it opened,
	// then one more per tick (Flashblocks' "index").
	Index        int
	Header       *types.Header
	Transactions types.Transactions
	Receipts     types.Receipts

	assembled atomic.Pointer[types.Block] // Assembled's, once made
}

// Assembled is the block as pre-confirmed so far: header roots and bloom
// derived from its transactions and receipts, the state root zero until
// the block is sealed. A pending block never changes, so it is assembled
// once, by its first reader, and shared: deriving the two roots hashes
// every transaction and receipt, and a client polling the pending block
// (an explorer, a load generator's inclusion poller) made every poll pay
// for it. Callers must not modify it.
func (b *Block) Assembled() *types.Block {
	if block := b.assembled.Load(); block != nil {
		return block
	}
	body := &types.Body{Transactions: b.Transactions}
	if b.Header.WithdrawalsHash != nil {
		body.Withdrawals = []*types.Withdrawal{}
	}
	block := types.NewBlock(b.Header, body, b.Receipts, trie.NewStackTrie(nil))
	if !b.assembled.CompareAndSwap(nil, block) {
		return b.assembled.Load() // another reader's, the same block
	}
	return block
}

// Snapshot is one published view: the head block and the pending block on
// top of it. It is immutable; readers may hold it as long as they like.
type Snapshot struct {
	// Seq increases by one with every publication.
	Seq uint64
	// Head is the latest sealed block (also safe and finalized: a single
	// sequencer never reorgs).
	Head *types.Block
	// HeadHeader is Head's header, shared: readers must not modify it
	// (types.Block.Header copies on every call).
	HeadHeader *types.Header
	// Pending is the block being built on Head.
	Pending *Block
	// Published is when the snapshot was made.
	Published time.Time

	db            state.Database
	headReader    state.Reader
	pendingReader state.Reader
	headCalls     *callstate.Pool
	pendingCalls  *callstate.Pool
}

// New makes a snapshot. pendingReader is the newest Layer of the pending
// block, or headReader when nothing has been executed on top of Head. prev
// is the snapshot this one replaces, nil for the first: with the same head,
// the two share the StateDBs that eth_calls at latest reuse.
func New(seq uint64, head *types.Block, pending *Block, db state.Database, headReader, pendingReader state.Reader, prev *Snapshot) *Snapshot {
	headCalls := callstate.NewPool(head.Root(), db, headReader)
	if prev != nil && prev.Head.Hash() == head.Hash() && prev.headReader == headReader {
		headCalls = prev.headCalls
	}
	// Always a pool of its own, even over headReader: a pool's calls share
	// one block context, and the pending block's is not Head's.
	pendingCalls := callstate.NewPool(head.Root(), db, pendingReader)
	return &Snapshot{
		Seq:           seq,
		Head:          head,
		HeadHeader:    head.Header(),
		Pending:       pending,
		Published:     time.Now(),
		db:            db,
		headReader:    headReader,
		pendingReader: pendingReader,
		headCalls:     headCalls,
		pendingCalls:  pendingCalls,
	}
}

// LatestReader reads the state of Head; safe for concurrent use.
func (s *Snapshot) LatestReader() state.Reader { return s.headReader }

// PendingReader reads the pre-confirmed state; safe for concurrent use.
func (s *Snapshot) PendingReader() state.Reader { return s.pendingReader }

// LatestCalls hands out reusable StateDBs over Head for eth_call.
func (s *Snapshot) LatestCalls() *callstate.Pool { return s.headCalls }

// PendingCalls hands out reusable StateDBs over the pre-confirmed state for
// eth_call.
func (s *Snapshot) PendingCalls() *callstate.Pool { return s.pendingCalls }

// LatestState returns a fresh StateDB (for one reader's exclusive use) over Head.
func (s *Snapshot) LatestState() (*state.StateDB, error) {
	return state.NewWithReader(s.Head.Root(), s.db, s.headReader)
}

// PendingState returns a fresh StateDB (for one reader's exclusive use) over
// the pre-confirmed state.
func (s *Snapshot) PendingState() (*state.StateDB, error) {
	return state.NewWithReader(s.Head.Root(), s.db, s.pendingReader)
}

// Store holds the current snapshot. Load is one atomic load: readers never
// take a lock and never see a half-published view. It also keeps, for a
// while (Retain), the last snapshot of each head before the next block
// sealed (Before): a view of the chain just before a block, for the clients
// the RPC keeps there a moment (node/rpc/sendhold.go).
type Store struct {
	current atomic.Pointer[Snapshot]
	// lasts are the last snapshots of the recent heads, oldest first;
	// replaced whole on each new head (a few times a second), never
	// modified, so readers load it without a lock.
	lasts  atomic.Pointer[[]kept]
	retain atomic.Int64 // nanoseconds; 0: DefaultRetain
}

// kept is a head's last snapshot and when the next head replaced it.
type kept struct {
	snap     *Snapshot
	replaced time.Time
}

// DefaultRetain is how long a head's last snapshot stays available to
// Before unless Retain says otherwise.
const DefaultRetain = 2 * time.Second

// maxKept bounds the snapshots kept, whatever the block time.
const maxKept = 256

// Retain sets how long Before can give a head's last snapshot after the
// next head replaced it.
func (s *Store) Retain(d time.Duration) { s.retain.Store(int64(d)) }

// Load returns the current snapshot, or nil before the first publication.
func (s *Store) Load() *Snapshot { return s.current.Load() }

// Publish makes snap the current snapshot.
func (s *Store) Publish(snap *Snapshot) {
	if prev := s.current.Swap(snap); prev != nil && prev.Head.Hash() != snap.Head.Hash() {
		s.keep(prev, snap.Published)
	}
}

// keep records prev as its head's last snapshot, replaced at now, and
// forgets those replaced longer than the retention ago; the single
// publisher calls it.
func (s *Store) keep(prev *Snapshot, now time.Time) {
	retain := time.Duration(s.retain.Load())
	if retain <= 0 {
		retain = DefaultRetain
	}
	var lasts []kept
	if old := s.lasts.Load(); old != nil {
		lasts = *old
	}
	for len(lasts) > 0 && (now.Sub(lasts[0].replaced) > retain || len(lasts) >= maxKept) {
		lasts = lasts[1:]
	}
	next := append(append(make([]kept, 0, len(lasts)+1), lasts...), kept{prev, now})
	s.lasts.Store(&next)
}

// Before returns the last snapshot published before block number became
// the head (its head is an earlier block), or nil when it is no longer
// kept.
func (s *Store) Before(number uint64) *Snapshot {
	lasts := s.lasts.Load()
	if lasts == nil {
		return nil
	}
	for i := len(*lasts) - 1; i >= 0; i-- {
		if k := (*lasts)[i]; k.snap.Head.NumberU64() < number {
			return k.snap
		}
	}
	return nil
}

// PreconfHash is the hash the block being built goes by on the Preconf
// view (/preconf) until it is sealed: Base's Flashblocks RPC gives a
// pre-confirmed receipt a block hash, and ethers and viem look the block
// up by it. The block has no hash of its own yet, and the one it will
// have changes with every transaction added; this one is the same for all
// of the block's pre-confirmations and on every replica (it depends on
// the parent, the number and the prevrandao of the block's opening only),
// and is not the hash of any block.
func (b *Block) PreconfHash() common.Hash { return PreconfHashOf(b.Header) }

// PreconfHashOf is PreconfHash of the block whose header (as opened, or
// as sealed: the seal keeps the opening's parent, number and prevrandao)
// is h.
func PreconfHashOf(h *types.Header) common.Hash {
	var num [8]byte
	binary.BigEndian.PutUint64(num[:], h.Number.Uint64())
	return crypto.Keccak256Hash([]byte(preconfDomain), h.ParentHash[:], num[:], h.MixDigest[:])
}

// preconfDomain keeps PreconfHash apart from every other keccak of the
// same fields (the log's payload id among them).
const preconfDomain = "stocknode preconf block"
