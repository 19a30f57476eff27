package abuse

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// fakeEtherscan serves txlist over a history of total entries, pages of
// defaultRows when the request names no offset; the first request for
// page busyPage is answered to retry.
func fakeEtherscan(t *testing.T, total, defaultRows, busyPage int) string {
	t.Helper()
	var busy atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		page, _ := strconv.Atoi(q.Get("page"))
		rows, _ := strconv.Atoi(q.Get("offset"))
		if rows == 0 {
			rows = defaultRows
		}
		if page == busyPage && busy.CompareAndSwap(false, true) {
			w.Write([]byte(`{"status":"0","message":"NOTOK","result":"Max rate limit reached: retry in a moment"}`))
			return
		}
		if page == 99 {
			w.Write([]byte(`{"status":"0","message":"NOTOK","result":"Error! something else"}`))
			return
		}
		var entries []string
		for i := (page - 1) * rows; i < min(total, page*rows); i++ {
			entries = append(entries, fmt.Sprintf(`{"blockNumber":"%d","hash":"0x%x"}`, i+1, i))
		}
		if len(entries) == 0 {
			w.Write([]byte(`{"status":"0","message":"No transactions found","result":[]}`))
			return
		}
		fmt.Fprintf(w, `{"status":"1","message":"OK","result":[%s]}`, strings.Join(entries, ","))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A pager reads a history page after page, asks again for a page the
// node was too busy for, and stops at the end of the history, at an
// answer with no entries, or at an error.
func TestWalkHistory(t *testing.T) {
	for _, tt := range []struct {
		name                          string
		total, defaultRows, busyPage  int
		offset                        int
		requests, pages, busy, failed int
		walks                         int
	}{
		{"pages of the node's default", 25, 10, 0, 0, 3, 3, 0, 0, 1},
		{"all at once", 25, 10_000, 0, 0, 1, 1, 0, 0, 1},
		{"pages it asks for", 25, 10_000, 0, 5, 5, 5, 0, 0, 1},
		{"a busy page asked again", 25, 10, 2, 0, 4, 3, 1, 0, 1},
		{"a history shorter than expected", 15, 10, 0, 0, 3, 3, 0, 0, 0}, // the third answer has none
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := testBattery(t, fakeEtherscan(t, tt.total, tt.defaultRows, tt.busyPage))
			b.history = &busyHistory{txs: 25}
			b.cfg.ReadsOffset = tt.offset
			s := newPagerStats()
			b.walkHistory(context.Background(), b.freshClient(), s, time.Now().Add(time.Minute))
			if s.requests != tt.requests || s.pages != tt.pages || s.busy != tt.busy || s.failed != tt.failed || s.walks != tt.walks {
				t.Errorf("%d requests, %d pages, %d busy, %d failed, %d walks; want %d, %d, %d, %d, %d\n%s",
					s.requests, s.pages, s.busy, s.failed, s.walks, tt.requests, tt.pages, tt.busy, tt.failed, tt.walks, s.describe())
			}
		})
	}
}

func TestEtherscanPage(t *testing.T) {
	b := testBattery(t, fakeEtherscan(t, 25, 10, 0))
	for _, tt := range []struct {
		page, offset int
		kind         pageKind
		rows         int
		msg          string
	}{
		{1, 0, pageRows, 10, ""},
		{3, 0, pageRows, 5, ""},
		{25, 1, pageRows, 1, ""},
		{4, 0, pageRows, 0, ""},
		{99, 0, pageFailed, 0, `{"status":"0","message":"NOTOK","result":"Error! something else"}`},
	} {
		r := b.etherscanPage(context.Background(), b.freshClient(), tt.page, tt.offset)
		if r.kind != tt.kind || r.rows != tt.rows || r.msg != tt.msg {
			t.Errorf("page %d offset %d: %+v", tt.page, tt.offset, r)
		}
	}
}

// fakeFaucet pays any address but those refused; with cooldown, a client
// that was paid is held off afterwards, refusals included (as a faucet
// that sends first and fails in the block).
func fakeFaucet(t *testing.T, refused []common.Address, cooldown bool) string {
	t.Helper()
	var paid atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Address common.Address }
		json.NewDecoder(r.Body).Decode(&req)
		if cooldown && paid.Load() {
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"code":8,"message":"client 127.0.0.2 may drip again in 10s","details":[]}`))
			return
		}
		for _, a := range refused {
			if a == req.Address {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"code":3,"message":"address: %s cannot receive ether: a transfer of 0.1 ETH to it fails (out of gas)","details":[]}`, a.Hex())
				return
			}
		}
		paid.Store(true)
		fmt.Fprintf(w, `{"tx_hash":"0x01","amount_wei":"1","to":%q}`, req.Address.Hex())
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestFaucetUnpayable(t *testing.T) {
	unpayable := []common.Address{common.BytesToAddress([]byte{1}), common.HexToAddress("0xB20f000000000000000000000000000000000000")}
	if out := testBattery(t, fakeFaucet(t, unpayable, true)).faucetUnpayable(context.Background()); out.err != nil || len(out.unexpected) != 0 || len(out.details) != 4 {
		t.Fatalf("a faucet that refuses them: %+v", out)
	}
	out := testBattery(t, fakeFaucet(t, nil, true)).faucetUnpayable(context.Background())
	if out.err != nil || len(out.unexpected) != 4 || !hasLine(out.unexpected, "the ecrecover precompile: HTTP 200, want 400") ||
		!hasLine(out.unexpected, "a fresh account, from the same client: HTTP 429, want 200") {
		t.Fatalf("a faucet that pays them: %+v", out)
	}
}

func TestNosniffCheck(t *testing.T) {
	server := func(except string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != except {
				w.Header().Set("X-Content-Type-Options", "nosniff")
			}
			w.Write([]byte(`{}`))
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	if out := testBattery(t, server("")).nosniff(context.Background()); len(out.unexpected) != 0 || !hasLine(out.details, "0 without") {
		t.Fatalf("a server that says nosniff: %+v", out)
	}
	if out := testBattery(t, server("/health")).nosniff(context.Background()); len(out.unexpected) != 1 || !hasLine(out.unexpected, "GET /health") {
		t.Fatalf("a server whose /health does not: %+v", out)
	}
}

func TestReadsHistoryWindow(t *testing.T) {
	cfg := testAbuseConfig(t, "http://127.0.0.1:1")
	cfg.ReadsHistory = maxEtherscanWindow
	if err := cfg.checkSizes(); err != nil {
		t.Fatalf("a history of the whole window: %v", err)
	}
	cfg.ReadsHistory++
	if err := cfg.checkSizes(); err == nil || !strings.Contains(err.Error(), "-reads-history 10001: at most 10000") {
		t.Fatalf("a history past the window: %v", err)
	}
}
