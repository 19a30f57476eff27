package app_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/stocknode/stocknode/node/ws"
)

// recordingConn keeps every byte the client reads from the socket, so a
// test sees the frames exactly as the server sent them, after the close
// frame too.
type recordingConn struct {
	net.Conn
	mu   sync.Mutex
	read []byte
}

func (r *recordingConn) Read(b []byte) (int, error) {
	n, err := r.Conn.Read(b)
	r.mu.Lock()
	r.read = append(r.read, b[:n]...)
	r.mu.Unlock()
	return n, err
}

// serverFrame is one frame the server sent.
type serverFrame struct {
	op      byte
	payload []byte
}

// frames parses what the server sent after its handshake response.
func (r *recordingConn) frames(t *testing.T) []serverFrame {
	t.Helper()
	r.mu.Lock()
	b := r.read
	r.mu.Unlock()
	i := bytes.Index(b, []byte("\r\n\r\n"))
	if i < 0 {
		t.Fatal("no handshake response")
	}
	b = b[i+4:]
	var out []serverFrame
	for len(b) > 0 {
		if len(b) < 2 || b[1]&0x80 != 0 {
			t.Fatalf("garbled stream at %x", b[:min(len(b), 16)])
		}
		n, h := int(b[1]&0x7f), 2
		switch n {
		case 126:
			n, h = int(binary.BigEndian.Uint16(b[2:])), 4
		case 127:
			n, h = int(binary.BigEndian.Uint64(b[2:])), 10
		}
		if len(b) < h+n {
			t.Fatalf("stream ends inside a frame")
		}
		out = append(out, serverFrame{op: b[0] & 0x0f, payload: b[h : h+n]})
		b = b[h+n:]
	}
	return out
}

// dialRecorded opens a WebSocket connection whose reads are recorded.
func (n *testNode) dialRecorded() (*websocket.Conn, *recordingConn) {
	n.t.Helper()
	var rec *recordingConn
	dialer := websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		rec = &recordingConn{Conn: c}
		return rec, nil
	}}
	conn, _, err := dialer.Dial(n.url, nil)
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { conn.Close() })
	return conn, rec
}

// clientFrame is a masked client frame (the mask key zero, so the payload
// reads as it is).
func clientFrame(fin bool, op byte, payload []byte) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	b := []byte{b0}
	switch n := len(payload); {
	case n < 126:
		b = append(b, 0x80|byte(n))
	case n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 0x80|126), uint16(n))
	default:
		b = binary.BigEndian.AppendUint64(append(b, 0x80|127), uint64(n))
	}
	return append(append(b, 0, 0, 0, 0), payload...)
}

// readToClose reads what the server sends until its close frame; it
// returns the messages before it and the close.
func readToClose(t *testing.T, conn *websocket.Conn) ([]string, *websocket.CloseError) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var msgs []string
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("read %v after %q, want a close frame", err, msgs)
			}
			return msgs, ce
		}
		msgs = append(msgs, string(msg))
	}
}

