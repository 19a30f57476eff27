package httpserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stocknode/stocknode/peer"
)

// flakyListener fails its first accepts with errno, as a process out of
// file descriptors does.
type flakyListener struct {
	net.Listener
	fails int
	errno syscall.Errno
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.fails > 0 {
		l.fails--
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", l.errno)}
	}
	return l.Listener.Accept()
}

func TestAcceptSurvivesTemporaryErrors(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ECONNABORTED} {
		t.Run(errno.Error(), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			l := newListener(&flakyListener{Listener: ln, fails: 3, errno: errno}, 0, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
			go func() {
				if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
					defer c.Close()
					time.Sleep(time.Second)
				}
			}()
			c, err := l.Accept()
			if err != nil {
				t.Fatalf("Accept after %v = %v, want the next connection", errno, err)
			}
			c.Close()
		})
	}
	// A closed listener ends the loop.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	l := newListener(ln, 0, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ln.Close()
	if _, err := l.Accept(); err == nil || temporary(err) {
		t.Fatalf("Accept on a closed listener = %v", err)
	}
}

// dialRead connects, sends req (if any) and reads until the server closes
// or a second passes.
func dialRead(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if req != "" {
		io.WriteString(c, req)
	}
	c.SetReadDeadline(time.Now().Add(time.Second))
	b, _ := io.ReadAll(c)
	return string(b)
}

func TestConnectionCaps(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxConns, cfg.MaxConnsPerIP = 4, 2
	url := start(t, cfg, echoRPC{}, healthy)
	addr := strings.TrimPrefix(url, "http://")
	var held []net.Conn
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	got := dialRead(t, addr, "")
	if !strings.HasPrefix(got, "HTTP/1.1 429 ") || !strings.Contains(got, "--http.maxconns-per-ip") || !strings.Contains(got, "\r\nX-Content-Type-Options: nosniff\r\n") {
		t.Fatalf("third connection from one address: %q", got)
	}
	for _, c := range held {
		c.Close()
	}
	// Once they close, the address may connect again.
	waitStatus(t, url+"/health", 200)
}

func TestTotalConnectionCap(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxConns = 2
	url := start(t, cfg, echoRPC{}, healthy)
	addr := strings.TrimPrefix(url, "http://")
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	if got := dialRead(t, addr, ""); !strings.HasPrefix(got, "HTTP/1.1 503 ") || !strings.Contains(got, "--http.maxconns") || !strings.Contains(got, "\r\nX-Content-Type-Options: nosniff\r\n") {
		t.Fatalf("connection over the cap: %q", got)
	}
}

