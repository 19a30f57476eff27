package web

import (
	"testing"
	"time"

	"github.com/stocknode/stocknode/node/pending"
)

// TestRenderBound: with every render slot taken, a page waits RenderWait
// and is answered 503 with Retry-After; a freed slot serves it again.
func TestRenderBound(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Renders, cfg.RenderWait = 1, 20*time.Millisecond
	e := newEnv(t, cfg, 200*time.Millisecond, 50*time.Millisecond)
	e.WaitFor("the first snapshot", func(*pending.Snapshot) bool { return true })
	e.ex.renders <- struct{}{} // a page being rendered
	resp := e.get("/block/0")
	if resp.StatusCode() != 503 || string(resp.Header.Peek("Retry-After")) != "1" {
		t.Fatalf("all slots taken: %d Retry-After %q, want 503 and 1", resp.StatusCode(), resp.Header.Peek("Retry-After"))
	}
	<-e.ex.renders
	if resp := e.get("/block/0"); resp.StatusCode() != 200 {
		t.Fatalf("slot free: %d, want 200", resp.StatusCode())
	}
	if n := len(e.ex.renders); n != 0 {
		t.Fatalf("%d slots still taken after the pages were served", n)
	}
}

// TestPageCache: a page asked again within one snapshot is served from the
// cache, without a render slot; a new snapshot renders it afresh.
func TestPageCache(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Renders, cfg.RenderWait = 1, 10*time.Millisecond
	e := newEnv(t, cfg, 2*time.Second, time.Second)
	e.WaitFor("the first snapshot", func(*pending.Snapshot) bool { return true })
	for attempt := 0; attempt < 5; attempt++ {
		seq := e.Store.Load().Seq
		first := e.get("/block/0")
		e.ex.renders <- struct{}{} // no slot left: only the cache can answer
		again := e.get("/block/0")
		<-e.ex.renders
		if e.Store.Load().Seq != seq {
			continue // a pre-confirmation came in between: try again
		}
		if first.StatusCode() != 200 {
			t.Fatalf("GET /block/0: %d", first.StatusCode())
		}
		if again.StatusCode() != 200 || string(again.Body()) != string(first.Body()) {
			t.Fatalf("same snapshot, no render slot: %d, want the cached page", again.StatusCode())
		}
		return
	}
	t.Fatal("no two requests within one snapshot in five attempts")
}
