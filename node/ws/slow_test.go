package ws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"
)

// startHub serves a hub without a chain behind it at a ws:// URL: enough
// for what happens below the JSON-RPC methods.
func startHub(t *testing.T, cfg Config) (*Hub, string) {
	t.Helper()
	h := New(cfg, nil, nil, slog.New(slog.DiscardHandler))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: h.Handler}
	go srv.Serve(ln)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Shutdown()
	})
	return h, "ws://" + ln.Addr().String() + "/ws"
}

// onlyConn waits for the hub's one connection.
func onlyConn(t *testing.T, h *Hub) *conn {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		var found *conn
		for _, s := range h.shards {
			s.each(func(c *conn) { found = c })
		}
		if found != nil {
			return found
		}
	}
	t.Fatal("no connection")
	return nil
}

// A subscriber that stops reading is closed once SendQueue notifications
// wait for it unstarted. Those are dropped: when it reads again it gets
// every notification that had started to be written (the last perhaps
// only partly, so the server finishes it), then the close frame, and not
// the queue behind them. Then the connection and its subscription are
// gone.
func TestSlowSubscriberGetsCloseNext(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SendQueue = 64
	cfg.PingInterval = time.Hour       // no frames but the notifications
	cfg.WriteTimeout = 5 * time.Minute // the test reads when it is ready
	h, url := startHub(t, cfg)
	client, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c := onlyConn(t, h)
	c.mu.Lock()
	c.subs = append(c.subs, &subscription{id: []byte("0x0123456789abcdef0123456789abcdef"), kind: kindNewHeads, active: true})
	c.mu.Unlock()
	h.metrics.subscribed(kindNewHeads, 1)

	// Numbered notifications, as a shard delivers them, until one is
	// refused: the client reads nothing meanwhile. The SendQueue before
	// the refused one are those that had not started.
	pad := strings.Repeat("a", 8<<10)
	refused := 0
	for ; h.metrics.slowDropped.Load() == 0; refused++ {
		c.deliver(&delivery{kind: kindNewHeads, payload: &payload{b: fmt.Appendf(nil, `{"seq":%d,"pad":"%s"}`, refused, pad)}})
	}
	refused--
	started := refused - cfg.SendQueue

	client.SetReadDeadline(time.Now().Add(time.Minute))
	for seq := 0; ; seq++ {
		_, msg, err := client.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation || !strings.Contains(ce.Text, "too slow") {
				t.Fatalf("after %d notifications: %v, want close 1008 too slow", seq, err)
			}
			if seq != started {
				t.Fatalf("the close came after %d notifications; %d had started to be written, %d more were queued", seq, started, cfg.SendQueue)
			}
			break
		}
		var note struct {
			Params struct {
				Result struct{ Seq int }
			}
		}
		if err := json.Unmarshal(msg, &note); err != nil || note.Params.Result.Seq != seq {
			t.Fatalf("notification %d: %.60s (%v)", seq, msg, err)
		}
	}

	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		conns, subs, _ := h.Stats()
		if conns == 0 && subs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections, %d subscriptions left after the close", conns, subs)
		}
	}
}
