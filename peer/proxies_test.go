package peer

import (
	"net/netip"
	"testing"
)

func TestProxiesClient(t *testing.T) {
	proxies, err := ParseProxies("10.0.0.0/8, 192.0.2.1 ,2001:db8::/32")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, socket, xff, want string
	}{
		{"no proxy, header ignored", "198.51.100.7", "203.0.113.9", "198.51.100.7"},
		{"untrusted socket spoofs", "198.51.100.7", "10.1.1.1, 203.0.113.9", "198.51.100.7"},
		{"one trusted hop", "10.0.0.5", "203.0.113.9", "203.0.113.9"},
		{"client's own forged entry is skipped", "10.0.0.5", "1.2.3.4, 203.0.113.9", "203.0.113.9"},
		{"two trusted hops", "10.0.0.5", "203.0.113.9, 192.0.2.1", "203.0.113.9"},
		{"trusted, no header", "10.0.0.5", "", "10.0.0.5"},
		{"malformed entry", "10.0.0.5", "203.0.113.9, bogus", "10.0.0.5"},
		{"only proxies", "10.0.0.5", "10.9.9.9", "10.9.9.9"},
		{"IPv6 proxy", "2001:db8::1", "2001:db9::42", "2001:db9::42"},
		{"mapped socket", "::ffff:10.0.0.5", "203.0.113.9", "203.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := proxies.Client(netip.MustParseAddr(tt.socket), []byte(tt.xff))
			if got != netip.MustParseAddr(tt.want) {
				t.Fatalf("Client = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseProxiesErrors(t *testing.T) {
	for _, in := range []string{"10.0.0.0/33", "not-an-ip", "10.0.0.1/x"} {
		if _, err := ParseProxies(in); err == nil {
			t.Errorf("ParseProxies(%q) accepted", in)
		}
	}
	if p, err := ParseProxies(""); err != nil || len(p) != 0 {
		t.Fatalf("empty list: %v, %v", p, err)
	}
}
