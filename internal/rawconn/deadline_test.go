package rawconn

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// A rawConn's deadlines end its calls at the last deadline set, never
// sooner and never later, though the poller sees only some of them.
func TestRawConnLazyDeadlines(t *testing.T) {
	const (
		early = 30 * time.Millisecond
		late  = 150 * time.Millisecond
		data  = 80 * time.Millisecond // when the client writes, if it does
	)
	tests := []struct {
		name      string
		deadlines []time.Duration // from the start; 0 clears
		write     bool            // the client writes at data
		timeout   time.Duration   // 0: the read gets the data
	}{
		{"extended past the data: reads it", []time.Duration{early, late}, true, 0},
		{"extended: times out at the later", []time.Duration{early, late}, false, late},
		{"extended twice: times out at the last", []time.Duration{early, 2 * early, late}, false, late},
		{"cleared: reads the data", []time.Duration{early, 0}, true, 0},
		{"tightened: times out at the earlier", []time.Duration{late, early}, false, early},
		{"already passed: times out at once", []time.Duration{-time.Millisecond}, false, -time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server, client := rawPair(t)
			start := time.Now()
			for _, d := range tt.deadlines {
				var at time.Time
				if d != 0 {
					at = start.Add(d)
				}
				if err := server.SetReadDeadline(at); err != nil {
					t.Fatal(err)
				}
			}
			if tt.write {
				time.AfterFunc(data, func() { client.Write([]byte("x")) })
			}
			n, err := server.Read(make([]byte, 8))
			elapsed := time.Since(start)
			if tt.timeout == 0 {
				if n != 1 || err != nil {
					t.Fatalf("Read = %d, %v after %v; want the byte", n, err, elapsed)
				}
				return
			}
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("Read = %d, %v after %v; want a timeout", n, err, elapsed)
			}
			if elapsed < tt.timeout {
				t.Fatalf("timed out after %v, before the deadline at %v", elapsed, tt.timeout)
			}
		})
	}
}

// A read waiting on a far deadline ends when a nearer one is set from
// another goroutine, as with net.Conn.
func TestRawConnDeadlineSetWhileWaiting(t *testing.T) {
	server, _ := rawPair(t)
	server.SetReadDeadline(time.Now().Add(time.Minute))
	time.AfterFunc(30*time.Millisecond, func() { server.SetReadDeadline(time.Now()) })
	start := time.Now()
	_, err := server.Read(make([]byte, 8))
	if !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Fatalf("Read = %v after %v; want a timeout soon after 30ms", err, time.Since(start))
	}
}

// A write the peer does not drain times out at the last write deadline set.
func TestRawConnLazyWriteDeadline(t *testing.T) {
	server, _ := rawPair(t)
	const late = 150 * time.Millisecond
	start := time.Now()
	server.SetWriteDeadline(start.Add(30 * time.Millisecond))
	server.SetWriteDeadline(start.Add(late))
	_, err := server.Write(make([]byte, 64<<20)) // more than the socket buffers hold
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Write = %v; want a timeout", err)
	}
	if elapsed := time.Since(start); elapsed < late {
		t.Fatalf("timed out after %v, before the deadline at %v", elapsed, late)
	}
}

// Code that waits on the socket itself (SyscallConn) waits until the last
// deadline set, as rawConn's own calls do.
func TestRawConnSyscallConnDeadlines(t *testing.T) {
	server, client := rawPair(t)
	start := time.Now()
	server.SetReadDeadline(start.Add(30 * time.Millisecond))
	server.SetReadDeadline(start.Add(time.Minute))
	time.AfterFunc(80*time.Millisecond, func() { client.Write([]byte("x")) })
	raw, err := server.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	peeked := 0
	err = raw.Read(func(fd uintptr) bool {
		n, _, errno := syscall.Recvfrom(int(fd), make([]byte, 1), syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		peeked = n
		return errno != syscall.EAGAIN // not ready: wait
	})
	if err != nil || peeked != 1 {
		t.Fatalf("raw Read = %v after %v, peeked %d; want the byte", err, time.Since(start), peeked)
	}
}

// BenchmarkRequestDeadlines is the deadlines fasthttp sets on a keep-alive
// connection per request (idle, header, write), on a plain net.TCPConn and
// on a rawConn.
func BenchmarkRequestDeadlines(b *testing.B) {
	server, client := rawPair(b)
	conns := []struct {
		name string
		c    interface {
			SetReadDeadline(time.Time) error
			SetWriteDeadline(time.Time) error
		}
	}{{"poller", client}, {"lazy", server}}
	for _, c := range conns {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.c.SetReadDeadline(time.Now().Add(120 * time.Second))
				c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
				c.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
			}
		})
	}
}
