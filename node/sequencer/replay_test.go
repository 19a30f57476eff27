package sequencer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/seqlog"
)

// entry is one journal entry as a replica gets it: through the log's
// encoding (seqlog), so that a field the log drops shows up as a replica
// that cannot rebuild the sequencer's block.
type entry struct {
	opened  *types.Header // an Opened entry
	sealed  *types.Block  // a Sealed entry
	index   int           // a Preconfirmed entry (neither of the above)
	number  uint64        // a Preconfirmed entry's block
	gasUsed uint64
	txs     types.Transactions
	want    *view // what the sequencer published for a Preconfirmed
}

func (e entry) String() string {
	switch {
	case e.opened != nil:
		return fmt.Sprintf("opened %d", e.opened.Number)
	case e.sealed != nil:
		return fmt.Sprintf("sealed %d", e.sealed.NumberU64())
	}
	return fmt.Sprintf("preconfirmed %d (%d txs)", e.index, len(e.txs))
}

// view is what a published snapshot serves, reduced to what a replica must
// agree with the sequencer on.
type view struct {
	seq      uint64
	head     common.Hash
	index    int
	header   *types.Header // pending
	txs      []common.Hash
	receipts []receiptView
	accounts map[common.Address]accountView
}

type receiptView struct {
	Status, GasUsed, CumulativeGasUsed uint64
	Logs                               int
}

type accountView struct {
	Balance string
	Nonce   uint64
}

func viewOf(t testing.TB, snap *pending.Snapshot, watch []common.Address) *view {
	v := &view{
		seq:      snap.Seq,
		head:     snap.Head.Hash(),
		index:    snap.Pending.Index,
		header:   types.CopyHeader(snap.Pending.Header),
		accounts: map[common.Address]accountView{},
	}
	for _, tx := range snap.Pending.Transactions {
		v.txs = append(v.txs, tx.Hash())
	}
	for _, r := range snap.Pending.Receipts {
		v.receipts = append(v.receipts, receiptView{r.Status, r.GasUsed, r.CumulativeGasUsed, len(r.Logs)})
	}
	for _, addr := range watch {
		acct, err := snap.PendingReader().Account(addr)
		if err != nil {
			t.Errorf("pending account %s: %v", addr, err)
			continue
		}
		if acct != nil {
			v.accounts[addr] = accountView{acct.Balance.String(), acct.Nonce}
		}
	}
	return v
}

// diff describes how got differs from want; empty when they agree.
func (want *view) diff(got *view) string {
	var d []string
	if got.head != want.head {
		d = append(d, fmt.Sprintf("head %s, want %s", got.head, want.head))
	}
	if got.index != want.index {
		d = append(d, fmt.Sprintf("pre-confirmation index %d, want %d", got.index, want.index))
	}
	if got.header.Hash() != want.header.Hash() {
		g, _ := json.Marshal(got.header)
		w, _ := json.Marshal(want.header)
		d = append(d, fmt.Sprintf("pending header\n  %s\nwant\n  %s", g, w))
	}
	if !slices.Equal(got.txs, want.txs) {
		d = append(d, fmt.Sprintf("transactions %v, want %v", got.txs, want.txs))
	}
	if !slices.Equal(got.receipts, want.receipts) {
		d = append(d, fmt.Sprintf("receipts %+v, want %+v", got.receipts, want.receipts))
	}
	for addr, w := range want.accounts {
		if g := got.accounts[addr]; g != w {
			d = append(d, fmt.Sprintf("pending account %s: %+v, want %+v", addr, g, w))
		}
	}
	for addr, g := range got.accounts {
		if _, ok := want.accounts[addr]; !ok {
			d = append(d, fmt.Sprintf("pending account %s: %+v, the sequencer's does not exist", addr, g))
		}
	}
	return strings.Join(d, "\n")
}

// ears is a Listener that notes every announcement, and checks what the
// Listener contract promises of each.
type ears struct {
	mu      sync.Mutex
	heard   []string
	faults  []string
	lastSeq uint64
	sealed  uint64                  // Seq of the snapshot Sealed reported, until its Preconfirmed
	preconf func(*pending.Snapshot) // also called on every Preconfirmed
}

