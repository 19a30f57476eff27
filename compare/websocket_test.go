package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stocknode/stocknode/internal/latency"
)

func TestWSURL(t *testing.T) {
	for _, tt := range []struct{ name, url, want string }{
		{"stocknode", "http://127.0.0.1:8545", "ws://127.0.0.1:8545/ws"},
		{baseName, "http://127.0.0.1:8546", "ws://127.0.0.1:8546/ws"},
		{"anvil", "http://127.0.0.1:8547", "ws://127.0.0.1:8547"},
	} {
		if got := wsURL(tt.name, tt.url); got != tt.want {
			t.Errorf("wsURL(%s, %s) = %s, want %s", tt.name, tt.url, got, tt.want)
		}
	}
}

func TestWSCounts(t *testing.T) {
	cfg := config{wsDuration: time.Minute, wsSubscribers: 5000, wsScale: 15000}
	for _, tt := range []struct {
		name string
		cfg  config
		want []int
	}{
		{"stocknode", cfg, []int{5000, 15000}},
		{baseName, cfg, []int{5000, 15000}},
		{"anvil", cfg, []int{5000}},
		{"geth", cfg, nil},
		{"stocknode", config{wsDuration: time.Minute, wsSubscribers: 5000}, []int{5000}},
		{"stocknode", config{wsSubscribers: 5000, wsScale: 15000}, nil},
	} {
		got := wsCounts(tt.cfg, tt.name)
		if !slices.Equal(got, tt.want) {
			t.Errorf("wsCounts(%+v, %s) = %v, want %v", tt.cfg, tt.name, got, tt.want)
		}
	}
}

// The WebSocket table has every round's fan-outs and the two goals'
// verdicts: stocknode's p99 over anvil's at the shared count, each server's
// best round, and stocknode alone at the larger one, its best p99 but the
// heads missed in every round.
func TestPrintWebSocket(t *testing.T) {
	fanout := func(round, n int, p99 time.Duration, undelivered int) wsResult {
		return wsResult{Round: round, Subscribers: n, Connected: n, Heads: 290, Undelivered: undelivered,
			Spread: latency.Durations{P50: p99 / 2, P99: p99, Max: p99 + time.Millisecond}, BytesPerSubscriber: 18 << 10}
	}
	res := &results{BlockTime: "200ms", Servers: []serverResult{
		{Name: "stocknode", WebSocket: []wsResult{
			fanout(1, 5000, 90*time.Millisecond, 0), fanout(1, 15000, 180*time.Millisecond, 1),
			fanout(2, 5000, 60*time.Millisecond, 0), fanout(2, 15000, 250*time.Millisecond, 2),
			{Round: 3, Subscribers: 5000, Spread: latency.Durations{P99: time.Millisecond}, Error: "connected 12 of 5000"},
		}},
		{Name: "geth"},
		{Name: "anvil", WebSocket: []wsResult{
			fanout(1, 5000, 150*time.Millisecond, 0), fanout(2, 5000, 160*time.Millisecond, 0),
			{Round: 1, Subscribers: 15000, Error: "dial: too many open files"},
		}},
	}}
	var b bytes.Buffer
	printWebSocket(&b, config{wsDuration: time.Minute, wsSubscribers: 5000, wsScale: 15000}, res)
	out := b.String()
	for _, want := range []string{
		"best round of each, stocknode/anvil: 0.40 (60ms / 150ms; goal at most 0.50)",
		"p99 spread 180ms (best round), 3 of 580 heads over all rounds not delivered",
		"error: dial: too many open files", "error: connected 12 of 5000", "18.0 KiB",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("WebSocket table lacks %q:\n%s", want, out)
		}
	}
}
