package chain

import (
	"testing"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
)

// BenchmarkGCMode measures what each gc mode costs per block as the chain
// inserts it and syncs the database (as Append and Commit do): the time, the
// bytes the database grows by (after a compaction), and in full mode how
// far the persisted state trails the head at the end. 400 blocks, so that
// full mode writes states past its 128 in-memory ones; "64MB-buffer" is the
// path database's write buffer stocknode does not use, for comparison.
//
//	go test -run '^$' -bench GCMode -benchtime 2x ./node/chain/
func BenchmarkGCMode(b *testing.B) {
	variants := []struct {
		name     string
		mode     GCMode
		bufferMB int
	}{
		{"archive", GCArchive, 0},
		{"full", GCFull, 0},
		{"full+64MB-buffer", GCFull, 64},
	}
	for _, txs := range []int{0, 100} {
		genesis, blocks := benchChain(b, 400, txs)
		for _, v := range variants {
			b.Run(v.name+"/txs="+itoa(txs), func(b *testing.B) {
				var perBlock, growth float64
				var lag int
				for b.Loop() {
					perBlock, growth, lag = insertBench(b, genesis, blocks, v.mode, v.bufferMB)
				}
				b.ReportMetric(perBlock, "ns/block")
				b.ReportMetric(growth, "disk-B/block")
				b.ReportMetric(float64(lag), "unpersisted-blocks")
			})
		}
	}
}

func insertBench(b *testing.B, genesis *core.Genesis, blocks []*types.Block, mode GCMode, bufferMB int) (perBlock, growth float64, lag int) {
	dir, db := openBenchDB(b)
	defer db.Close()
	cfg := blockChainConfig(Config{DataDir: dir, StateHistory: DefaultStateHistory}, mode)
	if mode == GCFull {
		cfg.TrieDirtyLimit = bufferMB
	}
	bc, err := core.NewBlockChain(db, genesis, NewEngine(nil), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer bc.Stop()
	before := dirSize(b, dir)
	start := b.Elapsed()
	for _, block := range blocks {
		if _, err := bc.InsertChain(types.Blocks{block}); err != nil {
			b.Fatal(err)
		}
		if mode == GCArchive {
			if err := bc.TrieDB().Commit(block.Root(), false); err != nil {
				b.Fatal(err)
			}
		}
		if err := db.SyncKeyValue(); err != nil {
			b.Fatal(err)
		}
	}
	perBlock = float64(b.Elapsed()-start) / float64(len(blocks))
	if mode == GCFull {
		headers, err := unpersisted(db)
		if err != nil {
			b.Fatal(err)
		}
		lag = len(headers)
	}
	db.Compact(nil, nil)
	growth = float64(dirSize(b, dir)-before) / float64(len(blocks))
	return perBlock, growth, lag
}
