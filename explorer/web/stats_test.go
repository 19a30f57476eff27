package web

import (
	"testing"
	"time"
)

func TestComputeStats(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	blocks := func(gaps []time.Duration, txs []int) []*blockSummary {
		var out []*blockSummary
		when := at
		for i, gap := range gaps {
			when = when.Add(-gap)
			out = append(out, &blockSummary{Number: uint64(100 - i), Sealed: when, Txs: txs[i], GasUsed: uint64(txs[i]) * 21000})
		}
		return out
	}
	ms := time.Millisecond
	tests := []struct {
		name      string
		blocks    []*blockSummary
		n         int
		blockTime time.Duration
		tps       float64
	}{
		{"none", nil, 0, 0, 0},
		{"one block", blocks([]time.Duration{0}, []int{5}), 1, 0, 0},
		// The oldest block's transactions sealed before the span began.
		{"steady", blocks([]time.Duration{0, 200 * ms, 200 * ms, 200 * ms, 200 * ms}, []int{2, 2, 2, 2, 100}), 5, 200 * ms, 10},
		{"older than a minute left out", blocks([]time.Duration{0, time.Second, 2 * time.Minute}, []int{3, 1, 50}), 2, time.Second, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := computeStats(tt.blocks)
			if st.Blocks != tt.n || st.BlockTime != tt.blockTime || st.TPS != tt.tps {
				t.Fatalf("stats %+v, want %d blocks, block time %v, %v tx/s", st, tt.n, tt.blockTime, tt.tps)
			}
			if st.GasPerSec != st.TPS*21000 {
				t.Errorf("gas/s %v, want %v", st.GasPerSec, st.TPS*21000)
			}
		})
	}
}

func TestRingKeepsTheNewest(t *testing.T) {
	var r ring
	for n := range uint64(ringSize + 10) {
		r.add(&blockSummary{Number: n})
	}
	got := r.load()
	if len(got) != ringSize || got[0].Number != ringSize+9 || got[len(got)-1].Number != 10 {
		t.Fatalf("ring of %d from %d to %d", len(got), got[0].Number, got[len(got)-1].Number)
	}
}