// Every close the server makes has the code for its cause and says why
// (within a control frame's 125 bytes); it is the last frame the client
// gets, and the connection's subscriptions go with it.
func TestCloseReasons(t *testing.T) {
	const subscribe = `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`
	tests := []struct {
		name       string
		cfg        func(*ws.Config)
		send       func(*websocket.Conn, net.Conn) // the socket under it, for raw frames
		wantCode   int
		wantReason string
	}{{
		name: "invalid UTF-8",
		send: func(c *websocket.Conn, _ net.Conn) {
			c.WriteMessage(websocket.TextMessage, []byte("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"eth_chainId\"}"))
		},
		wantCode:   websocket.CloseInvalidFramePayloadData,
		wantReason: "text message is not valid UTF-8",
	}, {
		name: "invalid UTF-8 in a fragmented message",
		send: func(_ *websocket.Conn, raw net.Conn) {
			raw.Write(clientFrame(false, websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":"`)))
			raw.Write(clientFrame(true, 0, []byte("\xe2\x82\",\"method\":\"eth_chainId\"}"))) // a character cut short
		},
		wantCode:   websocket.CloseInvalidFramePayloadData,
		wantReason: "text message is not valid UTF-8",
	}, {
		name: "message over the limit",
		cfg:  func(c *ws.Config) { c.MessageLimit = 1024 },
		send: func(c *websocket.Conn, _ net.Conn) {
			c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["`+strings.Repeat("a", 2048)+`"]}`))
		},
		wantCode:   websocket.CloseMessageTooBig,
		wantReason: "message too large: limit 1024 bytes",
	}, {
		name: "message over the limit in frames under it",
		cfg:  func(c *ws.Config) { c.MessageLimit = 1024 },
		send: func(_ *websocket.Conn, raw net.Conn) {
			raw.Write(clientFrame(false, websocket.TextMessage, bytes.Repeat([]byte(" "), 1000)))
			raw.Write(clientFrame(true, 0, bytes.Repeat([]byte(" "), 1000)))
		},
		wantCode:   websocket.CloseMessageTooBig,
		wantReason: "message too large: limit 1024 bytes",
	}, {
		name: "idle",
		cfg: func(c *ws.Config) {
			c.IdleTimeout = 300 * time.Millisecond
			c.PingInterval = time.Hour // no pings to answer
		},
		send:       func(*websocket.Conn, net.Conn) {},
		wantCode:   websocket.CloseGoingAway,
		wantReason: "no message or pong for 0.3s",
	}, {
		name: "protocol error",
		send: func(_ *websocket.Conn, raw net.Conn) {
			raw.Write(clientFrame(true, 3, nil)) // a reserved opcode
		},
		wantCode:   websocket.CloseProtocolError,
		wantReason: "bad opcode 3",
	}, {
		name: "client's close",
		send: func(c *websocket.Conn, _ net.Conn) {
			c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "bye"))
		},
		wantCode:   websocket.CloseNormalClosure,
		wantReason: "closing as the client asked",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ws.DefaultConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			n := startNode(t, 0, cfg)
			conn, rec := n.dialRecorded()
			conn.WriteMessage(websocket.TextMessage, []byte(subscribe))
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, _, err := conn.ReadMessage(); err != nil {
				t.Fatal(err)
			}
			tt.send(conn, rec)
			msgs, ce := readToClose(t, conn)
			if ce.Code != tt.wantCode || !strings.Contains(ce.Text, tt.wantReason) {
				t.Fatalf("close %d %q after %q, want %d %q", ce.Code, ce.Text, msgs, tt.wantCode, tt.wantReason)
			}
			if len(ce.Text) > 123 {
				t.Fatalf("close reason of %d bytes does not fit a control frame", len(ce.Text))
			}
			// The rest of the stream: the close frame is the last frame.
			rec.SetReadDeadline(time.Now().Add(10 * time.Second))
			for buf := make([]byte, 4096); ; {
				if _, err := rec.Read(buf); err != nil {
					break
				}
			}
			frames := rec.frames(t)
			for i, f := range frames {
				if f.op == websocket.CloseMessage && i != len(frames)-1 {
					t.Fatalf("close frame %d of %d, then %q", i+1, len(frames), frames[i+1].payload)
				}
			}
			waitReleased(t, n)
		})
	}
}

// waitReleased waits until the node holds no connection or subscription.
func waitReleased(t *testing.T, n *testNode) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conns, subs, _ := n.node.WSStats()
		if conns == 0 && subs == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections, %d subscriptions left after the close", conns, subs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A character split between two frames of a message is valid UTF-8: the
// check is on the whole message.
func TestFragmentedUTF8(t *testing.T) {
	n := startNode(t, 0, ws.DefaultConfig())
	conn, rec := n.dialRecorded()
	rec.Write(clientFrame(false, websocket.TextMessage, []byte("{\"jsonrpc\":\"2.0\",\"id\":\"\xe2\x82")))
	rec.Write(clientFrame(true, 0, []byte("\xac\",\"method\":\"eth_chainId\"}")))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, msg, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(msg), `"id":"€","result":"0x509f455"`) {
		t.Fatalf("reply %s", msg)
	}
}