func (l *ears) Sealed(snap *pending.Snapshot, block *types.Block) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.heard = append(l.heard, fmt.Sprintf("sealed %d", block.NumberU64()))
	if snap.Head.Hash() != block.Hash() {
		l.faults = append(l.faults, fmt.Sprintf("Sealed(block %d) with a snapshot whose head is %d", block.NumberU64(), snap.Head.NumberU64()))
	}
	if l.sealed != 0 {
		l.faults = append(l.faults, fmt.Sprintf("Sealed twice (snapshots %d, %d) without a Preconfirmed between", l.sealed, snap.Seq))
	}
	l.sealed = snap.Seq
}

func (l *ears) Preconfirmed(snap *pending.Snapshot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.heard = append(l.heard, fmt.Sprintf("preconfirmed %d.%d", snap.Pending.Header.Number, snap.Pending.Index))
	if l.lastSeq != 0 && snap.Seq != l.lastSeq+1 {
		l.faults = append(l.faults, fmt.Sprintf("snapshot %d announced after %d: one announcement per publication", snap.Seq, l.lastSeq))
	}
	if l.sealed != 0 && l.sealed != snap.Seq {
		l.faults = append(l.faults, fmt.Sprintf("Sealed with snapshot %d, then Preconfirmed with %d", l.sealed, snap.Seq))
	}
	l.lastSeq, l.sealed = snap.Seq, 0
	if l.preconf != nil {
		l.preconf(snap)
	}
}

func (l *ears) events() ([]string, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.heard), slices.Clone(l.faults)
}

// tape is a Journal keeping what the sequencer logged, in order, each
// pre-confirmation with the snapshot the sequencer published for it, after
// logging it: right after, or, for those made while the parent block's
// commit ran, once it was over, in order (pipeline.go).
type tape struct {
	t       testing.TB
	watch   []common.Address
	ears    ears
	mu      sync.Mutex
	entries []entry
}

func newTape(t testing.TB, watch []common.Address) *tape {
	tp := &tape{t: t, watch: watch}
	tp.ears.preconf = func(snap *pending.Snapshot) {
		tp.mu.Lock()
		defer tp.mu.Unlock()
		e := tp.unpublished()
		if e == nil || e.number != snap.Pending.Header.Number.Uint64() || e.index != snap.Pending.Index {
			t.Errorf("snapshot %d (pre-confirmation %d.%d) published, and the first logged pre-confirmation not yet published is %v",
				snap.Seq, snap.Pending.Header.Number, snap.Pending.Index, e)
			return
		}
		e.want = viewOf(t, snap, tp.watch)
	}
	return tp
}

// unpublished is the first logged pre-confirmation that no snapshot was
// published for, nil when there is none; tp.mu is held.
func (tp *tape) unpublished() *entry {
	for i := range tp.entries {
		if e := &tp.entries[i]; e.opened == nil && e.sealed == nil && e.want == nil {
			return e
		}
	}
	return nil
}

func (tp *tape) add(e entry) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.entries = append(tp.entries, e)
}

func (tp *tape) Opened(h *types.Header) error {
	enc, err := rlp.EncodeToBytes(seqlog.NewOpened(h, seqlog.NewPayloadID(h)))
	if err != nil {
		return err
	}
	var o seqlog.Opened
	if err := rlp.DecodeBytes(enc, &o); err != nil {
		return err
	}
	tp.add(entry{opened: o.Header()})
	return nil
}

func (tp *tape) Preconfirmed(b *pending.Block, txs types.Transactions) error {
	raw, err := seqlog.EncodeTxs(txs)
	if err != nil {
		return err
	}
	decoded, err := seqlog.DecodeTxs(raw)
	if err != nil {
		return err
	}
	tp.add(entry{index: b.Index, number: b.Header.Number.Uint64(), gasUsed: b.Header.GasUsed, txs: decoded})
	return nil
}

func (tp *tape) Sealed(block *types.Block, receipts types.Receipts) error {
	s, err := seqlog.NewSealed(block, receipts)
	if err != nil {
		return err
	}
	decoded, err := s.DecodeBlock()
	if err != nil {
		return err
	}
	tp.add(entry{sealed: decoded})
	return nil
}

