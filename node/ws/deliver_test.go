package ws

import (
	"io"
	"net"
	"testing"
)

// socketConn returns a conn writing to a real loopback socket, the far
// end of that socket, and the delivery of one head of realistic size to
// the conn's one newHeads subscription.
func socketConn(tb testing.TB) (*conn, net.Conn, *delivery) {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	server, err := l.Accept()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { client.Close(); server.Close() })

	c := &conn{hub: &Hub{cfg: DefaultConfig()}, closed: make(chan struct{})}
	c.setSocket(server)
	if c.raw == nil {
		tb.Fatal("a TCP socket has no raw conn")
	}
	c.subs = []*subscription{{id: []byte("0x0123456789abcdef0123456789abcdef"), kind: kindNewHeads, active: true}}
	head := make([]byte, 1200) // about a newHeads result
	for i := range head {
		head[i] = 'a'
	}
	return c, client, &delivery{kind: kindNewHeads, payload: &payload{b: head}}
}

// Delivering a notification to a subscriber allocates nothing: with
// 10,000 subscribers, one allocation each would be 10,000 per block for
// the collector.
// The reader takes each notification before the next is sent, so every
// write finds room in the socket, as a subscriber that keeps up does.
func TestDeliverDoesNotAllocate(t *testing.T) {
	c, client, d := socketConn(t)
	c.deliver(d) // the connection's buffer grows once
	frameLen := len(notifyPrefix) + len(c.subs[0].id) + len(notifyMiddle) + len(d.payload.b) + len(notifySuffix) + 4
	if allocs := deliverAllocs(t, c, client, d, frameLen); allocs != 0 {
		t.Fatalf("deliver allocates %.1f times per notification, want 0", allocs)
	}
	if c.flushing || len(c.buf) != 0 {
		t.Fatalf("a drained socket left %d bytes queued", len(c.buf))
	}
}

// deliverAllocs is the allocations of delivering d to c, which has just
// delivered it once (its frame, of frameLen bytes, is still to be read at
// client), while client reads each frame before the next is sent.
func deliverAllocs(t *testing.T, c *conn, client net.Conn, d *delivery, frameLen int) float64 {
	t.Helper()
	frame := make([]byte, frameLen)
	read := make(chan error)
	go func() {
		for {
			_, err := io.ReadFull(client, frame)
			read <- err
			if err != nil {
				return
			}
		}
	}()
	<-read
	return testing.AllocsPerRun(1000, func() {
		c.deliver(d)
		if err := <-read; err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkDeliver is one notification framed and written to one
// subscriber's socket: the broadcaster's cost per subscriber per block.
// It goes round 64 sockets, as a shard goes round its connections, so
// that each reader keeps up; a connection closed as too slow fails it.
func BenchmarkDeliver(b *testing.B) {
	_, _, d := socketConn(b)
	benchmarkDeliver(b, d, false)
}

// benchmarkDeliver delivers d round 64 sockets whose readers keep up,
// to subscribers that negotiated compression or not.
func benchmarkDeliver(b *testing.B, d *delivery, deflate bool) {
	conns := make([]*conn, 64)
	for i := range conns {
		var client net.Conn
		conns[i], client, _ = socketConn(b)
		conns[i].deflate = deflate
		go io.Copy(io.Discard, client)
	}
	conns[0].deliver(d) // deflates the result once, if it is deflated
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		conns[i%len(conns)].deliver(d)
		i++
	}
	b.StopTimer()
	for _, c := range conns {
		if c.closing {
			b.Fatal("a reader fell behind: the benchmark measured a closed connection")
		}
	}
}
