package etherscan

import (
	"strings"
	"testing"
	"time"

	"github.com/stocknode/stocknode/callbound"
)

// hold takes every turn of api's bound (one worker) until release is
// closed.
func hold(t *testing.T, api *API) (release func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go api.calls.Do(callbound.Caller{}, 0, func(*callbound.Task) {
		close(held)
		<-done
	})
	<-held
	return func() { close(done) }
}

// TestBusy: a history request that finds every turn taken waits for one
// for Config.Wait, then is answered, in Etherscan's shape, to retry;
// balances are not bounded; once a turn is free, histories are answered.
func TestBusy(t *testing.T) {
	e := newEnv(t, true)
	e.history()
	cfg := DefaultConfig()
	cfg.Workers, cfg.Wait = 1, 50*time.Millisecond
	api := e.newAPI(cfg, e.api.tokens)
	addr := "&address=" + lower(e.Addr(0))
	release := hold(t, api)
	for _, tt := range []struct {
		action, want string
		retry        bool
	}{
		{"txlist", `{"status":"0","message":"NOTOK","result":"` + msgBusy + `"}`, true},
		{"tokentx", `{"status":"0","message":"NOTOK","result":"` + msgBusy + `"}`, true},
		{"balance", `{"status":"1","message":"OK","result":"`, false},
	} {
		ctx := e.serve(api, "module=account&action="+tt.action+addr)
		body, retry := string(ctx.Response.Body()), string(ctx.Response.Header.Peek("Retry-After"))
		if tt.retry && (body != tt.want || retry != "1") || !tt.retry && (!strings.HasPrefix(body, tt.want) || retry != "") {
			t.Errorf("%s while the bound is full: %s (Retry-After %q)", tt.action, body, retry)
		}
	}
	release()
	for _, action := range []string{"txlist", "tokentx"} {
		if got := results(t, e.serve(api, "module=account&action="+action+addr).Response.Body()); len(got) != 5 {
			t.Errorf("%s once a turn is free: %d entries, want 5", action, len(got))
		}
	}
}

// TestWaitsForItsTurn: a request that finds every turn taken is answered
// once one frees within Config.Wait, not refused at once.
func TestWaitsForItsTurn(t *testing.T) {
	e := newEnv(t, true)
	e.history()
	cfg := DefaultConfig()
	cfg.Workers, cfg.Wait = 1, time.Minute
	api := e.newAPI(cfg, e.api.tokens)
	release := hold(t, api)
	answered := make(chan []byte)
	go func() {
		answered <- e.serve(api, "module=account&action=txlist&address="+lower(e.Addr(0))).Response.Body()
	}()
	for {
		if _, waiting, _, _ := api.calls.Stats(); waiting == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	release()
	if got := results(t, <-answered); len(got) != 5 {
		t.Errorf("%d entries, want 5", len(got))
	}
}
