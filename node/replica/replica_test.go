package replica

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/chaintest"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/seqlog"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

// openChain opens an in-memory preview chain: every chain of a test has
// the same genesis.
func openChain(t *testing.T) *chain.Chain { return chaintest.OpenChain(t, chaintest.Config{}) }

// follower runs a Follower of l on c until the test ends; Run must then
// return nil.
func follow(t *testing.T, l *seqlog.Log, c *chain.Chain) (*Follower, *pending.Store) {
	t.Helper()
	store := new(pending.Store)
	replay := sequencer.NewReplayer(c, store, chaintest.Quiet())
	if err := replay.PublishHead(); err != nil {
		t.Fatal(err)
	}
	f := New(l, replay, c, chaintest.Quiet())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("follower: %v", err)
		}
	})
	return f, store
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// samePending reports whether two snapshots serve the same head and
// pending block.
func samePending(a, b *pending.Snapshot) bool {
	if a == nil || b == nil || a.Head.Hash() != b.Head.Hash() || a.Pending.Index != b.Pending.Index ||
		a.Pending.Header.Hash() != b.Pending.Header.Hash() || len(a.Pending.Transactions) != len(b.Pending.Transactions) {
		return false
	}
	return slices.EqualFunc(a.Pending.Transactions, b.Pending.Transactions, func(x, y *types.Transaction) bool { return x.Hash() == y.Hash() })
}

// TestFollowerReplaysSequencer: replicas following a real sequencer's log
// (one from genesis while the sequencer runs, one started afterwards from
// a copy of the sequencer's chain a block behind) end where the sequencer
// stopped: same head, same pending block, nothing left to apply.
func TestFollowerReplaysSequencer(t *testing.T) {
	l := openLog(t)
	seqChain := openChain(t)
	pool, err := txpool.New(seqChain, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	seqStore := new(pending.Store)
	seq, err := sequencer.New(sequencer.Config{BlockTime: 40 * time.Millisecond, PreconfInterval: 8 * time.Millisecond, GasCeil: chain.PreviewGasLimit},
		seqChain, pool, seqStore, chaintest.Quiet())
	if err != nil {
		t.Fatal(err)
	}
	seq.SetJournal(seqlog.NewJournal(l))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- seq.Run(ctx) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("sequencer: %v", err)
			}
		}
	}
	defer stop()

	early, earlyStore := follow(t, l, openChain(t))

	keys, err := chain.DevKeys(2)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSigner(seqChain.Config())
	to := common.HexToAddress("0x00000000000000000000000000000000000000b0")
	for i := range uint64(8) {
		tx, err := types.SignNewTx(keys[i%2], signer, &types.DynamicFeeTx{
			ChainID: seqChain.Config().ChainID, Nonce: i / 2, GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(10 * params.GWei),
			Gas: params.TxGas, To: &to, Value: big.NewInt(int64(i) + 1),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := pool.Add(tx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(15 * time.Millisecond) // spread over ticks and blocks
	}
	waitUntil(t, "the transfers sealed, and one more block", func() bool {
		snap := seqStore.Load()
		if snap == nil {
			return false
		}
		st, err := snap.LatestState()
		return err == nil && st.GetBalance(to).Uint64() == 36 && snap.Head.NumberU64() >= 3
	})
	stop()
	final := seqStore.Load()
	head := final.Head.NumberU64()

	// A copy of the sequencer's chain one block behind its head.
	late := openChain(t)
	for n := uint64(1); n < head; n++ {
		if err := late.Append(seqChain.BlockChain().GetBlockByNumber(n)); err != nil {
			t.Fatal(err)
		}
	}
	lateFollower, lateStore := follow(t, l, late)

	info, err := l.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]struct {
		f     *Follower
		store *pending.Store
	}{"from genesis": {early, earlyStore}, "from a copy": {lateFollower, lateStore}} {
		waitUntil(t, "the replica "+name+" to apply the whole log", func() bool {
			_, _, applied := r.f.Lag()
			return applied == info.LastSeq
		})
		if got := r.store.Load(); !samePending(got, final) {
			t.Errorf("replica %s: head %d %s, pending %d.%d with %d transactions; the sequencer's head %d %s, pending %d.%d with %d",
				name, got.Head.NumberU64(), got.Head.Hash(), got.Pending.Header.Number, got.Pending.Index, len(got.Pending.Transactions),
				head, final.Head.Hash(), final.Pending.Header.Number, final.Pending.Index, len(final.Pending.Transactions))
		}
		if entries, _, _ := r.f.Lag(); entries != 0 {
			t.Errorf("replica %s: %d entries behind after applying the last", name, entries)
		}
	}
}

// TestFollowerStopsOnGap: a replica the log cannot bring forward says so
// instead of following from a later block.
func TestFollowerStopsOnGap(t *testing.T) {
	l := openLog(t, concat(block(5, 1), []seqlog.Entry{sealed(5)})...)
	c := openChain(t)
	f := New(l, sequencer.NewReplayer(c, new(pending.Store), chaintest.Quiet()), c, chaintest.Quiet())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.Run(ctx); !errors.Is(err, ErrGap) {
		t.Fatalf("Run: %v, want ErrGap", err)
	}
}

// A replica stopped before it has found its place in the log stops
// cleanly: the stop is not an error of the log.
func TestFollowerStoppedWhileStarting(t *testing.T) {
	l := openLog(t)
	c := openChain(t)
	store := new(pending.Store)
	replay := sequencer.NewReplayer(c, store, chaintest.Quiet())
	if err := replay.PublishHead(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := New(l, replay, c, chaintest.Quiet()).Run(ctx); err != nil {
		t.Fatalf("Run after its context ended = %v, want nil", err)
	}
}
