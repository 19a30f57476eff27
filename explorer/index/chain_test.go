package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/vfs"
	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/chaintest"
)

func openIndex(t *testing.T, cfg Config, c *chain.Chain) *Index {
	t.Helper()
	x, err := Open(cfg, c, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// run runs x until the end of the test.
func run(t *testing.T, x *Index) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := x.Run(ctx); err != nil {
			t.Errorf("index: %v", err)
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// waitIndexed waits until x has indexed the chain's head.
func waitIndexed(t *testing.T, x *Index) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		indexed, head := x.Progress()
		if indexed == head && head > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("indexed %d of %d in 30 s", indexed, head)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkVariety fails a history too plain to test the index with.
func checkVariety(t *testing.T, m *model) {
	t.Helper()
	var failed, created, failedCreations, transfers, burns, selfTransfers int
	for a, txs := range m.txs {
		for _, tx := range txs {
			if tx.From != a {
				continue
			}
			if tx.Status == 0 {
				failed++
			}
			if tx.To == nil {
				created++
				if tx.Status == 0 {
					failedCreations++
				}
			}
		}
	}
	for a, trs := range m.transfers {
		for _, tr := range trs {
			if tr.From == a {
				transfers++
			}
			if tr.To == (common.Address{}) && tr.From == a {
				burns++
			}
			if tr.From == tr.To {
				selfTransfers++
			}
		}
	}
	if failed < 5 || created < 3 || failedCreations < 1 || transfers < 30 || burns < 1 || selfTransfers < 1 || len(m.holders) < 4 {
		t.Fatalf("history too plain: %d failed, %d creations (%d failed), %d transfers (%d burns, %d to self), %d tokens held",
			failed, created, failedCreations, transfers, burns, selfTransfers, len(m.holders))
	}
}

// TestIndexFollowsTheChain indexes a generated history as the sequencer
// seals it and compares every address's histories, counts, tokens and
// every token's holders with a scan of the chain.
func TestIndexFollowsTheChain(t *testing.T) {
	e := newEnv(t)
	x := openIndex(t, Config{InMemory: true}, e.Chain)
	e.Run(x)
	run(t, x)
	history(t, e, rand.New(rand.NewPCG(1, 2)), 8)
	e.Stop()
	waitIndexed(t, x)
	m := scanChain(t, e.Chain)
	checkVariety(t, m)
	checkModel(t, x, m)
}

// TestCatchUpImportedChain indexes a chain that an import brought in
// before the index opened: Run catches up from the genesis.
func TestCatchUpImportedChain(t *testing.T) {
	src := generate(t, 3, 6)
	file := filepath.Join(t.TempDir(), "chain.rlp")
	if _, err := src.Export(file); err != nil {
		t.Fatal(err)
	}
	c := chaintest.OpenChain(t, chaintest.Config{})
	if _, err := c.Import(context.Background(), file); err != nil {
		t.Fatal(err)
	}
	x := openIndex(t, Config{Dir: t.TempDir()}, c)
	if indexed, head := x.Progress(); indexed != 0 || head != src.Head().Number.Uint64() {
		t.Fatalf("progress before Run: %d of %d, want 0 of %d", indexed, head, src.Head().Number)
	}
	run(t, x)
	waitIndexed(t, x)
	m := scanChain(t, c)
	checkVariety(t, m)
	checkModel(t, x, m)
}

// dump lists every key and value of an index.
func dump(t *testing.T, x *Index) []string {
	t.Helper()
	it, err := x.db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for ok := it.First(); ok; ok = it.Next() {
		out = append(out, fmt.Sprintf("%x=%x", it.Key(), it.Value()))
	}
	return out
}

func mustCatchUp(t *testing.T, x *Index) {
	t.Helper()
	if err := x.catchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestResume stops an index halfway and reopens it: the finished index
// equals one built in one go, and indexing blocks again changes nothing.
func TestResume(t *testing.T) {
	c := generate(t, 5, 6)
	head := c.Head().Number.Uint64()
	fresh := openIndex(t, Config{InMemory: true}, c)
	mustCatchUp(t, fresh)
	want := dump(t, fresh)

	dir := t.TempDir()
	x := openIndex(t, Config{Dir: dir}, c)
	if err := x.indexRange(0, head/2); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x = openIndex(t, Config{Dir: dir}, c)
	if indexed, _ := x.Progress(); indexed != head/2 {
		t.Fatalf("reopened at %d, want %d", indexed, head/2)
	}
	mustCatchUp(t, x)
	if got := dump(t, x); !slices.Equal(got, want) {
		t.Fatalf("resumed index differs from a fresh one: %d entries, want %d", len(got), len(want))
	}

	// Blocks indexed already, one and then all of them, again.
	if err := x.apply(c.BlockChain().GetBlockByNumber(head/2), c.BlockChain().GetReceiptsByHash(c.BlockChain().GetCanonicalHash(head/2))); err != nil {
		t.Fatal(err)
	}
	if err := x.indexRange(0, head); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, x); !slices.Equal(got, want) {
		t.Fatal("indexing blocks again changed the index")
	}
}

// TestPowerLoss loses what pebble had not synced, as a machine crash
// does: the index reopens at a whole block, the one it last synced or a
// later one, and then finishes equal to a fresh index.
func TestPowerLoss(t *testing.T) {
	c := generate(t, 7, 6)
	head := c.Head().Number.Uint64()
	fresh := openIndex(t, Config{InMemory: true}, c)
	mustCatchUp(t, fresh)
	want := dump(t, fresh)

	fs := vfs.NewStrictMem()
	x, err := open(Config{}, fs, c.BlockChain(), quietLog())
	if err != nil {
		t.Fatal(err)
	}
	if err := x.indexRange(0, head/3); err != nil {
		t.Fatal(err)
	}
	if err := x.db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := x.indexRange(head/3+1, 2*head/3); err != nil {
		t.Fatal(err)
	}
	fs.SetIgnoreSyncs(true)
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	fs.ResetToSyncedState()
	fs.SetIgnoreSyncs(false)

	x, err = open(Config{}, fs, c.BlockChain(), quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	indexed, _ := x.Progress()
	if indexed < head/3 || indexed > 2*head/3 {
		t.Fatalf("reopened at block %d, want between %d and %d", indexed, head/3, 2*head/3)
	}
	// What survived is exactly an index of the blocks up to the marker.
	partial := openIndex(t, Config{InMemory: true}, c)
	if err := partial.indexRange(0, indexed); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dump(t, x), dump(t, partial)) {
		t.Fatalf("the index after the crash is not the index of blocks 0..%d", indexed)
	}
	mustCatchUp(t, x)
	if !slices.Equal(dump(t, x), want) {
		t.Fatal("the index finished after the crash differs from a fresh one")
	}
}

// TestOtherChainRebuilds opens an index built from one chain with
// another: it empties itself and indexes the other.
func TestOtherChainRebuilds(t *testing.T) {
	a, b := generate(t, 9, 3), generate(t, 10, 3)
	if a.BlockChain().GetCanonicalHash(1) == b.BlockChain().GetCanonicalHash(1) {
		t.Fatal("the two chains share block 1")
	}
	dir := t.TempDir()
	x := openIndex(t, Config{Dir: dir}, a)
	mustCatchUp(t, x)
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x = openIndex(t, Config{Dir: dir}, b)
	if indexed, _ := x.Progress(); indexed != 0 {
		t.Fatalf("index of another chain kept: at block %d", indexed)
	}
	mustCatchUp(t, x)
	checkModel(t, x, scanChain(t, b))
}

// TestDivergedBlockRejected offers the index a block of another chain,
// and one after a gap: both are refused and change nothing.
func TestDivergedBlockRejected(t *testing.T) {
	a, b := generate(t, 11, 2), generate(t, 12, 2)
	// The gap below needs a's block 6 and the other chain b's block 4;
	// how many blocks a history takes depends on the sequencer's timing.
	for rounds := 3; a.BlockChain().GetBlockByNumber(6) == nil; rounds++ {
		a = generate(t, 11, rounds)
	}
	for rounds := 3; b.BlockChain().GetBlockByNumber(4) == nil; rounds++ {
		b = generate(t, 12, rounds)
	}
	x := openIndex(t, Config{InMemory: true}, a)
	if err := x.indexRange(0, 3); err != nil {
		t.Fatal(err)
	}
	before := dump(t, x)
	other := b.BlockChain().GetBlockByNumber(4)
	err := x.apply(other, b.BlockChain().GetReceiptsByHash(other.Hash()))
	if err == nil || !errors.Is(err, errDiverged) {
		t.Fatalf("a block of another chain: %v, want %v", err, errDiverged)
	}
	if !slices.Equal(dump(t, x), before) {
		t.Fatal("a rejected block changed the index")
	}
	gap := a.BlockChain().GetBlockByNumber(6)
	if err := x.apply(gap, a.BlockChain().GetReceiptsByHash(gap.Hash())); err == nil {
		t.Fatal("a block after a gap was indexed")
	}
}
