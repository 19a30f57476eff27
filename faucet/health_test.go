package faucet

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stocknode/stocknode/node/pending"
)

// TestChainHealthJudges: the reason follows block production and the age
// of the head (the preview genesis is from 2026-01-01, long stale).
func TestChainHealthJudges(t *testing.T) {
	e := newEnv(t) // not producing
	start := time.Now()
	tests := []struct {
		name       string
		staleAfter time.Duration
		at         time.Duration // after start
		healthy    bool
		reason     string
		detail     string
	}{
		{"production off", 0, time.Minute, true, ReasonProductionOff, "--block-time 0"},
		{"just started on an old head", 5 * time.Second, time.Second, false, ReasonStarting, "has not sealed its first block"},
		{"no block within the limit of the start", 5 * time.Second, 6 * time.Second, false, ReasonHalted, "not producing blocks"},
		{"longer limit", time.Minute, 30 * time.Second, false, ReasonStarting, "has not sealed"},
	}
	for _, tt := range tests {
		h := newChainHealth(e.Store, tt.staleAfter, start)
		r := h.report(start.Add(tt.at))
		if r.Healthy != tt.healthy || r.Reason != tt.reason || !strings.Contains(r.Detail, tt.detail) || r.Head != 0 {
			t.Errorf("%s: %+v, want healthy %t reason %s", tt.name, r, tt.healthy, tt.reason)
		}
		if r.StuckSecs != tt.at.Seconds() || r.HeadAgeSecs < time.Since(time.Unix(1767225600, 0)).Seconds() {
			t.Errorf("%s: stuck %vs head age %vs, want %vs and the genesis's age", tt.name, r.StuckSecs, r.HeadAgeSecs, tt.at.Seconds())
		}
	}
	if r := newChainHealth(new(pending.Store), time.Second, start).report(start); r.Healthy || r.Reason != ReasonStarting {
		t.Errorf("no snapshot yet: %+v", r)
	}
}

// TestChainHealthFollowsBlocks: a producing chain is healthy and its head
// moves; a head that stops moving is halted once older than the limit;
// chain-health sees new heads whether or not it is a listener.
func TestChainHealthFollowsBlocks(t *testing.T) {
	for _, listening := range []bool{true, false} {
		e := newEnv(t)
		cfg := DefaultConfig()
		cfg.Enabled = false
		f := e.newFaucet(cfg, e.backend(e.Pool, e.key))
		if listening {
			e.Run(f)
		} else {
			e.Run()
		}
		snap := e.WaitFor("a few blocks", func(s *pending.Snapshot) bool { return s.Head.NumberU64() >= 3 })
		a := do(f, req{method: "GET", path: "/api/preview/chain-health"})
		var r Health
		if err := json.Unmarshal(a.body, &r); a.status != 200 || err != nil {
			t.Fatalf("chain-health: %d %s", a.status, a.body)
		}
		if !r.Healthy || r.Reason != ReasonOK || r.Head < snap.Head.NumberU64() || r.HeadAgeSecs > 2 || r.StuckSecs > 1 {
			t.Errorf("listening %t: %+v", listening, r)
		}
		for _, field := range []string{`"healthy"`, `"reason"`, `"detail"`, `"head"`, `"headAgeSecs"`, `"stuckSecs"`} {
			if !strings.Contains(string(a.body), field) {
				t.Errorf("chain-health lacks %s: %s", field, a.body)
			}
		}
		// The sequencer stops: 10 s on, the head is stale and stuck.
		e.Stop()
		f.health.report(time.Now()) // not listening, it sees the last head now
		later := f.health.report(time.Now().Add(10 * time.Second))
		if later.Healthy || later.Reason != ReasonHalted || later.StuckSecs < 9 {
			t.Errorf("listening %t, 10 s on: %+v", listening, later)
		}
	}
}
