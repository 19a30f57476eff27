// Package latency is the load tools' latency histogram (fixed log-linear
// buckets, lock-free per worker, merged once) and how their tables print a
// latency.
package latency

import (
	"math"
	"math/bits"
	"time"
)

// Hist is a fixed-bucket log-linear latency histogram (HDR-like): values below
// 2^histSubBits nanoseconds have a bucket each, above that every power of two
// is split into 2^(histSubBits-1) equal buckets, so a bucket is never wider
// than 1/64 of its lower bound (1.6 % relative error). Recording is an index
// computation and an increment: each worker owns one and they are merged once,
// at the end, so the hot path takes no lock.
type Hist struct {
	counts   []uint64
	N        uint64
	min, max int64
	sum      float64
}

const (
	histSubBits = 7 // 128 sub-buckets in the first range, 64 per power of two after
	histSub     = 1 << histSubBits
	histHalf    = histSub / 2
	histMaxExp  = 40 // values up to 2^(40+7) ns (39 hours) are bucketed; larger ones clamp
	histBuckets = histSub + histMaxExp*histHalf
)

// New returns an empty histogram.
func New() *Hist { return &Hist{counts: make([]uint64, histBuckets), min: math.MaxInt64} }

// histIndex maps a value in nanoseconds to its bucket.
func histIndex(v int64) int {
	if v < histSub {
		if v < 0 {
			return 0
		}
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - histSubBits // >= 1: v>>shift is in [64, 128)
	if shift > histMaxExp {
		return histBuckets - 1
	}
	return histSub + (shift-1)*histHalf + int(uint64(v)>>shift) - histHalf
}

// histBounds returns the smallest and largest value of bucket i.
func histBounds(i int) (lo, hi int64) {
	if i < histSub {
		return int64(i), int64(i)
	}
	shift := (i-histSub)/histHalf + 1
	m := int64((i-histSub)%histHalf + histHalf)
	return m << shift, (m+1)<<shift - 1
}

// Record counts d.
func (h *Hist) Record(d time.Duration) {
	v := int64(d)
	h.counts[histIndex(v)]++
	h.N++
	h.sum += float64(v)
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
}

// Merge adds o's counts into h.
func (h *Hist) Merge(o *Hist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.N += o.N
	h.sum += o.sum
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
}

// quantile returns the value at quantile q (0..1): the midpoint of the bucket
// that holds the ceil(q*n)-th smallest value, clamped to the exact min and max.
func (h *Hist) quantile(q float64) time.Duration {
	if h.N == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.N)))
	rank = max(1, min(rank, h.N))
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := histBounds(i)
			v := lo + (hi-lo)/2
			return time.Duration(max(h.min, min(v, h.max)))
		}
	}
	return time.Duration(h.max)
}

// Mean is the mean of the recorded durations (0 with none).
func (h *Hist) Mean() time.Duration {
	if h.N == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.N))
}

// Summary is the histogram in the shape of the other modes' reports.
func (h *Hist) Summary() Durations {
	if h.N == 0 {
		return Durations{}
	}
	return Durations{Count: int(h.N), P50: h.quantile(0.50), P90: h.quantile(0.90), P99: h.quantile(0.99),
		P999: h.quantile(0.999), Max: time.Duration(h.max)}
}
