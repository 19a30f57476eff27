package latency

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestHistIndexBounds(t *testing.T) {
	// Every bucket's bounds map back to it, buckets tile the range without
	// gaps, and a bucket is at most 1/64 of its lower bound wide.
	prevHi := int64(-1)
	for i := range histBuckets {
		lo, hi := histBounds(i)
		if lo != prevHi+1 {
			t.Fatalf("bucket %d starts at %d, previous ended at %d", i, lo, prevHi)
		}
		prevHi = hi
		if histIndex(lo) != i || histIndex(hi) != i {
			t.Fatalf("bucket %d [%d, %d]: index(lo)=%d index(hi)=%d", i, lo, hi, histIndex(lo), histIndex(hi))
		}
		if lo >= histSub && float64(hi-lo+1)/float64(lo) > 1.0/64+1e-12 {
			t.Fatalf("bucket %d [%d, %d] is wider than 1/64", i, lo, hi)
		}
	}
	if histIndex(math.MaxInt64) != histBuckets-1 || histIndex(-5) != 0 {
		t.Fatal("out-of-range values must clamp")
	}
}

func TestHistQuantilesMatchExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	parts := []*Hist{New(), New(), New()}
	var all []time.Duration
	for i := range 200_000 {
		// log-normal-ish latencies from 20µs to seconds
		d := time.Duration(math.Exp(r.NormFloat64()*1.5+math.Log(500_000))) + 20*time.Microsecond
		parts[i%3].Record(d)
		all = append(all, d)
	}
	h := New()
	for _, p := range parts {
		h.Merge(p)
	}
	if h.N != uint64(len(all)) {
		t.Fatalf("merged count %d, want %d", h.N, len(all))
	}
	slices.Sort(all)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		exact := all[int(math.Ceil(q*float64(len(all))))-1]
		got := h.quantile(q)
		if rel := math.Abs(float64(got-exact)) / float64(exact); rel > 0.01 {
			t.Errorf("q%.3f: histogram %v, exact %v (%.2f%% off)", q, got, exact, rel*100)
		}
	}
	s := h.Summary()
	if s.Max != all[len(all)-1] || time.Duration(h.min) != all[0] {
		t.Errorf("max %v min %v, want %v %v", s.Max, time.Duration(h.min), all[len(all)-1], all[0])
	}
	if !(s.P50 <= s.P90 && s.P90 <= s.P99 && s.P99 <= s.P999 && s.P999 <= s.Max) {
		t.Errorf("quantiles not ordered: %v", s)
	}
}

func TestHistSmallAndEmpty(t *testing.T) {
	h := New()
	if h.Summary() != (Durations{}) || h.quantile(0.5) != 0 {
		t.Fatal("empty histogram must summarise to zero")
	}
	for _, v := range []time.Duration{10, 20, 30, 40, 100} {
		h.Record(v)
	}
	// values below 128 ns are exact
	if h.quantile(0.5) != 30 || h.quantile(0.99) != 100 || h.quantile(0) != 10 {
		t.Fatalf("p50 %v p99 %v p0 %v", h.quantile(0.5), h.quantile(0.99), h.quantile(0))
	}
	if h.Mean() != 40 {
		t.Fatalf("mean %v", h.Mean())
	}
}

func BenchmarkHistRecord(b *testing.B) {
	h := New()
	for i := range b.N {
		h.Record(time.Duration(i&0xfffff) * time.Microsecond)
	}
}
