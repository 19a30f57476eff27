package peer

import (
	"net"
	"net/netip"
	"testing"
	"time"
)

// pair returns the server's end of a loopback TCP connection and the client's.
func pair(t *testing.T) (server, client *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return s.(*net.TCPConn), c.(*net.TCPConn)
}

func TestGone(t *testing.T) {
	tests := []struct {
		name string
		act  func(t *testing.T, server, client *net.TCPConn)
		want bool
	}{
		{"connected and quiet", func(*testing.T, *net.TCPConn, *net.TCPConn) {}, false},
		{"unread data waiting", func(t *testing.T, _, c *net.TCPConn) { write(t, c, "next request") }, false},
		{"closed", func(t *testing.T, _, c *net.TCPConn) { c.Close() }, true},
		{"unread data, then closed", func(t *testing.T, _, c *net.TCPConn) { write(t, c, "close frame"); c.Close() }, true},
		{"reset", func(t *testing.T, _, c *net.TCPConn) { c.SetLinger(0); c.Close() }, true},
		{"closed on our side", func(t *testing.T, s, _ *net.TCPConn) { s.Close() }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := pair(t)
			p := FromConn(s)
			tt.act(t, s, c)
			if tt.want {
				waitGone(t, p)
				return
			}
			if p.Gone() {
				t.Fatal("Gone() = true for a connected client")
			}
		})
	}
}

func write(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := c.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// waitGone polls until the FIN or RST has crossed loopback (it is not
// instantaneous); the bound only keeps a broken Gone from spinning forever.
func waitGone(t *testing.T, p *Peer) {
	t.Helper()
	for i := 0; !p.Gone(); i++ {
		if i == 10_000 {
			t.Fatal("Gone() never turned true")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestNilAndSocketless(t *testing.T) {
	var p *Peer
	if p.Gone() {
		t.Fatal("nil peer is gone")
	}
	if New(netip.MustParseAddr("10.0.0.1"), nil).Gone() {
		t.Fatal("peer without a socket is gone")
	}
}

func TestKey(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"192.0.2.7", "192.0.2.7"},
		{"::ffff:192.0.2.7", "192.0.2.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::"},
	}
	for _, tt := range tests {
		if got := New(netip.MustParseAddr(tt.addr), nil).Key(); got != netip.MustParseAddr(tt.want) {
			t.Errorf("Key(%s) = %s, want %s", tt.addr, got, tt.want)
		}
	}
}
