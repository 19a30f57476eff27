package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/stocknode/stocknode/node/ws"
)

// A client that offers permessage-deflate gets it, unless the server turned
// it off, and reads the same streams and answers either way: the library's
// client inflates what the server deflated, and the server inflates the
// client's deflated requests.
func TestCompressedStreams(t *testing.T) {
	tests := []struct {
		name          string
		server, offer bool
		negotiated    bool
	}{
		{"offered and accepted", true, true, true},
		{"not offered", true, false, false},
		{"offered, turned off", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ws.DefaultConfig()
			cfg.Compression = tt.server
			n := startNode(t, 50*time.Millisecond, cfg)
			dialer := *websocket.DefaultDialer
			dialer.EnableCompression = tt.offer
			conn, resp, err := dialer.Dial(n.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			conn.Close()
			ext := resp.Header.Get("Sec-WebSocket-Extensions")
			if got := strings.HasPrefix(ext, "permessage-deflate"); got != tt.negotiated {
				t.Fatalf("Sec-WebSocket-Extensions %q, want negotiated %v", ext, tt.negotiated)
			}

			c := n.dialWith(&dialer)
			heads := c.waitNotes(c.subscribe("newHeads"), 3, 5*time.Second)
			first := number(t, heads[0])
			for i, h := range heads {
				if got := number(t, h); got != first+uint64(i) {
					t.Fatalf("head %d is block %d, want %d", i, got, first+uint64(i))
				}
			}
			c.waitNotes(c.subscribe("newFlashblocks"), 3, 5*time.Second)
			// An answer long enough to be deflated.
			var block map[string]any
			result(t, c.call("eth_getBlockByNumber", "latest", true), &block)
			if block["hash"] == nil || block["logsBloom"] == nil {
				t.Fatalf("block over a compressed socket: %v", block)
			}
		})
	}
}

// The message limit holds for what a deflated message inflates to: a
// message that deflates to a few kilobytes and inflates past the limit is
// closed with 1009, not read whole.
func TestDeflatedMessageOverTheLimit(t *testing.T) {
	n := startNode(t, 0, ws.DefaultConfig())
	dialer := *websocket.DefaultDialer
	dialer.EnableCompression = true
	conn, _, err := dialer.Dial(n.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 8 MiB deflates to a few kilobytes, which the socket takes whole
	// before the server closes.
	bomb := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["` + strings.Repeat("a", 8<<20) + `"]}`
	if err := conn.WriteMessage(websocket.TextMessage, []byte(bomb)); err != nil {
		t.Fatal(err)
	}
	msgs, ce := readToClose(t, conn)
	if ce.Code != websocket.CloseMessageTooBig || !strings.Contains(ce.Text, "message too large: limit 5242880 bytes") {
		t.Fatalf("close %d %q after %q, want 1009", ce.Code, ce.Text, msgs)
	}
	waitReleased(t, n)
}
