package abuse

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/stocknode/stocknode/loadtest/target"
)

// The HTTP framing checks: requests a conforming server must refuse, and
// how it refuses them. They are written to a raw connection: an HTTP
// Client would not send them.

// rawResponse is one response read off a raw connection.
type rawResponse struct {
	status int
	body   string
}

// rawExchange sends request on a new connection from the attacker's
// address and reads every response until the server closes the
// connection or is silent for the step timeout; closed says which.
func (b *battery) rawExchange(ctx context.Context, request string) (rs []rawResponse, closed bool, err error) {
	addr, _, _, err := target.HostAndPath(b.cfg.URL)
	if err != nil {
		return nil, false, err
	}
	conn, err := b.attackerDialer(b.cfg.StepTimeout).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	conn.SetDeadline(time.Now().Add(b.cfg.StepTimeout))
	if _, err := io.WriteString(conn, request); err != nil {
		return nil, false, fmt.Errorf("send: %w", err)
	}
	br := bufio.NewReader(conn)
	for {
		conn.SetReadDeadline(time.Now().Add(b.cfg.StepTimeout))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return rs, false, nil
			}
			return rs, true, nil // EOF or reset: the server ended the connection
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		rs = append(rs, rawResponse{status: resp.StatusCode, body: string(body)})
		if err != nil {
			return rs, !errors.Is(err, os.ErrDeadlineExceeded), nil
		}
	}
}

func statuses(rs []rawResponse) string {
	if len(rs) == 0 {
		return "no response"
	}
	var s []string
	for _, r := range rs {
		s = append(s, fmt.Sprintf("HTTP %d", r.status))
	}
	return strings.Join(s, ", ")
}

// clTE sends a request with both Content-Length and Transfer-Encoding:
// chunked, whose Content-Length covers the chunked body and a second
// request after it. A server that reads the chunked body runs the bytes
// after it as a request of their own: request smuggling behind any proxy
// that goes by Content-Length. The answer must be 400 and a closed
// connection.
func (b *battery) clTE(ctx context.Context) outcome {
	var out outcome
	_, uri, host, err := target.HostAndPath(b.cfg.URL)
	if err != nil {
		out.err = err
		return out
	}
	front := `{"jsonrpc":"2.0","id":"front","method":"eth_chainId","params":[]}`
	inner := `{"jsonrpc":"2.0","id":"smuggled","method":"eth_chainId","params":[]}`
	smuggled := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", uri, host, len(inner), inner)
	body := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(front), front) + smuggled
	request := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n%s",
		uri, host, len(body), body)
	rs, closed, err := b.rawExchange(ctx, request)
	if err != nil {
		out.err = err
		return out
	}
	out.detailf("Content-Length %d with Transfer-Encoding: chunked: %s, connection %s", len(body), statuses(rs), map[bool]string{true: "closed", false: "left open"}[closed])
	for _, r := range rs {
		if strings.Contains(r.body, `"smuggled"`) {
			out.unexpectedf("the bytes after the chunked body ran as a second request (answered %q)", truncate(r.body, 100))
			break
		}
	}
	switch {
	case len(rs) == 0:
		out.unexpectedf("no answer (want 400)")
	case rs[0].status != http.StatusBadRequest:
		out.unexpectedf("answered HTTP %d (want 400)", rs[0].status)
	}
	if !closed {
		out.unexpectedf("the connection stayed open after the answer (want it closed)")
	}
	return out
}

// badRequestEcho sends malformed requests that carry a marker and checks
// that no error answer repeats it: a 400 that echoes the raw request
// reflects whatever an attacker puts in it.
func (b *battery) badRequestEcho(ctx context.Context) outcome {
	var out outcome
	_, uri, host, err := target.HostAndPath(b.cfg.URL)
	if err != nil {
		out.err = err
		return out
	}
	var nonce [6]byte
	rand.Read(nonce[:])
	marker := "abuse-echo-" + hex.EncodeToString(nonce[:])
	cases := []struct{ what, request string }{
		{"request line without a version", "GET /" + marker + "\r\n\r\n"},
		{"header line without a colon", fmt.Sprintf("GET /health HTTP/1.1\r\nHost: %s\r\n%s\r\n\r\n", host, marker)},
		{"Content-Length not a number", fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n", uri, host, marker)},
		{"chunk size not hex", fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%s\r\n{}\r\n0\r\n\r\n", uri, host, marker)},
	}
	for _, c := range cases {
		rs, _, err := b.rawExchange(ctx, c.request)
		if err != nil {
			out.detailf("%s: %v", c.what, err)
			continue
		}
		out.detailf("%s: %s", c.what, statuses(rs))
		for _, r := range rs {
			if strings.Contains(r.body, marker) {
				out.unexpectedf("%s: the HTTP %d body echoes the request: %q", c.what, r.status, truncate(r.body, 120))
				break
			}
		}
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