func (tp *tape) Reopened(sealed *types.Block, receipts types.Receipts, first *pending.Block) error {
	if err := tp.Sealed(sealed, receipts); err != nil {
		return err
	}
	if err := tp.Opened(first.Header); err != nil {
		return err
	}
	return tp.Preconfirmed(first, first.Transactions)
}

// recording is a sequencer's run: its log split into blocks (each from its
// Opened to its Sealed) and what its listener heard.
type recording struct {
	blocks [][]entry
	heard  []string
	watch  []common.Address
}

// record runs a sequencer while transfers from three senders to three
// recipients arrive spread over ticks and blocks, until every transfer is
// sealed and at least three blocks are, with the block after the last
// transfer's opened.
func record(t *testing.T) recording {
	t.Helper()
	e := newEnv(t)
	coinbase := common.HexToAddress("0x00000000000000000000000000000000000c0b5e")
	to := []common.Address{
		common.HexToAddress("0x00000000000000000000000000000000000000a1"),
		common.HexToAddress("0x00000000000000000000000000000000000000a2"),
		common.HexToAddress("0x00000000000000000000000000000000000000a3"),
	}
	watch := append([]common.Address{e.addr(0), e.addr(1), e.addr(2), coinbase}, to...)
	tp := newTape(t, watch)
	seq, err := New(Config{BlockTime: 40 * time.Millisecond, PreconfInterval: 8 * time.Millisecond, Coinbase: coinbase, GasCeil: chain.PreviewGasLimit},
		e.chain, e.pool, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	seq.SetJournal(tp)
	seq.SetListener(&tp.ears)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- seq.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("sequencer: %v", err)
		}
	}()

	var nonces [3]uint64
	for round := range 6 {
		// Several senders in one tick, one sender twice in a tick, and
		// ticks without transfers in between.
		for _, from := range []int{0, 1, 0, 2}[:2+round%3] {
			if err := e.pool.Add(e.transfer(from, nonces[from], to[(round+from)%3], int64(1000+round))); err != nil {
				t.Fatal(err)
			}
			nonces[from]++
		}
		time.Sleep(13 * time.Millisecond)
	}
	var last uint64
	e.waitFor("every transfer sealed", 10*time.Second, func(s *pending.Snapshot) bool {
		st, err := s.LatestState()
		if err != nil || st.GetNonce(e.addr(0)) != nonces[0] || st.GetNonce(e.addr(1)) != nonces[1] || st.GetNonce(e.addr(2)) != nonces[2] {
			return false
		}
		last = s.Head.NumberU64()
		return true
	})
	e.waitFor("two blocks after the last transfer's", 10*time.Second, func(s *pending.Snapshot) bool {
		return s.Head.NumberU64() >= max(last+2, 3)
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("sequencer: %v", err)
	}
	done <- nil // for the deferred stop

	heard, faults := tp.ears.events()
	for _, f := range faults {
		t.Errorf("sequencer's listener: %s", f)
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	rec := recording{heard: heard, watch: watch}
	var cur []entry
	for _, en := range tp.entries {
		if en.opened != nil && len(cur) > 0 {
			t.Fatalf("block %d opened before %s was sealed", en.opened.Number, cur[0])
		}
		if en.opened == nil && en.sealed == nil && en.want == nil {
			t.Fatalf("%s of %s: no snapshot published after it", en, cur[0])
		}
		cur = append(cur, en)
		if en.sealed != nil {
			rec.blocks = append(rec.blocks, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		rec.blocks = append(rec.blocks, cur)
	}
	t.Logf("recorded %d blocks: %s", len(rec.blocks), rec.summary())
	return rec
}

func (rec recording) summary() string {
	var s []string
	for _, b := range rec.blocks {
		var ticks []string
		for _, en := range b {
			if en.opened == nil && en.sealed == nil {
				ticks = append(ticks, fmt.Sprint(len(en.txs)))
			}
		}
		s = append(s, fmt.Sprintf("[%s]", strings.Join(ticks, " ")))
	}
	return strings.Join(s, " ")
}

// firstTxBlock is the index of the first block with transactions and the
// index, within it, of its first pre-confirmation with some.
func (rec recording) firstTxBlock(t *testing.T) (int, int) {
	t.Helper()
	for i, b := range rec.blocks {
		for j, en := range b {
			if len(en.txs) > 0 {
				if i+1 >= len(rec.blocks) {
					t.Fatalf("no block recorded after block %d, the first with transactions", i+1)
				}
				return i, j
			}
		}
	}
	t.Fatal("no transactions recorded")
	return 0, 0
}

// replica is a second chain from the same genesis, replaying into its own
// store.
type replica struct {
	t     *testing.T
	chain *chain.Chain
	store *pending.Store
	r     *Replayer
	ears  ears
	watch []common.Address
}

func newReplica(t *testing.T, watch []common.Address) *replica {
	rp := &replica{t: t, chain: newEnv(t).chain, store: new(pending.Store), watch: watch}
	rp.r = NewReplayer(rp.chain, rp.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	rp.r.SetListener(&rp.ears)
	return rp
}

// play replays en and checks the replica then serves what the sequencer
// served after it.
func (rp *replica) play(en entry) {
	rp.t.Helper()
	switch {
	case en.opened != nil:
		if err := rp.r.Opened(en.opened); err != nil {
			rp.t.Fatalf("%s: %v", en, err)
		}
		if n, ok := rp.r.Building(); !ok || n != en.opened.Number.Uint64() {
			rp.t.Fatalf("%s: building %d (%v)", en, n, ok)
		}
	case en.sealed != nil:
		inserted, err := rp.r.Sealed(en.sealed)
		if err != nil || !inserted {
			rp.t.Fatalf("%s: inserted %v, %v", en, inserted, err)
		}
		if head := rp.chain.Head(); head.Hash() != en.sealed.Hash() {
			rp.t.Fatalf("%s: replica's head is %d %s, want %s", en, head.Number, head.Hash(), en.sealed.Hash())
		}
	default:
		if err := rp.r.Preconfirmed(en.index, en.gasUsed, en.txs); err != nil {
			rp.t.Fatalf("%s: %v", en, err)
		}
		if d := en.want.diff(rp.view()); d != "" {
			rp.t.Fatalf("block %d %s: the replica's snapshot differs from the sequencer's:\n%s", en.want.header.Number, en, d)
		}
	}
}

func (rp *replica) playAll(entries []entry) {
	rp.t.Helper()
	for _, en := range entries {
		rp.play(en)
	}
}

func (rp *replica) view() *view {
	snap := rp.store.Load()
	if snap == nil {
		rp.t.Fatal("the replica published nothing")
	}
	return viewOf(rp.t, snap, rp.watch)
}

// requireHeadOnly checks pending shows the head and nothing on it: the
// pending block is the head's header, without transactions.
func (rp *replica) requireHeadOnly(what string) *view {
	rp.t.Helper()
	snap := rp.store.Load()
	head := rp.chain.Head()
	if snap.Head.Hash() != head.Hash() || snap.Pending.Header.Hash() != head.Hash() || len(snap.Pending.Transactions) != 0 || len(snap.Pending.Receipts) != 0 {
		rp.t.Fatalf("%s: pending is block %d with %d transactions on head %d, want the head %d alone",
			what, snap.Pending.Header.Number, len(snap.Pending.Transactions), snap.Head.NumberU64(), head.Number)
	}
	if n, ok := rp.r.Building(); ok {
		rp.t.Fatalf("%s: still rebuilding block %d", what, n)
	}
	return viewOf(rp.t, snap, rp.watch)
}

// TestReplayMatchesSequencer: a replica replaying a sequencer's log serves,
// after each entry, what the sequencer served after it: the same head
// after every sealed block, the same pending block and state after every
// pre-confirmation, announced to its listener in the same order.
func TestReplayMatchesSequencer(t *testing.T) {
	rec := record(t)
	rp := newReplica(t, rec.watch)
	for _, b := range rec.blocks {
		rp.playAll(b)
	}
	heard, faults := rp.ears.events()
	for _, f := range faults {
		t.Errorf("replica's listener: %s", f)
	}
	if !slices.Equal(heard, rec.heard) {
		t.Errorf("the replica's listener heard\n  %v\nthe sequencer's\n  %v", heard, rec.heard)
	}
}

// TestReplayMismatchDropsPending: a pre-confirmation the replica cannot
// reproduce means its block is no longer the sequencer's, so it must not
// serve it: pending falls back to the head, stays there for the rest of the
// block, and the sealed block and the next one replay as usual.
func TestReplayMismatchDropsPending(t *testing.T) {
	rec := record(t)
	bi, pi := rec.firstTxBlock(t)
	cases := []struct {
		name   string
		mutate func(*entry)
	}{
		{"skipped index", func(e *entry) { e.index++ }},
		{"transaction removed", func(e *entry) { e.txs = e.txs[1:] }},
		{"transaction repeated", func(e *entry) { e.txs = append(slices.Clone(e.txs), e.txs[0]) }},
		{"wrong gas used", func(e *entry) { e.gasUsed++ }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rp := newReplica(t, rec.watch)
			for _, b := range rec.blocks[:bi] {
				rp.playAll(b)
			}
			block := rec.blocks[bi]
			rp.playAll(block[:pi])
			bad := block[pi]
			c.mutate(&bad)
			if err := rp.r.Preconfirmed(bad.index, bad.gasUsed, bad.txs); err != nil {
				t.Fatalf("mismatched %s: %v", bad, err)
			}
			dropped := rp.requireHeadOnly("after the mismatch")
			for _, en := range block[pi+1 : len(block)-1] {
				if err := rp.r.Preconfirmed(en.index, en.gasUsed, en.txs); err != nil {
					t.Fatalf("%s after the mismatch: %v", en, err)
				}
				if v := rp.requireHeadOnly(en.String() + " after the mismatch"); v.seq != dropped.seq {
					t.Fatalf("%s after the mismatch published snapshot %d", en, v.seq)
				}
			}
			rp.play(block[len(block)-1]) // sealed: inserted by validation
			for _, b := range rec.blocks[bi+1:] {
				rp.playAll(b)
			}
			if _, faults := rp.ears.events(); len(faults) > 0 {
				t.Errorf("replica's listener: %v", faults)
			}
		})
	}
}

// TestReplayOpenedOnAnotherParent: a block opened on a parent the replica
// does not hold cannot be rebuilt; its pre-confirmations are ignored until
// a block opens on the head.
func TestReplayOpenedOnAnotherParent(t *testing.T) {
	rec := record(t)
	bi, _ := rec.firstTxBlock(t)
	rp := newReplica(t, rec.watch)
	for _, b := range rec.blocks[:bi] {
		rp.playAll(b)
	}
	block := rec.blocks[bi]
	stray := types.CopyHeader(block[0].opened)
	stray.ParentHash = common.HexToHash("0xbad")
	if err := rp.r.Opened(stray); err != nil {
		t.Fatalf("Opened on another parent: %v", err)
	}
	skipped := rp.requireHeadOnly("after a block opened on another parent")
	for _, en := range block[1 : len(block)-1] {
		if err := rp.r.Preconfirmed(en.index, en.gasUsed, en.txs); err != nil {
			t.Fatalf("%s of the skipped block: %v", en, err)
		}
		if v := rp.requireHeadOnly(en.String() + " of the skipped block"); v.seq != skipped.seq {
			t.Fatalf("%s of the skipped block published snapshot %d", en, v.seq)
		}
	}
	// The same block opened on the head, as a sequencer that rebuilt it.
	rp.playAll(block)
	for _, b := range rec.blocks[bi+1:] {
		rp.playAll(b)
	}
}

// TestReplaySealed: a sealed block the replica holds is skipped, another
// block at a number it holds means the log is another chain's, a block
// the replica rebuilt differently (or not at all) is validated in full,
// and a block that does not validate is refused and leaves the head as it
// was.
func TestReplaySealed(t *testing.T) {
	rec := record(t)
	bi, _ := rec.firstTxBlock(t)
	sealedOf := func(b []entry) *types.Block {
		if s := b[len(b)-1].sealed; s != nil {
			return s
		}
		t.Fatalf("block %s not sealed in the recording", b[0])
		return nil
	}
	txBlock := rec.blocks[bi]
	target := sealedOf(txBlock)
	tampered := func(b *types.Block, f func(*types.Header)) *types.Block {
		h := b.Header()
		f(h)
		return types.NewBlockWithHeader(h).WithBody(*b.Body())
	}
	badRoot := tampered(target, func(h *types.Header) { h.Root = common.HexToHash("0xbad") })
	otherChain := tampered(sealedOf(rec.blocks[0]), func(h *types.Header) { h.Extra = []byte("another chain") })

	// fewer is what a replica that missed the transaction block's last
	// pre-confirmation with transactions rebuilt.
	var fewer []entry
	for i, en := range txBlock {
		if en.opened == nil && en.sealed == nil && len(en.txs) > 0 {
			fewer = txBlock[:i]
		}
	}
	otherRandao := slices.Clone(txBlock[:len(txBlock)-1])
	otherRandao[0].opened = types.CopyHeader(otherRandao[0].opened)
	otherRandao[0].opened.MixDigest = common.HexToHash("0x0ddba11")

	cases := []struct {
		name     string
		upTo     int          // blocks replayed as recorded first
		before   []entry      // then these, without checks
		sealed   *types.Block // then this
		inserted bool         // Sealed's answer
		err      string       // its error, "" for none
		then     []entry      // and these replay as recorded
	}{
		{name: "the head again", upTo: bi + 1, sealed: target},
		{name: "below the head", upTo: bi + 1, sealed: sealedOf(rec.blocks[0])},
		{name: "another block at a held number", upTo: bi + 1, sealed: otherChain, err: "another chain's"},
		{name: "not on the head", upTo: 0, sealed: sealedOf(rec.blocks[1]), err: "does not extend"},
		{name: "nothing rebuilt", upTo: bi, sealed: target, inserted: true, then: rec.blocks[bi+1]},
		{name: "rebuilt with fewer transactions", upTo: bi, before: fewer, sealed: target, inserted: true, then: rec.blocks[bi+1]},
		{name: "rebuilt with another prevrandao", upTo: bi, before: otherRandao, sealed: target, inserted: true, then: rec.blocks[bi+1]},
		{name: "bad state root, nothing rebuilt", upTo: bi, sealed: badRoot, err: "invalid merkle root", then: txBlock},
		{name: "bad state root, rebuilt", upTo: bi, before: txBlock[:len(txBlock)-1], sealed: badRoot, err: "invalid merkle root", then: txBlock},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rp := newReplica(t, rec.watch)
			for _, b := range rec.blocks[:c.upTo] {
				rp.playAll(b)
			}
			for _, en := range c.before {
				var err error
				if en.opened != nil {
					err = rp.r.Opened(en.opened)
				} else {
					err = rp.r.Preconfirmed(en.index, en.gasUsed, en.txs)
				}
				if err != nil {
					t.Fatalf("%s: %v", en, err)
				}
			}
			head := rp.chain.Head().Hash()
			published := rp.store.Load()
			inserted, err := rp.r.Sealed(c.sealed)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("Sealed(%d): %v", c.sealed.NumberU64(), err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("Sealed(%d): error %v, want one saying %q", c.sealed.NumberU64(), err, c.err)
			case inserted != c.inserted:
				t.Fatalf("Sealed(%d): inserted %v, want %v", c.sealed.NumberU64(), inserted, c.inserted)
			}
			want := head
			if c.inserted {
				want = c.sealed.Hash()
			}
			if got := rp.chain.Head().Hash(); got != want {
				t.Fatalf("head %s after Sealed(%d), want %s", got, c.sealed.NumberU64(), want)
			}
			if rp.store.Load() != published {
				t.Fatalf("Sealed published a snapshot: a block is announced with the next block's first pre-confirmation")
			}
			rp.playAll(c.then)
		})
	}
}

// TestReplayFlush: a block sealed last is announced by Flush when no
// pre-confirmation of the next block follows, once.
func TestReplayFlush(t *testing.T) {
	rec := record(t)
	rp := newReplica(t, rec.watch)
	rp.playAll(rec.blocks[0])
	if err := rp.r.Flush(); err != nil {
		t.Fatal(err)
	}
	first := rp.requireHeadOnly("after Flush")
	if err := rp.r.Flush(); err != nil {
		t.Fatal(err)
	}
	if rp.store.Load().Seq != first.seq {
		t.Fatal("a second Flush published again")
	}
	heard, _ := rp.ears.events()
	if n := len(heard); n < 2 || heard[n-2] != fmt.Sprintf("sealed %d", rec.blocks[0][len(rec.blocks[0])-1].sealed.NumberU64()) {
		t.Fatalf("after Flush the listener heard %v, want the sealed block announced last", heard)
	}
}
