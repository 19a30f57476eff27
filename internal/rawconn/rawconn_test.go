package rawconn

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stocknode/stocknode/internal/testcert"
)

// rawPair returns the server side of a loopback connection as a rawConn
// (in race builds too, where the listener serves plain connections), and the
// client side.
func rawPair(t testing.TB) (*rawConn, *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
			accepted <- nil
			return
		}
		accepted <- wrap(c.(*net.TCPConn))
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	t.Cleanup(func() { client.Close() })
	rc, ok := server.(*rawConn)
	if !ok {
		t.Fatalf("accepted %T, want *rawConn", server)
	}
	t.Cleanup(func() { rc.Close() })
	return rc, client.(*net.TCPConn)
}

func TestRawConnReadWrite(t *testing.T) {
	server, client := rawPair(t)
	// Larger than the socket buffers, read slowly: the server's writes
	// come back partial or EAGAIN and must wait in the poller.
	want := make([]byte, 8<<20)
	rand.Read(want)
	errc := make(chan error, 1)
	go func() {
		n, err := server.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	got, err := io.ReadAll(io.LimitReader(client, int64(len(want))))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("server write: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("client read other bytes than the server wrote")
	}

	// The other way, with the server's read waiting for data to come.
	go func() {
		time.Sleep(20 * time.Millisecond)
		client.Write([]byte("hello"))
	}()
	buf := make([]byte, 64)
	n, err := server.Read(buf)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("server read %q, %v", buf[:n], err)
	}
}

func TestRawConnEnds(t *testing.T) {
	buf := make([]byte, 16)
	tests := []struct {
		name  string
		act   func(server *rawConn, client *net.TCPConn)
		check func(error) bool
	}{
		{"peer closes: EOF", func(_ *rawConn, c *net.TCPConn) { c.Close() },
			func(err error) bool { return err == io.EOF }},
		{"read deadline: a timeout", func(s *rawConn, _ *net.TCPConn) { s.SetReadDeadline(time.Now().Add(20 * time.Millisecond)) },
			func(err error) bool {
				var ne net.Error
				return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded)
			}},
		{"closed while reading: net.ErrClosed", func(s *rawConn, _ *net.TCPConn) {
			go func() { time.Sleep(20 * time.Millisecond); s.Close() }()
		}, func(err error) bool { return errors.Is(err, net.ErrClosed) }},
		{"peer resets: ECONNRESET", func(_ *rawConn, c *net.TCPConn) { c.SetLinger(0); c.Close() },
			func(err error) bool { return errors.Is(err, syscall.ECONNRESET) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server, client := rawPair(t)
			tt.act(server, client)
			n, err := server.Read(buf)
			if n != 0 || !tt.check(err) {
				t.Fatalf("Read = %d, %v (%T)", n, err, err)
			}
		})
	}
}

// Writing to a peer that reset the connection is an error, not a signal.
func TestRawConnWriteAfterReset(t *testing.T) {
	server, client := rawPair(t)
	client.SetLinger(0)
	client.Close()
	time.Sleep(20 * time.Millisecond)
	var err error
	for range 3 {
		if _, err = server.Write([]byte("x")); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write after reset: %v", err)
	}
}

// A read and a write in steady state, deadlines included, allocate
// nothing: their system calls are bound once per connection.
func TestRawConnDoesNotAllocate(t *testing.T) {
	server, client := rawPair(t)
	msg, buf := []byte("ping"), make([]byte, 16)
	allocs := testing.AllocsPerRun(100, func() {
		// fasthttp's deadlines of a request: idle, header, write.
		now := time.Now()
		server.SetReadDeadline(now.Add(time.Minute))
		server.SetReadDeadline(now.Add(10 * time.Second))
		server.SetWriteDeadline(now.Add(10 * time.Second))
		if _, err := server.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(client, buf[:len(msg)]); err != nil {
			t.Fatal(err)
		}
		if _, err := client.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(server, buf[:len(msg)]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per round trip, want 0", allocs)
	}
}

// Writes from several goroutines at once each arrive whole, as net.Conn
// promises.
func TestRawConnConcurrentWrites(t *testing.T) {
	server, client := rawPair(t)
	const writers, writes, block = 4, 50, 64 << 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := bytes.Repeat([]byte{byte('a' + w)}, block)
			for range writes {
				if _, err := server.Write(msg); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	client.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(io.LimitReader(client, writers*writes*block))
	server.Close() // unblocks writers whose bytes went missing
	wg.Wait()
	if err != nil || len(got) != writers*writes*block {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	for i := 0; i < len(got); i += block {
		if b := got[i : i+block]; bytes.Count(b, b[:1]) != block {
			t.Fatalf("block at %d is interleaved", i)
		}
	}
}

// TLS runs over a rawConn as over any net.Conn (ServeTLS wraps the
// listener's connections).
func TestRawConnUnderTLS(t *testing.T) {
	certFile, keyFile, pool := testcert.SelfSigned(t)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	server, client := rawPair(t)
	ts := tls.Server(server, &tls.Config{Certificates: []tls.Certificate{cert}})
	tc := tls.Client(client, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	want := bytes.Repeat([]byte("stocknode "), 100_000)
	go func() {
		if _, err := tc.Write(want); err != nil {
			t.Error(err)
		}
	}()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(ts, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("TLS over rawConn changed the bytes")
	}
}
