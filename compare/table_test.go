package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
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
