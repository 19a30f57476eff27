package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/fasthttp/websocket"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/node/ws"
	"github.com/stocknode/stocknode/ratelimit"
)

// WebSocket messages are metered as HTTP requests are.
func TestRateLimitsOverWebSocket(t *testing.T) {
	n := startNodeWith(t, 0, ws.DefaultConfig(), func(cfg *app.Config) {
		cfg.RPC.RateLimit = ratelimit.Config{Requests: 1, RequestBurst: 3}
	})
	c := n.dial()
	for i := 0; i < 3; i++ {
		var head hexutil.Uint64
		result(t, c.call("eth_blockNumber"), &head)
	}
	var resp struct {
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(c.call("eth_blockNumber"), &resp); err != nil || resp.Error.Code != -32005 || !strings.HasPrefix(resp.Error.Message, "rate limited") {
		t.Fatalf("fourth message: %+v, %v", resp, err)
	}
}

// gauge reads one of the node's metrics.
func gauge(t *testing.T, n *app.Node, name string) float64 {
	t.Helper()
	var buf bytes.Buffer
	n.Metrics().WriteTo(&buf)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindSubmatch(buf.Bytes())
	if m == nil {
		t.Fatalf("no metric %s in\n%s", name, buf.String())
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// eventually polls cond; the bound only keeps a broken node from hanging
// the test.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i == 2000 {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A call whose WebSocket client goes away stops running.
func TestCallStopsWhenWebSocketCloses(t *testing.T) {
	n := startNodeWith(t, 0, ws.DefaultConfig(), func(cfg *app.Config) {
		cfg.RPC.EVMTimeout, cfg.RPC.RequestTimeout, cfg.RPC.GasCap = time.Hour, time.Hour, 1<<40
	})
	conn, _, err := websocket.DefaultDialer.Dial(n.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Init code that jumps to itself until 2^40 gas runs out: hours.
	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"data":"0x5b600056","gas":"0x%x"},"latest"]}`, uint64(1<<40))
	if err := conn.WriteMessage(websocket.TextMessage, []byte(call)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the call runs", func() bool { return gauge(t, n.node, "call_pool_running") == 1 })
	conn.Close()
	eventually(t, "the call stops", func() bool { return gauge(t, n.node, "call_pool_running") == 0 })
}
