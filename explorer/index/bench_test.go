package index

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// busyTxs is the size of the busy address's history in the benchmarks.
const busyTxs = 100_000

// busyChain is a synthetic chain in which one address receives busyTxs
// transactions, 100 a block, from 1,000 senders, each with a transfer of
// one of two tokens to it (a tenth of them of the first).
func busyChain(b *testing.B) (s *synth, busy, rare common.Address) {
	b.Helper()
	s = newSynth(b, 1000)
	busy, rare, usual := common.Address{0xb0, 0x57}, common.Address{0x70}, common.Address{0x71}
	rng := rand.New(rand.NewPCG(1, 1))
	for range busyTxs / 100 {
		specs := make([]spec, 100)
		for i := range specs {
			from, token := rng.IntN(len(s.keys)), usual
			if rng.IntN(10) == 0 {
				token = rare
			}
			specs[i] = spec{from: from, to: &busy, logs: []*types.Log{transferLog(token, s.addr(from), busy, int64(1+rng.IntN(1e6)))}}
		}
		s.add(specs...)
	}
	return s, busy, rare
}

// BenchmarkHistoryPage pages through the history of an address with
// 100,000 transactions and as many token transfers, in an index on disk
// (compacted, then reopened with a cold block cache): the explorer's
// pages of 25, newest first, cursor after cursor; and Etherscan's pages
// of offset 100, pages 1 to 100 in turn (the deepest skips 9,900
// entries), newest and oldest first, and filtered by a token. Each
// iteration is one page; p50 and p99 are of the page latencies.
func BenchmarkHistoryPage(b *testing.B) {
	s, busy, rare := busyChain(b)
	dir := b.TempDir()
	x := s.index(nil, dir)
	if err := x.db.Compact([]byte{0}, []byte{0xff}, true); err != nil {
		b.Fatal(err)
	}
	if err := x.Close(); err != nil {
		b.Fatal(err)
	}
	x = s.index(nil, dir)
	b.Logf("index of %d transactions and as many transfers: %.1f MB on disk", busyTxs, float64(x.db.Metrics().DiskSpaceUsage())/1e6)
	if c, err := x.Counts(busy); err != nil || c.Txs != busyTxs || c.Transfers != busyTxs {
		b.Fatalf("busy address: %+v, %v", c, err)
	}

	b.Run("explorer/transactions/25", func(b *testing.B) {
		var cursor Cursor
		pages(b, func() int {
			txs, next, err := x.Transactions(busy, cursor, 25)
			if err != nil {
				b.Fatal(err)
			}
			cursor = next
			return len(txs)
		})
	})
	b.Run("explorer/transfers/25", func(b *testing.B) {
		var cursor Cursor
		pages(b, func() int {
			trs, next, err := x.Transfers(busy, cursor, 25)
			if err != nil {
				b.Fatal(err)
			}
			cursor = next
			return len(trs)
		})
	})
	for _, asc := range []bool{false, true} {
		name := "etherscan/txlist/offset100/desc"
		if asc {
			name = "etherscan/txlist/offset100/asc"
		}
		b.Run(name, func(b *testing.B) {
			page := 0
			pages(b, func() int {
				page = page%100 + 1
				txs, err := x.QueryTransactions(busy, Query{ToBlock: math.MaxUint64, Ascending: asc, Skip: (page - 1) * 100, Limit: 100})
				if err != nil {
					b.Fatal(err)
				}
				return len(txs)
			})
		})
	}
	b.Run("etherscan/tokentx/contractaddress/offset100/desc", func(b *testing.B) {
		page := 0
		pages(b, func() int {
			page = page%int(busyTxs/10/100) + 1
			trs, err := x.QueryTransfers(busy, &rare, Query{ToBlock: math.MaxUint64, Skip: (page - 1) * 100, Limit: 100})
			if err != nil {
				b.Fatal(err)
			}
			return len(trs)
		})
	})
	b.Run("etherscan/txlist/offset10000", func(b *testing.B) {
		pages(b, func() int {
			txs, err := x.QueryTransactions(busy, Query{ToBlock: math.MaxUint64, Limit: MaxWindow})
			if err != nil {
				b.Fatal(err)
			}
			return len(txs)
		})
	})
}

// pages times page, which returns the number of entries it read, once
// per iteration, and reports the latencies' p50 and p99.
func pages(b *testing.B, page func() int) {
	b.ReportAllocs()
	var took []time.Duration
	entries := 0
	for b.Loop() {
		start := time.Now()
		entries += page()
		took = append(took, time.Since(start))
	}
	if entries == 0 {
		b.Fatal("no entries read")
	}
	slices.Sort(took)
	at := func(q float64) float64 {
		return float64(took[min(len(took)-1, int(q*float64(len(took))))].Nanoseconds()) / 1e6
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(float64(entries)/float64(len(took)), "entries/page")
}

// BenchmarkIndexBlock indexes blocks of 1,000 transfers, each with a
// token transfer: the write side under a transaction flood (6,500
// transactions a second are 1,300 a 200 ms block).
func BenchmarkIndexBlock(b *testing.B) {
	s := newSynth(b, 1000)
	x := s.index(nil, b.TempDir())
	rng := rand.New(rand.NewPCG(2, 2))
	token := common.Address{0x70}
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		specs := make([]spec, 1000)
		for i := range specs {
			from := rng.IntN(len(s.keys))
			to := s.addr(rng.IntN(len(s.keys)))
			specs[i] = spec{from: from, to: &to, logs: []*types.Log{transferLog(token, s.addr(from), to, 1)}}
		}
		s.add(specs...)
		b.StartTimer()
		if err := x.catchUp(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "txs/s")
}
