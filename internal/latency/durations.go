package latency

import (
	"fmt"
	"slices"
	"time"
)

// Durations summarises a sample of latencies. It is the shape of every
// latency in loadtest's JSON reports, which compare reads back.
type Durations struct {
	Count int           `json:"count"`
	P50   time.Duration `json:"p50"`
	P90   time.Duration `json:"p90"`
	P99   time.Duration `json:"p99"`
	P999  time.Duration `json:"p999"`
	Max   time.Duration `json:"max"`
}

// Summarize returns the quantiles of sample (which it does not modify).
func Summarize(sample []time.Duration) Durations {
	if len(sample) == 0 {
		return Durations{}
	}
	s := slices.Clone(sample)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return Durations{Count: len(s), P50: at(0.50), P90: at(0.90), P99: at(0.99), P999: at(0.999), Max: s[len(s)-1]}
}

func (d Durations) String() string {
	return fmt.Sprintf("n=%d p50=%v p90=%v p99=%v p99.9=%v max=%v", d.Count,
		d.P50.Round(time.Microsecond), d.P90.Round(time.Microsecond), d.P99.Round(time.Microsecond),
		d.P999.Round(time.Microsecond), d.Max.Round(time.Microsecond))
}
