// Package target vets and splits the URLs the load tools are pointed at:
// only loopback targets are accepted.
package target

import (
	"errors"
	"fmt"
	"net"
	"net/url"
)

// CheckLoopback refuses any target that is not on this machine.
func CheckLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("target %q: %w", raw, err)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return errors.New("target " + raw + " is not a loopback address: load tests only run against this machine")
}

// HostAndPath splits an http URL into fasthttp's dial address and the request URI.
func HostAndPath(raw string) (addr, uri, host string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", "", err
	}
	if u.Scheme != "http" {
		return "", "", "", fmt.Errorf("%s: only http:// targets", raw)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	uri = u.RequestURI()
	if uri == "" {
		uri = "/"
	}
	return net.JoinHostPort(u.Hostname(), port), uri, u.Host, nil
}
