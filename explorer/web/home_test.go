package web

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/node/pending"
)

var blockRowRe = regexp.MustCompile(`<tr data-block-number="(\d+)"`)

// blockNumbers are the numbers of the rows of #latest-blocks in body.
func blockNumbers(t *testing.T, body string) []uint64 {
	t.Helper()
	var out []uint64
	for _, m := range blockRowRe.FindAllStringSubmatch(within(t, body, "latest-blocks", "</tbody>"), -1) {
		n, err := strconv.ParseUint(m[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// The home page's script brings its lists up to /fragment/home: the same
// lists as the page, without the frame, under the page's headers, its
// latest blocks every number from the head down, once each.
func TestHomeFragment(t *testing.T) {
	e := newExplorerChain(t)
	resp := e.get(homeFragmentPath)
	if resp.StatusCode() != fasthttp.StatusOK {
		t.Fatalf("status %d", resp.StatusCode())
	}
	body := string(resp.Body())
	head := e.Store.Load().Head.NumberU64()
	tests := []struct {
		name string
		ok   bool
	}{
		{"an HTML page's headers", strings.HasPrefix(string(resp.Header.ContentType()), "text/html") &&
			string(resp.Header.Peek("Content-Security-Policy")) == contentSecurityPolicy && string(resp.Header.Peek("Cache-Control")) == "no-store"},
		{"no frame", !strings.Contains(body, "<html") && !strings.Contains(body, "<script") && !strings.Contains(body, `class="top"`)},
		{"the live parts", strings.Contains(body, `<div id="live" data-head="`) && strings.Contains(body, `id="head-number"`) &&
			strings.Contains(body, `id="stat-tps"`) && strings.Contains(body, `id="preconfirmed-txs"`) && strings.Contains(body, `id="latest-txs"`)},
		{"the Method column", strings.Contains(within(t, body, "latest-txs", "</tbody>"), `<span class="fn">createB20</span>`)},
	}
	for _, tt := range tests {
		if !tt.ok {
			t.Errorf("%s: no; body:\n%s", tt.name, body)
		}
	}
	numbers := blockNumbers(t, body)
	if len(numbers) != 5 {
		t.Fatalf("%d latest blocks, want the home size 5: %v", len(numbers), numbers)
	}
	// The ring may trail the snapshot's head by the listener's moment.
	if numbers[0] != head && numbers[0]+1 != head {
		t.Errorf("newest block %d, head %d", numbers[0], head)
	}
	for i := 1; i < len(numbers); i++ {
		if numbers[i] != numbers[i-1]-1 {
			t.Errorf("latest blocks %v skip or repeat a number", numbers)
		}
	}
}

// The home page's latest transactions are the chain's latest, however many
// empty blocks came since: from the ring while the node runs, and from the
// seed's scan below the seeded blocks when it starts.
func TestLatestTransactionsFarBack(t *testing.T) {
	e := newExplorerChain(t)
	last := e.WaitSealed(e.hostile)
	e.WaitFor("more empty blocks than the ring is seeded with", func(s *pending.Snapshot) bool {
		return s.Head.NumberU64() > last+seedBlocks+2
	})
	latest := within(t, e.page("/"), "latest-txs", "</tbody>")
	if n := strings.Count(latest, "<tr data-tx-hash="); n != 5 {
		t.Errorf("%d latest transactions, want the home size 5:\n%s", n, latest)
	}
	rowOf(t, latest, e.hostile.Hash())
	// A node that starts now finds them below the blocks it seeds.
	fresh, err := New(e.ex.cfg, e.ex.deps, e.ex.log)
	if err != nil {
		t.Fatal(err)
	}
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/")
	fresh.page(fresh.home)(&ctx)
	latest = within(t, string(ctx.Response.Body()), "latest-txs", "</tbody>")
	if n := strings.Count(latest, "<tr data-tx-hash="); n != 5 {
		t.Errorf("after a start: %d latest transactions, want 5:\n%s", n, latest)
	}
	rowOf(t, latest, e.hostile.Hash())
}

// The ring hears of a sealed block just after the snapshot that made it
// the head: a page rendered in between reads the blocks the ring lacks
// from the chain, so that its latest blocks start at its head.
func TestHomeFillsWhatTheRingLacks(t *testing.T) {
	e := newExplorerChain(t)
	head := e.WaitSealed(e.tokenTransfer) + 1
	e.WaitFor("the block after the token transfer's", func(s *pending.Snapshot) bool { return s.Head.NumberU64() >= head })
	var lacking []*blockSummary
	for _, b := range e.ex.recent.load() {
		if b.Number <= head-2 {
			lacking = append(lacking, b)
		}
	}
	blocks := e.ex.withHead(lacking, head)
	for i, b := range blocks[:e.ex.cfg.HomeSize] {
		if b.Number != head-uint64(i) {
			t.Fatalf("block %d of the list is %d, want %d", i, b.Number, head-uint64(i))
		}
	}
	if !slices.ContainsFunc(blocks[0].Recent, func(r txRow) bool { return r.Hash == e.tokenTransfer.Hash() }) {
		t.Fatalf("the latest transactions lack the token transfer of a block the ring lacked: %v", blocks[0].Recent)
	}
	if got := e.ex.withHead(blocks, head); len(got) != len(blocks) {
		t.Fatalf("a ring that holds the head was given %d more blocks", len(got)-len(blocks))
	}
}
