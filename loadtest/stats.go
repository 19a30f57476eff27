package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// durations summarises a sample of durations.
type durations struct {
	Count int           `json:"count"`
	P50   time.Duration `json:"p50"`
	P90   time.Duration `json:"p90"`
	P99   time.Duration `json:"p99"`
	P999  time.Duration `json:"p999"`
	Max   time.Duration `json:"max"`
}

func summarize(sample []time.Duration) durations {
	if len(sample) == 0 {
		return durations{}
	}
	s := slices.Clone(sample)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return durations{Count: len(s), P50: at(0.50), P90: at(0.90), P99: at(0.99), P999: at(0.999), Max: s[len(s)-1]}
}

func (d durations) String() string {
	return fmt.Sprintf("n=%d p50=%v p90=%v p99=%v p99.9=%v max=%v", d.Count,
		d.P50.Round(time.Microsecond), d.P90.Round(time.Microsecond), d.P99.Round(time.Microsecond),
		d.P999.Round(time.Microsecond), d.Max.Round(time.Microsecond))
}

// rssBytes reads a process's resident set size from /proc.
func rssBytes(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			fields := strings.Fields(line)
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
