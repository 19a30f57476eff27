package sequencer

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/txpool"
)

// recorder is a Journal that keeps what it was given, and the order of its
// entries relative to the listener's announcements.
type recorder struct {
	mu      sync.Mutex
	events  []string // "opened N", "preconf N", "sealed N", "announced N"
	txs     map[uint64]types.Transactions
	sealed  map[uint64]*types.Block
	headers map[uint64]*types.Header
	failAt  int // fail the n-th Preconfirmed (1-based); 0: never
	preconf int
}

var errJournalDown = errors.New("journal down")

func (r *recorder) Opened(h *types.Header) error {
	r.mu.Lock()
	if r.headers != nil {
		r.headers[h.Number.Uint64()] = h
	}
	r.mu.Unlock()
	r.add("opened", h.Number.Uint64())
	return nil
}

func (r *recorder) Preconfirmed(b *pending.Block, txs types.Transactions) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.preconf++; r.failAt > 0 && r.preconf >= r.failAt {
		return errJournalDown
	}
	n := b.Header.Number.Uint64()
	r.txs[n] = append(r.txs[n], txs...)
	r.events = append(r.events, "preconf")
	return nil
}

func (r *recorder) Sealed(block *types.Block, _ types.Receipts) error {
	r.mu.Lock()
	r.sealed[block.NumberU64()] = block
	r.mu.Unlock()
	r.add("sealed", block.NumberU64())
	return nil
}

func (r *recorder) Reopened(sealed *types.Block, receipts types.Receipts, first *pending.Block) error {
	if err := r.Sealed(sealed, receipts); err != nil {
		return err
	}
	if err := r.Opened(first.Header); err != nil {
		return err
	}
	return r.Preconfirmed(first, first.Transactions)
}

func (r *recorder) add(what string, n uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, what+" "+itoa(n))
}

// announcer is a Listener that notes each announced head in the recorder.
type announcer struct{ r *recorder }

