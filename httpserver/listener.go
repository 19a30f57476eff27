package httpserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/stocknode/stocknode/internal/rawconn"
	"github.com/stocknode/stocknode/peer"
)

// listener is the public port's accept loop. It never gives up: errors
// that mean "not now" (out of file descriptors, out of buffers, a
// connection reset before it was accepted) are logged, rate-limited, and
// retried with a backoff, where fasthttp's own loop would return and leave
// the port dead for good. It also caps connections, in all and per client
// address, refusing the excess at once with a response that says why,
// holds each connection at a gate until its first byte arrives, and hands
// out connections that know their client (trackedConn).
type listener struct {
	net.Listener
	log     *slog.Logger
	maxAll  int // 0: no cap
	maxPer  int // 0: no cap
	retries accept
	gate    *gate // nil: connections are handed out as they come
	errc    chan error

	mu    sync.Mutex
	total int
	perIP map[netip.Addr]int

	refused atomic.Uint64
}

// accept paces retries after temporary accept errors and their logs.
type accept struct {
	backoff time.Duration
	logged  time.Time
	skipped int
}

const (
	minAcceptBackoff = 5 * time.Millisecond
	maxAcceptBackoff = time.Second
	acceptLogEvery   = 10 * time.Second
)

func newListener(ln net.Listener, maxAll, maxPer int, log *slog.Logger) *listener {
	return &listener{Listener: ln, log: log, maxAll: maxAll, maxPer: maxPer, perIP: make(map[netip.Addr]int)}
}

// gateFor holds connections at a gate until their first byte, closing
// those silent for timeout; Accept then returns connections from it.
func (l *listener) gateFor(timeout time.Duration) error {
	g, err := newGate(timeout)
	if err != nil {
		return fmt.Errorf("connection gate: %w", err)
	}
	l.gate, l.errc = g, make(chan error, 1)
	go func() {
		for {
			c, err := l.accept()
			if err != nil {
				l.errc <- err
				return
			}
			g.add(c)
		}
	}()
	return nil
}

// Accept returns the next connection within the caps (that has spoken,
// with a gate).
func (l *listener) Accept() (net.Conn, error) {
	if l.gate == nil {
		return l.accept()
	}
	select {
	case c := <-l.gate.ready:
		return c, nil
	case err := <-l.errc:
		l.errc <- err // for the next caller
		return nil, err
	}
}

// Close stops accepting and closes the connections held at the gate.
func (l *listener) Close() error {
	err := l.Listener.Close()
	if l.gate != nil {
		l.gate.close()
	}
	return err
}

// accept takes the next connection within the caps from the socket.
func (l *listener) accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if !temporary(err) {
				return nil, err
			}
			l.retries.wait(err, l.log)
			continue
		}
		l.retries.backoff = 0
		if tc, ok := l.admit(c); ok {
			return tc, nil
		}
	}
}

// temporary reports whether an accept error will pass: the process or the
// system is out of descriptors or memory for a moment, or one connection
// went away before it was taken.
func temporary(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EPERM, syscall.EPROTO, syscall.EINTR:
		return true
	}
	return false
}

// wait sleeps before the next accept, twice as long as the last time up to
// a second, and logs at most once per acceptLogEvery.
func (a *accept) wait(err error, log *slog.Logger) {
	a.backoff = min(max(2*a.backoff, minAcceptBackoff), maxAcceptBackoff)
	if now := time.Now(); now.Sub(a.logged) >= acceptLogEvery {
		log.Warn("Accepting connections failed; retrying", "err", err, "backoff", a.backoff, "suppressed", a.skipped,
			"hint", "out of file descriptors: lower --http.maxconns or raise the process's limit (ulimit -n)")
		a.logged, a.skipped = now, 0
	} else {
		a.skipped++
	}
	time.Sleep(a.backoff)
}

// admit counts c against the caps, or refuses it.
func (l *listener) admit(c net.Conn) (net.Conn, bool) {
	addr := peer.RemoteAddr(c)
	key := peer.KeyOf(addr)
	l.mu.Lock()
	switch {
	case l.maxAll > 0 && l.total >= l.maxAll:
		l.mu.Unlock()
		l.refuse(c, 503, "Service Unavailable", fmt.Sprintf("too many connections: the server holds its limit of %d (--http.maxconns); try again later", l.maxAll))
		return nil, false
	case l.maxPer > 0 && l.perIP[key] >= l.maxPer:
		l.mu.Unlock()
		l.refuse(c, 429, "Too Many Requests", fmt.Sprintf("too many connections from %s: at most %d per client (--http.maxconns-per-ip); reuse keep-alive connections", addr, l.maxPer))
		return nil, false
	}
	l.total++
	l.perIP[key]++
	l.mu.Unlock()
	return newTrackedConn(c, l, key, addr), true
}

// release forgets a closed connection.
func (l *listener) release(key netip.Addr) {
	l.mu.Lock()
	l.total--
	if n := l.perIP[key] - 1; n > 0 {
		l.perIP[key] = n
	} else {
		delete(l.perIP, key)
	}
	l.mu.Unlock()
}

// refuse answers c with status and why, then closes it. The write goes to
// a fresh socket's empty buffer, so it does not wait; the deadline only
// guards against the impossible.
func (l *listener) refuse(c net.Conn, status int, text, why string) {
	l.refused.Add(1)
	c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s\n",
		status, text, len(why)+1, why)
	c.Close()
}

// Conns reports open connections and those refused at the caps so far.
func (l *listener) Conns() (open int, refused uint64) {
	l.mu.Lock()
	open = l.total
	l.mu.Unlock()
	return open, l.refused.Load()
}

// trackedConn is an accepted connection that knows its client and leaves
// the listener's counts when it closes.
type trackedConn struct {
	net.Conn
	l      *listener
	key    netip.Addr
	peer   *peer.Peer
	closed atomic.Bool
}

func newTrackedConn(c net.Conn, l *listener, key, addr netip.Addr) *trackedConn {
	if tc, ok := c.(*net.TCPConn); ok {
		c = rawconn.Wrap(tc)
	}
	return &trackedConn{Conn: c, l: l, key: key, peer: peer.New(addr, peer.RawConn(c))}
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	if c.closed.CompareAndSwap(false, true) {
		c.l.release(c.key)
	}
	return err
}

// SyscallConn is the socket's, for code that writes to it itself (the
// WebSocket broadcaster) and for hang-up checks.
func (c *trackedConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("connection has no socket")
	}
	return sc.SyscallConn()
}

// connPeer is the client of c (looking through TLS), or nil when c was
// not accepted by a listener.
func connPeer(c net.Conn) *peer.Peer {
	for {
		switch u := c.(type) {
		case *trackedConn:
			return u.peer
		case interface{ NetConn() net.Conn }:
			c = u.NetConn()
		default:
			return nil
		}
	}
}
