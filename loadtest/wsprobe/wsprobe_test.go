package wsprobe

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
)

var probeMessages = [][]byte{
	[]byte(`{"n":1}`),
	bytes.Repeat([]byte("a"), 1200),
	bytes.Repeat([]byte("b"), 70_000), // one frame
	bytes.Repeat([]byte("c"), 10_000), // fragmented
}

// probeServer is a WebSocket server built on the library stocknode uses.
// Each connection answers an eth_subscribe, pings with "hello", sends
// probeMessages (each time on sent) and closes with a close frame. Pong
// payloads go to pong. Both channels hold what a few connections send.
func probeServer(t *testing.T) (url string, sent chan time.Time, pong chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sent = make(chan time.Time, 64)
	pong = make(chan string, 16)
	upgrader := websocket.Upgrader{WriteBufferSize: 4096} // a longer message goes out fragmented
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		c.SetPongHandler(func(data string) error { pong <- data; return nil })
		_, req, err := c.ReadMessage()
		if err != nil || !strings.Contains(string(req), `"eth_subscribe"`) {
			return
		}
		c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"result":"0x01"}`))
		c.WriteControl(websocket.PingMessage, []byte("hello"), time.Now().Add(time.Second))
		go c.ReadMessage() // runs the pong handler
		for _, m := range probeMessages {
			time.Sleep(10 * time.Millisecond)
			sent <- time.Now()
			if len(m) > 0xffff {
				pm, _ := websocket.NewPreparedMessage(websocket.TextMessage, m)
				c.WritePreparedMessage(pm)
			} else {
				c.WriteMessage(websocket.TextMessage, m)
			}
		}
		time.Sleep(200 * time.Millisecond)
		c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "bye"), time.Now().Add(time.Second))
		time.Sleep(200 * time.Millisecond)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "ws://" + ln.Addr().String() + "/ws", sent, pong
}

func dialSubscribed(t *testing.T, url string) *Conn {
	t.Helper()
	c, err := Dial(url, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Subscribe([]byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
		t.Fatal(err)
	}
	return c
}

// checkProbeMessage fails unless the i-th message read is probeMessages[i]
// and it arrived between its send and its read.
func checkProbeMessage(t *testing.T, i int, got []byte, arrived, read time.Time, sent <-chan time.Time) {
	t.Helper()
	if want := probeMessages[i]; !bytes.Equal(got, want) {
		t.Fatalf("message %d: got %d bytes %.20q, want %d bytes %.20q", i, len(got), got, len(want), want)
	}
	if at := <-sent; arrived.Before(at.Add(-time.Millisecond)) || arrived.After(read) {
		t.Fatalf("message %d arrived at %v: not between its send %v and its read %v", i, arrived, at, read)
	}
}

func checkPong(t *testing.T, pong <-chan string) {
	t.Helper()
	select {
	case p := <-pong:
		if p != "hello" {
			t.Fatalf("pong %q, want the ping's payload", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the ping was not answered")
	}
}

// TestProbeConn reads with next, as the subscription does: the
// handshake, a subscription, a ping answered with a pong, messages of
// every length encoding (7-bit, 16-bit, 64-bit) and a fragmented one read
// whole and in order, each with a kernel arrival time between its send and
// its read, and the server's close frame.
func TestProbeConn(t *testing.T) {
	url, sent, pong := probeServer(t)
	c := dialSubscribed(t, url)
	for i := range probeMessages {
		got, arrived, err := c.Next()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		checkProbeMessage(t, i, got, arrived, time.Now(), sent)
	}
	checkPong(t, pong)
	if _, _, err := c.Next(); !errors.Is(err, errProbeClosed) || !strings.Contains(err.Error(), "bye") {
		t.Fatalf("after the messages: %v, want the server's close frame", err)
	}
}

// TestProbeLoop reads the same through an epoll loop, as the fan-out
// does, blocking in epoll_wait and polling (-poll), with several
// connections on one loop (their sends interleave, so
// arrival is checked against the test's start, the previous message and
// the read).
func TestProbeLoop(t *testing.T) {
	for _, poll := range []time.Duration{0, 200 * time.Microsecond} {
		t.Run("poll="+poll.String(), func(t *testing.T) { testProbeLoop(t, poll) })
	}
}

func testProbeLoop(t *testing.T, poll time.Duration) {
	start := time.Now()
	url, _, pong := probeServer(t)
	loop, err := NewLoop(poll)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		msg           []byte
		arrived, read time.Time
	}
	const conns = 3
	got := make([][]result, conns)
	closed := make(chan error, conns)
	for i := range conns {
		c := dialSubscribed(t, url)
		err := loop.add(c, func(msg []byte, arrived time.Time) {
			got[i] = append(got[i], result{bytes.Clone(msg), arrived, time.Now()})
		}, func(err error) { closed <- err })
		if err != nil {
			t.Fatal(err)
		}
	}
	loop.start()
	for range conns {
		select {
		case err := <-closed:
			if !errors.Is(err, errProbeClosed) {
				t.Fatalf("connection ended with %v, want the server's close frame", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the loop did not see every connection close")
		}
	}
	loop.close() // the results are the loop's until it stops
	for c, results := range got {
		if len(results) != len(probeMessages) {
			t.Fatalf("connection %d: %d messages, want %d", c, len(results), len(probeMessages))
		}
		for i, r := range results {
			if !bytes.Equal(r.msg, probeMessages[i]) {
				t.Fatalf("connection %d, message %d: got %d bytes %.20q, want %d bytes", c, i, len(r.msg), r.msg, len(probeMessages[i]))
			}
			if r.arrived.Before(start) || r.arrived.After(r.read) || i > 0 && r.arrived.Before(results[i-1].arrived) {
				t.Fatalf("connection %d, message %d arrived at %v: not after the test's start %v and the previous message, and before its read %v", c, i, r.arrived, start, r.read)
			}
		}
	}
	for range conns {
		checkPong(t, pong)
	}
}

func TestProbeRefusesNonWebSocket(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.NotFoundHandler()}
	go srv.Serve(ln)
	defer srv.Close()
	if _, err := Dial("ws://"+ln.Addr().String()+"/ws", 5*time.Second); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("dial of a non-WebSocket endpoint: %v, want the 404 status", err)
	}
}