func (a announcer) Sealed(_ *pending.Snapshot, b *types.Block) { a.r.add("announced", b.NumberU64()) }
func (a announcer) Preconfirmed(*pending.Snapshot)             {}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestJournalBeforeAnnouncement: every block is logged as opened, its
// transactions as pre-confirmed (in execution order, all of them), and the
// block as sealed before the listener announces it.
func TestJournalBeforeAnnouncement(t *testing.T) {
	e := newEnv(t)
	r := &recorder{txs: map[uint64]types.Transactions{}, sealed: map[uint64]*types.Block{}}
	seq, err := New(Config{BlockTime: 50 * time.Millisecond, PreconfInterval: 10 * time.Millisecond, GasCeil: chain.PreviewGasLimit},
		e.chain, e.pool, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	seq.SetJournal(r)
	seq.SetListener(announcer{r})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- seq.Run(ctx) }()
	for i := range uint64(20) {
		if err := e.pool.Add(e.transfer(0, i, e.addr(1), 1)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(7 * time.Millisecond)
	}
	e.waitFor("all 20 sealed", 5*time.Second, func(s *pending.Snapshot) bool {
		st, _ := s.LatestState()
		return st != nil && st.GetNonce(e.addr(0)) == 20
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	logged := 0
	for n, block := range r.sealed {
		got, want := r.txs[n], block.Transactions()
		if len(got) != len(want) {
			t.Fatalf("block %d: %d transactions pre-confirmed in the journal, %d sealed", n, len(got), len(want))
		}
		for i := range want {
			if got[i].Hash() != want[i].Hash() {
				t.Fatalf("block %d transaction %d: journal %s, block %s", n, i, got[i].Hash(), want[i].Hash())
			}
		}
		logged += len(want)
	}
	if logged != 20 {
		t.Errorf("%d transactions in sealed blocks of the journal, want 20", logged)
	}
	pos := map[string]int{}
	for i, ev := range r.events {
		pos[ev] = i
	}
	for n := range r.sealed {
		o, okO := pos["opened "+itoa(n)]
		s, okS := pos["sealed "+itoa(n)]
		a, okA := pos["announced "+itoa(n)]
		if !okO || !okS || !okA || !(o < s && s < a) {
			t.Errorf("block %d: opened at %d (%v), sealed at %d (%v), announced at %d (%v): want opened < sealed < announced", n, o, okO, s, okS, a, okA)
		}
	}
}

// TestJournalErrorStops: a pre-confirmation the journal refuses is not
// published, and the sequencer stops with the journal's error.
func TestJournalErrorStops(t *testing.T) {
	e := newEnv(t)
	r := &recorder{txs: map[uint64]types.Transactions{}, sealed: map[uint64]*types.Block{}, failAt: 3}
	seq, err := New(Config{BlockTime: 50 * time.Millisecond, PreconfInterval: 10 * time.Millisecond, GasCeil: chain.PreviewGasLimit},
		e.chain, e.pool, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	seq.SetJournal(r)
	done := make(chan error, 1)
	go func() { done <- seq.Run(context.Background()) }()
	select {
	case err := <-done:
		if !errors.Is(err, errJournalDown) {
			t.Fatalf("Run: %v, want the journal's error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the sequencer kept running after the journal failed")
	}
	snap := e.store.Load()
	if snap == nil {
		t.Fatal("nothing published")
	}
	if snap.Pending.Index != 1 {
		t.Fatalf("published up to pre-confirmation %d, want 1 (the third was refused)", snap.Pending.Index)
	}
}

// TestResumeKeepsPreconfirmations: a sequencer resumed with the header and
// transactions another run logged rebuilds that very block (same
// environment, same transactions in the same order) before anything else,
// logs none of it again, and seals it.
func TestResumeKeepsPreconfirmations(t *testing.T) {
	e := newEnv(t)
	cfg := Config{BlockTime: 5 * time.Second, PreconfInterval: 20 * time.Millisecond, GasCeil: chain.PreviewGasLimit}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	header, txs, ticks := preconfirmedBlock(t, e, cfg) // then a crash: the block is never sealed

	// The next run: a pool that lost everything, as after kill -9.
	pool, err := txpool.New(e.chain, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	second := &recorder{txs: map[uint64]types.Transactions{}, sealed: map[uint64]*types.Block{}, headers: map[uint64]*types.Header{}}
	store := new(pending.Store)
	seq, err := New(Config{BlockTime: 200 * time.Millisecond, PreconfInterval: 20 * time.Millisecond, GasCeil: chain.PreviewGasLimit}, e.chain, pool, store, quiet)
	if err != nil {
		t.Fatal(err)
	}
	seq.SetJournal(second)
	seq.Resume(header, txs, ticks)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- seq.Run(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for e.chain.Head().Number.Uint64() < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	block := e.chain.BlockChain().GetBlockByNumber(1)
	if block == nil {
		t.Fatal("the resumed block was not sealed")
	}
	if block.MixDigest() != header.MixDigest || block.Time() != header.Time || len(block.Transactions()) != 3 {
		t.Fatalf("sealed block 1: prevrandao %s time %d, %d txs; want the resumed %s, %d, 3", block.MixDigest(), block.Time(), len(block.Transactions()), header.MixDigest, header.Time)
	}
	for i, tx := range block.Transactions() {
		if tx.Hash() != txs[i].Hash() {
			t.Fatalf("transaction %d: %s, want %s", i, tx.Hash(), txs[i].Hash())
		}
	}
	second.mu.Lock()
	defer second.mu.Unlock()
	if second.headers[1] != nil || len(second.txs[1]) != 0 {
		t.Errorf("the resumed block was logged again: opened %v, %d transactions", second.headers[1] != nil, len(second.txs[1]))
	}
}

// TestUnlike: a logged opening is resumed only when it is one this
// sequencer makes now; a log entry cannot choose the block's coinbase, gas
// limit, extra data, fees or a future timestamp.
func TestUnlike(t *testing.T) {
	e := newEnv(t)
	parent := e.chain.BlockChain().CurrentBlock()
	now := parent.Time + 10
	template, err := nextHeader(e.chain, e.chain.BlockChain().GetBlockByHash(parent.Hash()), now, common.Address{0xc0}, chain.PreviewGasLimit)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(h *types.Header)
		want   string
	}{
		{"as this sequencer opens it", func(h *types.Header) {}, ""},
		{"an earlier timestamp, another prevrandao", func(h *types.Header) { h.Time = parent.Time; h.MixDigest = common.Hash{9} }, ""},
		{"another number", func(h *types.Header) { h.Number = new(big.Int).Add(h.Number, common.Big1) }, "number"},
		{"another coinbase", func(h *types.Header) { h.Coinbase = common.Address{0xba, 0xd} }, "coinbase"},
		{"another gas limit", func(h *types.Header) { h.GasLimit = 1 }, "gas limit"},
		{"other extra data", func(h *types.Header) { h.Extra = []byte("forged") }, "extra data"},
		{"a future timestamp", func(h *types.Header) { h.Time = now + 1 }, "timestamp (after now)"},
		{"another base fee", func(h *types.Header) { h.BaseFee = big.NewInt(1) }, "base fee"},
		{"no base fee", func(h *types.Header) { h.BaseFee = nil }, "base fee"},
		{"other excess blob gas", func(h *types.Header) { v := uint64(7); h.ExcessBlobGas = &v }, "excess blob gas"},
		{"a parent beacon root", func(h *types.Header) { h.ParentBeaconRoot = &common.Hash{1} }, "parent beacon root"},
		{"a difficulty", func(h *types.Header) { h.Difficulty = big.NewInt(1) }, "difficulty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logged := types.CopyHeader(template)
			tt.change(logged)
			if got := unlike(logged, template); got != tt.want {
				t.Errorf("unlike = %q, want %q", got, tt.want)
			}
		})
	}
}

// preconfirmedBlock has a sequencer pre-confirm three transfers in block
// 1 and stop before sealing it (a crash, or a leader that hands over): it
// returns the block's logged opening, transactions and pre-confirmations.
func preconfirmedBlock(t *testing.T, e *env, cfg Config) (*types.Header, types.Transactions, int) {
	t.Helper()
	first := &recorder{txs: map[uint64]types.Transactions{}, sealed: map[uint64]*types.Block{}, headers: map[uint64]*types.Header{}}
	seq, err := New(cfg, e.chain, e.pool, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	seq.SetJournal(first)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- seq.Run(ctx) }()
	for i := range uint64(3) {
		if err := e.pool.Add(e.transfer(0, i, e.addr(1), 1)); err != nil {
			t.Fatal(err)
		}
	}
	e.waitFor("three pre-confirmed", 5*time.Second, func(s *pending.Snapshot) bool { return len(s.Pending.Transactions) == 3 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	return first.headers[1], first.txs[1], first.preconf
}

// replay has a replayer apply the opening and the transactions as one
// pre-confirmation.
func replay(t *testing.T, e *env, opening *types.Header, txs types.Transactions) *Replayer {
	t.Helper()
	r := NewReplayer(e.chain, new(pending.Store), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := r.Opened(opening); err != nil {
		t.Fatal(err)
	}
	if err := r.Preconfirmed(0, params.TxGas*uint64(len(txs)), txs); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestContinueTakesTheReplayedBlock: a standby taking over continues the
// block its replay rebuilt when it is the block the log holds, and
// executes the log's transactions again otherwise; the block it seals is
// the same either way.
func TestContinueTakesTheReplayedBlock(t *testing.T) {
	e := newEnv(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := Config{BlockTime: 5 * time.Second, PreconfInterval: 20 * time.Millisecond, GasCeil: chain.PreviewGasLimit}
	logged, txs, _ := preconfirmedBlock(t, e, cfg)
	otherOpening := types.CopyHeader(logged)
	otherOpening.MixDigest = common.Hash{1}
	tests := []struct {
		name      string
		replayed  *types.Header      // the opening the replay saw; nil: none offered
		preconfs  types.Transactions // what it executed, as one pre-confirmation
		continued bool
	}{
		{"the log's block", logged, txs, true},
		{"one pre-confirmed transaction short", logged, txs[:2], false},
		{"another opening", otherOpening, txs, false},
		{"nothing offered", nil, nil, false},
	}
	var want common.Hash
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, err := New(cfg, e.chain, e.pool, new(pending.Store), quiet)
			if err != nil {
				t.Fatal(err)
			}
			next.Resume(logged, txs, 1)
			var replayed *builder
			if tt.replayed != nil {
				r := replay(t, e, tt.replayed, tt.preconfs)
				replayed = r.b
				next.offer(r)
				if r.b != nil {
					t.Fatal("the replayer kept the block it offered")
				}
			}
			b, err := next.openResumed(next.currentHead(), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if got := b != nil && b == replayed; got != tt.continued {
				t.Fatalf("continued the replayed block: %v, want %v", got, tt.continued)
			}
			if len(b.txs) != len(txs) || b.logged != len(txs) || b.ticks != 1 {
				t.Fatalf("resumed %d transactions, %d logged, %d ticks; want %d, %d, 1", len(b.txs), b.logged, b.ticks, len(txs), len(txs))
			}
			sealed, err := b.seal()
			if err != nil {
				t.Fatal(err)
			}
			if want == (common.Hash{}) {
				want = sealed.Hash()
			} else if sealed.Hash() != want {
				t.Fatalf("sealed %s, want %s as the other cases", sealed.Hash(), want)
			}
		})
	}
}

// TestContinueReplayed: a sequencer taking over without reading the log
// continues the block its stopped replay builds on the head, and only
// that.
func TestContinueReplayed(t *testing.T) {
	e := newEnv(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := Config{BlockTime: 5 * time.Second, PreconfInterval: 20 * time.Millisecond, GasCeil: chain.PreviewGasLimit}
	logged, txs, _ := preconfirmedBlock(t, e, cfg)

	next, err := New(cfg, e.chain, e.pool, new(pending.Store), quiet)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := next.ContinueReplayed(NewReplayer(e.chain, new(pending.Store), quiet)); ok {
		t.Fatal("continued a replay that builds nothing")
	}
	r := replay(t, e, logged, txs)
	replayed := r.b
	got, ok := next.ContinueReplayed(r)
	if !ok || len(got) != len(txs) {
		t.Fatalf("continued %v with %d transactions, want true with %d", ok, len(got), len(txs))
	}
	b, err := next.openResumed(next.currentHead(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if b != replayed || b.logged != len(txs) || b.ticks != 1 {
		t.Fatalf("opened the replayed block: %v, %d logged, %d ticks; want true, %d, 1", b == replayed, b.logged, b.ticks, len(txs))
	}
}
