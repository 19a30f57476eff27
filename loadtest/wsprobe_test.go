package main

import (
	"bytes"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
)

// TestProbeConn runs the probe's client against a WebSocket server built
// on the library stocknode uses: the handshake, a subscription, a ping
// answered with a pong, and messages of every length encoding (7-bit,
// 16-bit, 64-bit) and a fragmented one read whole and in
// order, each with a kernel arrival time between its send and its read.
func TestProbeConn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	messages := [][]byte{
		[]byte(`{"n":1}`),
		bytes.Repeat([]byte("a"), 1200),
		bytes.Repeat([]byte("b"), 70_000), // one frame
		bytes.Repeat([]byte("c"), 10_000), // fragmented
	}
	sent := make(chan time.Time, len(messages))
	pong := make(chan string, 1)
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
		for _, m := range messages {
			time.Sleep(10 * time.Millisecond)
			sent <- time.Now()
			if len(m) > 0xffff {
				pm, _ := websocket.NewPreparedMessage(websocket.TextMessage, m)
				c.WritePreparedMessage(pm)
			} else {
				c.WriteMessage(websocket.TextMessage, m)
			}
		}
		time.Sleep(time.Second)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	c, err := dialProbe("ws://"+ln.Addr().String()+"/ws", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.subscribe([]byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	for i, want := range messages {
		got, arrived, err := c.next()
		read := time.Now()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("message %d: got %d bytes %.20q, want %d bytes %.20q", i, len(got), got, len(want), want)
		}
		if at := <-sent; arrived.Before(at.Add(-time.Millisecond)) || arrived.After(read) {
			t.Fatalf("message %d arrived at %v: not between its send %v and its read %v", i, arrived, at, read)
		}
	}
	select {
	case p := <-pong:
		if p != "hello" {
			t.Fatalf("pong %q, want the ping's payload", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the ping was not answered")
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
	if _, err := dialProbe("ws://"+ln.Addr().String()+"/ws", 5*time.Second); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("dial of a non-WebSocket endpoint: %v, want the 404 status", err)
	}
}
