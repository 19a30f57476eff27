package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/loadtest/httpload"
)

// The paced table shows each server's achieved rate and latency at the one
// offered load, and stocknode's p99 over anvil's.
func TestPrintPaced(t *testing.T) {
	paced := func(p99 time.Duration) []readResult {
		var out []readResult
		for _, w := range pacedWorkloads {
			out = append(out, readResult{Method: w.method, Tag: w.tag, Rate: 10_000, RPS: 9_990, P50: p99 / 4, P99: p99})
		}
		return out
	}
	res := &results{Connections: 64, Servers: []serverResult{
		{Name: "stocknode", Paced: paced(2 * time.Millisecond)},
		{Name: "anvil", Paced: paced(4 * time.Millisecond)},
	}}
	var b bytes.Buffer
	printPaced(&b, config{pacedRate: 10_000}, res, []string{"stocknode", "anvil"})
	out := b.String()
	for _, want := range []string{"10.0k requests/s over 64 connections", "call pending", "2.00ms", "4.00ms", "0.50"} {
		if !strings.Contains(out, want) {
			t.Errorf("paced table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	printPaced(&b, config{}, res, []string{"stocknode", "anvil"})
	if b.Len() != 0 {
		t.Fatalf("paced table printed with -paced-rate 0:\n%s", b.String())
	}
}

func TestKilo(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{999, "999"}, {1000, "1.00k"}, {9_990, "9.99k"}, {9_996, "10.0k"}, {10_000, "10.0k"}, {51_234, "51.2k"}} {
		if got := kilo(tt.v); got != tt.want {
			t.Errorf("kilo(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// The flood table has each server's flood and, under it, the same flood at
// the one offered rate; a skipped flood says why.
func TestPrintFlood(t *testing.T) {
	flood := func(accepted float64, p99 time.Duration) *floodResult {
		return &floodResult{Senders: 64, AcceptedPerSec: accepted, IncludedPerSec: accepted - 100, TimeToPending: workloadP99(p99),
			RejectedBy: map[string]int{}}
	}
	res := &results{BlockTime: "200ms", Rounds: 2, Servers: []serverResult{
		{Name: "stocknode", Flood: flood(7_250, 208*time.Millisecond), FloodPaced: flood(4_950, 91*time.Millisecond)},
		{Name: "geth", Flood: &floodResult{Skipped: "geth seals no blocks"}},
		{Name: "anvil", Flood: flood(5_630, 93*time.Millisecond), FloodPaced: flood(4_960, 95*time.Millisecond)},
	}}
	var b bytes.Buffer
	printFlood(&b, config{floodDuration: 6 * time.Second, floodPacedRate: 5_000, blockTime: 200 * time.Millisecond, floodSenders: []int{64, 128}}, res)
	out := b.String()
	for _, want := range []string{"best of 2 rounds and of 64,128 senders by accepted/s", "stocknode/anvil: 1.29x (goal at least 1.30x); stocknode's time to pending p99 208ms", "stocknode  ", "7.25k", "208ms", "stocknode at 5.00k/s", "4.95k", "46ms / 91ms", "skipped: geth seals no blocks", "anvil at 5.00k/s", "below the chain's capacity of 14.3k/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("flood table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "geth at") {
		t.Errorf("a paced row for a server with none:\n%s", out)
	}
}

func workloadP99(p99 time.Duration) latency.Durations {
	return latency.Durations{Count: 1, P50: p99 / 2, P99: p99}
}

// -baseline puts stocknode-base right after stocknode, once.
func TestWithBaseline(t *testing.T) {
	for _, c := range []struct{ servers, baseline, want string }{
		{"stocknode,geth,anvil", "", "stocknode,geth,anvil"},
		{"stocknode,geth,anvil", "old", "stocknode,stocknode-base,geth,anvil"},
		{"anvil,stocknode", "old", "anvil,stocknode,stocknode-base"},
		{"anvil", "old", "stocknode-base,anvil"},
		{"stocknode-base,stocknode", "old", "stocknode-base,stocknode"},
	} {
		if got := withBaseline(c.servers, c.baseline); got != c.want {
			t.Errorf("withBaseline(%q, %q) = %q, want %q", c.servers, c.baseline, got, c.want)
		}
	}
}

// With a baseline the read table has a column of stocknode over
// stocknode-base, and the paced table a p99 ratio.
func TestPrintTablesBaseline(t *testing.T) {
	read := func(rps float64, p99 time.Duration) []readResult {
		var out []readResult
		for _, w := range workloads {
			out = append(out, readResult{Method: w.method, Tag: w.tag, RPS: rps, P99: p99})
		}
		return out
	}
	res := &results{Connections: 64, Rounds: 1, Servers: []serverResult{
		{Name: "stocknode", Reads: read(30_000, 2*time.Millisecond), Paced: read(10_000, 2*time.Millisecond)},
		{Name: baseName, Reads: read(20_000, 3*time.Millisecond), Paced: read(10_000, 4*time.Millisecond)},
	}}
	var b bytes.Buffer
	printTables(&b, config{pacedRate: 10_000}, res)
	out := b.String()
	for _, want := range []string{"stocknode vs stocknode-base", "sn/base", "1.50x", "p99 sn/base", "0.50"} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
}

// The CPU table divides each server's cores by its requests/s, and says how
// many times stocknode's CPU per request each anchor spends.
func TestPrintCPUPerRequest(t *testing.T) {
	read := func(rps, cores float64) []readResult {
		return []readResult{{Method: "getBalance", Tag: "latest", RPS: rps, CPU: cpuUse{Server: cores, ServerKernel: cores / 2}}}
	}
	res := &results{Servers: []serverResult{
		{Name: "stocknode", Reads: read(80_000, 0.96)}, // 12 µs
		{Name: "geth", Reads: read(16_000, 1.44)},      // 90 µs
		{Name: "anvil", Reads: read(60_000, 1.2)},      // 20 µs
	}}
	var b bytes.Buffer
	printCPUPerRequest(&b, config{}, res, []string{"stocknode", "geth", "anvil"})
	out := b.String()
	for _, want := range []string{"getBalance latest", "12 µs (6 µs)", "90 µs (45 µs)", "20 µs (10 µs)", "1.67x", "7.50x"} {
		if !strings.Contains(out, want) {
			t.Errorf("CPU table lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "call latest") && !strings.Contains(line, " -") {
			t.Errorf("a workload without measurements shows no dash: %q", line)
		}
	}
}

// The default sender counts parse.
func TestDefaultFloodSenders(t *testing.T) {
	if got, err := httpload.ParseCounts(defaultFloodSenders); err != nil || len(got) == 0 {
		t.Errorf("the default %q: %v, %v", defaultFloodSenders, got, err)
	}
}
