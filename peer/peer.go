// Package peer describes the client at the other end of a request: its
// address, which keys per-client limits, shares and fairness, and whether it
// has hung up, which stops the work done for it.
package peer

import (
	"net"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// Peer is one client as the transport sees it. A transport makes one per
// connection (or per request when a trusted proxy names the client) and
// hands it to the RPC layer; nothing in it changes afterwards.
type Peer struct {
	// Addr is the client's address: the socket's peer, or the address a
	// trusted proxy forwarded.
	Addr netip.Addr
	// raw is the connection's socket, for Gone; nil when there is none.
	raw syscall.RawConn
}

// New describes the client at addr on the socket raw (may be nil).
func New(addr netip.Addr, raw syscall.RawConn) *Peer {
	return &Peer{Addr: addr.Unmap(), raw: raw}
}

// FromConn describes the client on c: its remote address and its socket
// when c exposes one (a TLS connection is looked through).
func FromConn(c net.Conn) *Peer {
	return New(RemoteAddr(c), RawConn(c))
}

// RemoteAddr is c's remote IP address, or the zero Addr if it has none.
func RemoteAddr(c net.Conn) netip.Addr {
	if tcp, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return tcp.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// RawConn is the socket under c (under a TLS connection, its transport),
// or nil.
func RawConn(c net.Conn) syscall.RawConn {
	for {
		switch u := c.(type) {
		case interface{ NetConn() net.Conn }: // *tls.Conn
			c = u.NetConn()
			continue
		case syscall.Conn:
			raw, err := u.SyscallConn()
			if err != nil {
				return nil
			}
			return raw
		}
		return nil
	}
}

// Key is the unit per-client limits count in: the address itself for
// IPv4, its /64 for IPv6, since one IPv6 subscriber holds a whole /64.
func (p *Peer) Key() netip.Addr { return KeyOf(p.Addr) }

// KeyOf is Key for an address.
func KeyOf(a netip.Addr) netip.Addr {
	if a.Is6() {
		if pfx, err := a.Prefix(64); err == nil {
			return pfx.Addr()
		}
	}
	return a
}

// Gone reports whether the client has hung up: the peer closed or reset
// its end of the connection. It asks the kernel without reading, so bytes
// the client sent but nobody read yet (a pipelined request, a WebSocket
// close frame) do not hide a hang-up behind them (POLLRDHUP). A client that
// only shut down its sending side while it waits for the answer counts as
// gone, as Go's net/http treats it. It costs one poll(2); callers use it
// for work that has already taken a while, not on every request.
func (p *Peer) Gone() bool {
	if p == nil || p.raw == nil {
		return false
	}
	gone := false
	err := p.raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		n, err := unix.Poll(fds, 0)
		gone = err == nil && n > 0 && fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
	})
	// A socket already closed on our side has nobody left to answer.
	return gone || err != nil
}

// As is p's connection seen as the client at addr: a trusted proxy's
// connection carries many clients.
func (p *Peer) As(addr netip.Addr) *Peer { return &Peer{Addr: addr.Unmap(), raw: p.raw} }
