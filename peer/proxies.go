package peer

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
)

// Proxies are the reverse proxies whose X-Forwarded-For may be believed
// (--rpc.trusted-proxies). Anyone else can write any address into that
// header, so a client's address comes from it only through a trusted hop.
type Proxies []netip.Prefix

// ParseProxies parses a comma-separated list of addresses and CIDR prefixes.
func ParseProxies(list string) (Proxies, error) {
	var out Proxies
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: %w", s, err)
			}
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", s, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Trusts reports whether a is one of the proxies.
func (ps Proxies) Trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Client is the address of the client behind socket, the connection's
// peer, given the X-Forwarded-For header xff (empty if none): the last
// address in the chain that is not a trusted proxy, read from the right,
// since each trusted hop appends the address it received from. An
// untrusted socket, a malformed entry or a chain of only proxies leaves
// the client at the last address that could be believed.
func (ps Proxies) Client(socket netip.Addr, xff []byte) netip.Addr {
	client := socket.Unmap()
	for len(xff) > 0 && ps.Trusts(client) {
		i := bytes.LastIndexByte(xff, ',')
		hop := bytes.TrimSpace(xff[i+1:])
		xff = xff[:max(i, 0)]
		a, err := netip.ParseAddr(string(hop))
		if err != nil {
			break
		}
		client = a.Unmap()
	}
	return client
}