// waitStatus polls url until it answers want; the bound only keeps a
// broken server from hanging the test.
func waitStatus(t *testing.T, url string, want int) {
	t.Helper()
	for i := 0; ; i++ {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == want {
				return
			}
		}
		if i == 1000 {
			t.Fatalf("%s never answered %d (last: %v)", url, want, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A request framed both by Content-Length and by Transfer-Encoding is
// refused and its connection closed: nothing after it runs.
func TestFramingConflictRefused(t *testing.T) {
	url := start(t, DefaultConfig(), echoRPC{}, healthy)
	addr := strings.TrimPrefix(url, "http://")
	smuggled := "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
	tests := []struct{ name, req string }{
		{"empty chunked body", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled},
		{"chunked body", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + smuggled},
		{"identity", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: identity\r\nContent-Length: 2\r\n\r\n{}" + smuggled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dialRead(t, addr, tt.req)
			if !strings.HasPrefix(got, "HTTP/1.1 400 ") || !strings.Contains(got, "Content-Length and Transfer-Encoding") {
				t.Fatalf("answer %q, want 400 naming both headers", got)
			}
			if n := strings.Count(got, "HTTP/1.1 "); n != 1 {
				t.Fatalf("%d responses on the connection, want 1: %q", n, got)
			}
		})
	}
}

// Error answers never quote the request.
func TestErrorBodiesDoNotEcho(t *testing.T) {
	url := start(t, DefaultConfig(), echoRPC{}, healthy)
	addr := strings.TrimPrefix(url, "http://")
	for _, req := range []string{
		"<script>alert(1)</script> / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nX-<script>: y\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: <script>\r\n\r\n",
	} {
		got := dialRead(t, addr, req)
		if !strings.HasPrefix(got, "HTTP/1.1 400 ") || strings.Contains(got, "script") {
			t.Errorf("answer to %q: %q", req, got)
		}
	}
}

// limitedRPC says every client is over its rate limit, and records the
// client it was given.
type limitedRPC struct {
	mu   sync.Mutex
	seen []string
}

func (l *limitedRPC) Serve(p *peer.Peer, _, dst []byte) ([]byte, time.Duration) {
	l.mu.Lock()
	l.seen = append(l.seen, p.Addr.String())
	l.mu.Unlock()
	return append(dst, `{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"rate limited"}}`...), 1500 * time.Millisecond
}

func TestRateLimitedAnswer(t *testing.T) {
	rpc := new(limitedRPC)
	cfg := DefaultConfig()
	cfg.TrustedProxies, _ = peer.ParseProxies("127.0.0.1")
	url := start(t, cfg, rpc, healthy)
	resp := post(t, url, "application/json", `{}`, nil)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("rate limited: %d, Retry-After %q; want 429 and 2", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	post(t, url, "application/json", `{}`, map[string]string{"X-Forwarded-For": "198.51.100.1, 203.0.113.5"})
	rpc.mu.Lock()
	defer rpc.mu.Unlock()
	if len(rpc.seen) != 2 || rpc.seen[0] != "127.0.0.1" || rpc.seen[1] != "203.0.113.5" {
		t.Fatalf("clients seen: %v, want 127.0.0.1 then the proxied 203.0.113.5", rpc.seen)
	}
}

func TestTemporary(t *testing.T) {
	if temporary(errors.New("use of closed network connection")) {
		t.Fatal("a closed listener is temporary")
	}
	if !temporary(&net.OpError{Err: os.NewSyscallError("accept4", syscall.EMFILE)}) {
		t.Fatal("EMFILE is not temporary")
	}
}

// A client that sends its headers a byte at a time is cut off at the
// header timeout; a large body gets the read timeout after its headers.
func TestHeaderAndBodyTimeouts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HeaderTimeout, cfg.ReadTimeout = 300*time.Millisecond, 10*time.Second
	url := start(t, cfg, echoRPC{}, healthy)
	addr := strings.TrimPrefix(url, "http://")

	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	header := "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Slow: " + strings.Repeat("a", 100)
	for i := 0; i < len(header); i++ { // 3 s for the whole header, ten header timeouts
		if _, err := slow.Write([]byte{header[i]}); err != nil {
			break // cut off
		}
		time.Sleep(20 * time.Millisecond)
	}
	slow.SetReadDeadline(time.Now().Add(2 * time.Second))
	b, err := io.ReadAll(slow)
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		t.Fatalf("a header sent over 3 s was not cut off (read %q)", b)
	}
	if len(b) > 0 && !strings.Contains(string(b), " 408 ") {
		t.Fatalf("slow header answered %q", b)
	}

	big, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	const size = 100 << 10
	fmt.Fprintf(big, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", size)
	body := strings.Repeat(" ", size)
	for i := 0; i < 10; i++ { // a second in all, past the header timeout
		io.WriteString(big, body[i*size/10:(i+1)*size/10])
		time.Sleep(100 * time.Millisecond)
	}
	status, err := bufio.NewReader(big).ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("large body sent over a second: %q, %v", status, err)
	}
}

// Silent connections wait at the gate, costing no goroutine, and are
// closed without a word at the header timeout; one that speaks is served.
func TestSilentConnectionsHeldAtTheGate(t *testing.T) {
	cfg := DefaultConfig()
	// Long enough that all the connections are open at once on a loaded
	// machine before the first is closed.
	cfg.HeaderTimeout = 3 * time.Second
	s := New(cfg, echoRPC{}, healthy)
	url := serve(t, s)
	addr := s.Addr().String()
	waitStatus(t, url+"/health", 200)

	before := runtime.NumGoroutine()
	const n = 200
	silent := make([]net.Conn, n)
	for i := range silent {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		silent[i] = c
	}
	eventually(t, "the server holds the silent connections", func() bool { open, _ := s.Conns(); return open >= n })
	if grown := runtime.NumGoroutine() - before; grown > n/10 {
		t.Fatalf("%d silent connections started %d goroutines", n, grown)
	}
	if resp, err := http.Get("http://" + addr + "/health"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a client that speaks: %v, %v", resp, err)
	}
	for _, c := range silent {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if b, err := io.ReadAll(c); err != nil || len(b) != 0 {
			t.Fatalf("silent connection: read %q, %v; want a close without a word", b, err)
		}
	}
	eventually(t, "the silent connections are forgotten", func() bool { open, _ := s.Conns(); return open <= 1 })
}

// eventually polls cond; the bound only keeps a broken server from hanging
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
