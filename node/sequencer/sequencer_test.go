package sequencer

import (
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"default", Config{BlockTime: 200 * time.Millisecond, PreconfInterval: 200 * time.Millisecond}, false},
		{"ten preconfs per block", Config{BlockTime: 2 * time.Second, PreconfInterval: 200 * time.Millisecond}, false},
		{"no blocks", Config{}, false},
		{"interval above block time", Config{BlockTime: 200 * time.Millisecond, PreconfInterval: time.Second}, true},
		{"eager", Config{BlockTime: 200 * time.Millisecond, PreconfInterval: 200 * time.Millisecond, PreconfMinGap: 20 * time.Millisecond}, false},
		{"gap above interval", Config{BlockTime: 200 * time.Millisecond, PreconfInterval: 100 * time.Millisecond, PreconfMinGap: time.Second}, true},
		{"zero interval", Config{BlockTime: 200 * time.Millisecond}, true},
		{"negative block time", Config{BlockTime: -1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

// A transfer shows in pending at the next pre-confirmation, while latest
// still lacks it, and in latest once its block seals.
func TestTransferPendingBeforeLatest(t *testing.T) {
	e := newEnv(t)
	e.start(Config{BlockTime: time.Second, PreconfInterval: 100 * time.Millisecond})
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tx := e.transfer(0, 0, to, 12345)

	before := e.store.Load()
	if err := e.pool.Add(tx); err != nil {
		t.Fatal(err)
	}
	pre := e.waitFor("tx in pending", 2*time.Second, func(s *pending.Snapshot) bool {
		return hasTx(s.Pending.Transactions, tx.Hash())
	})
	if got := balance(t, pre.PendingReader(), to); got.Cmp(big.NewInt(12345)) != 0 {
		t.Fatalf("pending balance = %v, want 12345", got)
	}
	if pre.Head.NumberU64() == before.Head.NumberU64() {
		// Pre-confirmed within the block that was open when the tx arrived.
		if got := balance(t, pre.LatestReader(), to); got.Sign() != 0 {
			t.Fatalf("latest balance before the seal = %v, want 0", got)
		}
	}
	if len(pre.Pending.Receipts) != len(pre.Pending.Transactions) {
		t.Fatalf("%d receipts for %d pending txs", len(pre.Pending.Receipts), len(pre.Pending.Transactions))
	}
	sealed := e.waitFor("tx in latest", 3*time.Second, func(s *pending.Snapshot) bool {
		return hasTx(s.Head.Transactions(), tx.Hash())
	})
	if sealed.Head.NumberU64() != pre.Pending.Header.Number.Uint64() {
		t.Fatalf("tx sealed in block %d, pre-confirmed for block %d", sealed.Head.NumberU64(), pre.Pending.Header.Number)
	}
	if got := balance(t, sealed.LatestReader(), to); got.Cmp(big.NewInt(12345)) != 0 {
		t.Fatalf("latest balance = %v, want 12345", got)
	}
	receipts := e.chain.BlockChain().GetReceiptsByHash(sealed.Head.Hash())
	if len(receipts) != 1 || receipts[0].Status != 1 || receipts[0].TxHash != tx.Hash() {
		t.Fatalf("sealed receipts = %+v", receipts)
	}
}

// With eager pre-confirmation, a transfer is pre-confirmed about one gap
// after it was accepted, long before the next regular tick: here the only
// regular ticks are the block boundaries, two seconds apart.
func TestEagerPreconfirmation(t *testing.T) {
	e := newEnv(t)
	e.start(Config{BlockTime: 2 * time.Second, PreconfInterval: 2 * time.Second, PreconfMinGap: 10 * time.Millisecond})
	// Let the first block open, so that the transfer lands mid-block.
	e.waitFor("first snapshot", time.Second, func(s *pending.Snapshot) bool { return true })
	time.Sleep(50 * time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000ab")
	for nonce := uint64(0); nonce < 3; nonce++ {
		tx := e.transfer(0, nonce, to, 1)
		accepted := time.Now()
		if err := e.pool.Add(tx); err != nil {
			t.Fatal(err)
		}
		snap := e.waitFor("tx in pending", time.Second, func(s *pending.Snapshot) bool {
			return hasTx(s.Pending.Transactions, tx.Hash())
		})
		if waited := time.Since(accepted); waited > 500*time.Millisecond {
			t.Fatalf("transfer %d pre-confirmed after %v, want about the 10ms gap", nonce, waited)
		}
		if snap.Pending.Index == 0 {
			t.Fatalf("transfer %d pre-confirmed at a block opening, not eagerly", nonce)
		}
	}
}

// The gap batches a stream of transactions: one that reaches a sequencer
// whose last ticks executed nothing is pre-confirmed at once, the next one
// right behind it no sooner than a gap after that pre-confirmation.
func TestEagerGapAfterEmptyTicks(t *testing.T) {
	const gap = time.Second
	e := newEnv(t)
	e.start(Config{BlockTime: 5 * time.Second, PreconfInterval: 5 * time.Second, PreconfMinGap: gap})
	// Let the (empty) first block open: its opening tick executed nothing.
	e.waitFor("first snapshot", time.Second, func(s *pending.Snapshot) bool { return true })
	time.Sleep(50 * time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000ac")
	// The gap runs from the start of the tick that pre-confirmed the first
	// transfer, which the test cannot see: it falls between the first's
	// acceptance and its snapshot's publication. The second's snapshot is
	// published at least a gap after the former (measuring from the
	// latter would count the first tick's own execution against the gap).
	var firstAccepted time.Time
	for nonce := uint64(0); nonce < 2; nonce++ {
		tx := e.transfer(0, nonce, to, 1)
		accepted := time.Now()
		if err := e.pool.Add(tx); err != nil {
			t.Fatal(err)
		}
		snap := e.waitFor("tx in pending", 3*time.Second, func(s *pending.Snapshot) bool {
			return hasTx(s.Pending.Transactions, tx.Hash())
		})
		switch {
		case nonce == 0 && time.Since(accepted) > gap/2:
			t.Fatalf("the first transfer waited %v after empty ticks, want it pre-confirmed at once, not after the %v gap", time.Since(accepted), gap)
		case nonce == 1 && snap.Published.Sub(firstAccepted) < gap:
			t.Fatalf("the second transfer was pre-confirmed %v after the first was accepted, want at least the %v gap", snap.Published.Sub(firstAccepted), gap)
		}
		if nonce == 0 {
			firstAccepted = accepted
		}
	}
}

// The gap after a seal runs from when the next block's first
// pre-confirmation took the pool's transactions, early in the seal, not
// from the seal's end: a transfer accepted while the sealed block is
// committed has already waited part of the gap.
func TestEagerGapRunsFromTheSealsSnapshot(t *testing.T) {
	const (
		gap  = time.Second
		hold = 600 * time.Millisecond // each commit
	)
	e := newEnv(t)
	to := common.HexToAddress("0x00000000000000000000000000000000000000ad")
	first, during := e.transfer(0, 0, to, 1), e.transfer(0, 1, to, 1)
	var sealed, committed sync.Once
	hooks := testHooks{
		// Pooled as the first block is sealed: the next block's first
		// pre-confirmation executes it, and the gap starts there.
		sealing: func(uint64) {
			sealed.Do(func() {
				if err := e.pool.Add(first); err != nil {
					t.Errorf("add: %v", err)
				}
			})
		},
		committing: func() {
			committed.Do(func() {
				// Accepted after that pre-confirmation took the pool's
				// transactions, while the commit holds up its publication.
				time.AfterFunc(hold/3, func() {
					if err := e.pool.Add(during); err != nil {
						t.Errorf("add: %v", err)
					}
				})
			})
			time.Sleep(hold)
		},
	}
	e.startWith(Config{BlockTime: 3 * time.Second, PreconfInterval: 3 * time.Second, PreconfMinGap: gap}, hooks)
	firstSnap := e.waitFor("first transfer pre-confirmed", 5*time.Second, func(s *pending.Snapshot) bool {
		return hasTx(s.Pending.Transactions, first.Hash())
	})
	if firstSnap.Pending.Index != 0 {
		t.Fatalf("first transfer pre-confirmed at index %d, want the opening's", firstSnap.Pending.Index)
	}
	duringSnap := e.waitFor("second transfer pre-confirmed", 5*time.Second, func(s *pending.Snapshot) bool {
		return hasTx(s.Pending.Transactions, during.Hash())
	})
	// From the seal's end the gap would put it a whole gap after the
	// first's publication; from the snapshot, the held commit's time
	// less.
	if after := duringSnap.Published.Sub(firstSnap.Published); after > gap-hold/3 {
		t.Fatalf("second transfer pre-confirmed %v after the seal's publication, want about %v (the gap less the held commit)", after, gap-hold)
	}
}

// With a block time of five pre-confirmation intervals, each block gets
// pre-confirmation indices 0..4 and no more, and empty blocks keep coming.
func TestPreconfirmationRhythm(t *testing.T) {
	e := newEnv(t)
	e.start(Config{BlockTime: 500 * time.Millisecond, PreconfInterval: 100 * time.Millisecond})
	start := e.store.Load().Head.NumberU64()

	maxIndex := map[uint64]int{}
	deadline := time.Now().Add(2600 * time.Millisecond)
	for time.Now().Before(deadline) {
		s := e.store.Load()
		n := s.Pending.Header.Number.Uint64()
		if s.Pending.Index > maxIndex[n] {
			maxIndex[n] = s.Pending.Index
		}
		time.Sleep(2 * time.Millisecond)
	}
	head := e.store.Load().Head.NumberU64()
	if head-start < 3 {
		t.Fatalf("only %d blocks sealed in 2.6 s at 500 ms blocks", head-start)
	}
	fullTicks := 0
	for n, idx := range maxIndex {
		if idx > 4 {
			t.Errorf("block %d reached pre-confirmation index %d, want at most 4", n, idx)
		}
		if idx == 4 {
			fullTicks++
		}
	}
	if fullTicks == 0 {
		t.Errorf("no block showed all five pre-confirmations: %v", maxIndex)
	}
	// Empty blocks are sealed too, and several may share one second.
	for n := start + 1; n <= head; n++ {
		h := e.chain.BlockChain().GetHeaderByNumber(n)
		parent := e.chain.BlockChain().GetHeaderByNumber(n - 1)
		if h.Time < parent.Time {
			t.Fatalf("block %d time %d before parent's %d", n, h.Time, parent.Time)
		}
	}
}

// Readers hammer the store while transfers flow: every snapshot they load
// has its pending block on top of its head, heads never go backwards, and
// pending balances never trail latest ones (run with -race).
func TestPendingNeverBehindLatestUnderConcurrentReaders(t *testing.T) {
	e := newEnv(t)
	e.start(Config{BlockTime: 100 * time.Millisecond, PreconfInterval: 20 * time.Millisecond})
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")

	var stop atomic.Bool
	var wg sync.WaitGroup
	var loads atomic.Int64
	for r := 0; r < 8; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lastSeq, lastHead uint64
			for !stop.Load() {
				s := e.store.Load()
				loads.Add(1)
				if s.Pending.Header.ParentHash != s.Head.Hash() || s.Pending.Header.Number.Uint64() != s.Head.NumberU64()+1 {
					t.Errorf("snapshot %d: pending block %d does not build on head %d", s.Seq, s.Pending.Header.Number, s.Head.NumberU64())
					return
				}
				if s.Seq < lastSeq || s.Head.NumberU64() < lastHead {
					t.Errorf("went backwards: seq %d after %d, head %d after %d", s.Seq, lastSeq, s.Head.NumberU64(), lastHead)
					return
				}
				lastSeq, lastHead = s.Seq, s.Head.NumberU64()
				pend, latest := balance(t, s.PendingReader(), to), balance(t, s.LatestReader(), to)
				if pend.Cmp(latest) < 0 {
					t.Errorf("snapshot %d: pending balance %v behind latest %v", s.Seq, pend, latest)
					return
				}
			}
		}()
	}
	const transfers = 40
	for i := 0; i < transfers; i++ {
		if err := e.pool.Add(e.transfer(1, uint64(i), to, 1)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.waitFor("all transfers sealed", 5*time.Second, func(s *pending.Snapshot) bool {
		return balance(t, s.LatestReader(), to).Cmp(big.NewInt(transfers)) == 0
	})
	stop.Store(true)
	wg.Wait()
	if loads.Load() == 0 {
		t.Fatal("readers never ran")
	}
}

// With --block-time 0 the chain stays where it is and pending equals latest.
func TestNoBlockProduction(t *testing.T) {
	e := newEnv(t)
	e.start(Config{})
	s := e.store.Load()
	time.Sleep(300 * time.Millisecond)
	if got := e.chain.Head().Number.Uint64(); got != 0 {
		t.Fatalf("head moved to %d with block production off", got)
	}
	if s.Pending.Header.Hash() != s.Head.Hash() {
		t.Fatalf("pending block %d is not the head", s.Pending.Header.Number)
	}
}

// Blocks the sequencer commits without re-executing them (chain.Commit) are
// the blocks a validating node accepts: a second chain from the same genesis
// imports them through InsertChain, executing and checking every one, and
// ends at the same head.
func TestCommittedBlocksValidate(t *testing.T) {
	e := newEnv(t)
	e.start(Config{BlockTime: 50 * time.Millisecond, PreconfInterval: 50 * time.Millisecond, PreconfMinGap: 5 * time.Millisecond})
	var last *types.Transaction
	for i := 0; i < 40; i++ {
		to := common.BigToAddress(big.NewInt(int64(0x1000 + i%7)))
		last = e.transfer(i%4, uint64(i/4), to, int64(1000+i))
		if err := e.pool.Add(last); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			time.Sleep(60 * time.Millisecond) // spread them over blocks
		}
	}
	bc := e.chain.BlockChain()
	e.waitFor("last transfer sealed", 5*time.Second, func(s *pending.Snapshot) bool {
		for n := s.Head.NumberU64(); n > 0; n-- {
			if hasTx(bc.GetBlockByNumber(n).Transactions(), last.Hash()) {
				return true
			}
		}
		return false
	})
	head := bc.CurrentBlock()
	if head.Number.Uint64() < 2 {
		t.Fatalf("head %d: want several blocks", head.Number)
	}
	replica := newEnv(t).chain
	for n := uint64(1); n <= head.Number.Uint64(); n++ {
		if err := replica.Append(bc.GetBlockByNumber(n)); err != nil {
			t.Fatalf("replica refuses block %d: %v", n, err)
		}
	}
	if got := replica.Head().Hash(); got != head.Hash() {
		t.Fatalf("replica head %s, want %s", got, head.Hash())
	}
	// The receipts stored with the committed blocks are the ones the
	// replica computed by executing them.
	txs := 0
	for n := uint64(1); n <= head.Number.Uint64(); n++ {
		hash := bc.GetCanonicalHash(n)
		got, want := bc.GetReceiptsByHash(hash), replica.BlockChain().GetReceiptsByHash(hash)
		if len(got) != len(want) {
			t.Fatalf("block %d: %d receipts stored, the replica has %d", n, len(got), len(want))
		}
		for i := range got {
			if got[i].TxHash != want[i].TxHash || got[i].Status != want[i].Status || got[i].CumulativeGasUsed != want[i].CumulativeGasUsed {
				t.Fatalf("block %d receipt %d: stored %+v, replica %+v", n, i, got[i], want[i])
			}
		}
		txs += len(got)
	}
	if txs != 40 {
		t.Fatalf("%d receipts in the chain, want the 40 transfers'", txs)
	}
}

// The sequencer tells its observers how long each seal and each
// pre-confirmation took.
func TestObserversHearSealsAndPreconfs(t *testing.T) {
	var seals, preconfs atomic.Int64
	e := newEnv(t)
	e.start(Config{BlockTime: 50 * time.Millisecond, PreconfInterval: 10 * time.Millisecond,
		ObserveSeal: func(d time.Duration) {
			if d >= 0 {
				seals.Add(1)
			}
		},
		ObservePreconf: func(d time.Duration) {
			if d >= 0 {
				preconfs.Add(1)
			}
		}})
	first := e.store.Load().Head.NumberU64()
	e.waitFor("two seals", 3*time.Second, func(s *pending.Snapshot) bool { return s.Head.NumberU64() >= first+2 })
	if s, p := seals.Load(), preconfs.Load(); s < 2 || p <= s {
		t.Fatalf("%d seals and %d pre-confirmations observed; want at least 2 seals and more pre-confirmations", s, p)
	}
}
