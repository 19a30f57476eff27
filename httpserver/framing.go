package httpserver

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// A request with both Content-Length and Transfer-Encoding can be framed
// two ways. fasthttp reads it by Transfer-Encoding and keeps the
// connection; a proxy in front that went by Content-Length then sees the
// bytes fasthttp left over run as a second request that the proxy never
// checked (request smuggling). RFC 9112 6.3 asks a server to treat such a
// message as an error and close the connection, which is what happens here:
// headerReceived frames the request as bodyless so that nothing more is
// read from the connection, serve answers it 400, and the connection closes.

const errFramingConflict = "request has both Content-Length and Transfer-Encoding: send one of them"

// smallBody is the largest body that must arrive within HeaderTimeout,
// with the headers; a larger one, or a chunked one, gets ReadTimeout.
const smallBody = 64 << 10

// headerReceived runs once a request's headers are read, before its body.
// It refuses a request framed twice, and gives a large body its own time
// to arrive. Small bodies (nearly every JSON-RPC request) come with their
// headers and cost nothing here.
func (s *Server) headerReceived(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if framingConflict(h) {
		h.SetContentLength(0) // the raw headers keep both for serve to see
		h.SetConnectionClose()
		return fasthttp.RequestConfig{}
	}
	if n := h.ContentLength(); (n > smallBody || n == -1) && s.cfg.ReadTimeout > s.cfg.HeaderTimeout {
		return fasthttp.RequestConfig{ReadTimeout: s.cfg.ReadTimeout}
	}
	return fasthttp.RequestConfig{}
}

var (
	transferEncoding = []byte("transfer-encoding:")
	contentLength    = []byte("content-length:")
)

// framingConflict reports whether h has both framing headers. fasthttp
// drops a Transfer-Encoding other than chunked from its parsed headers,
// so the raw ones are read.
func framingConflict(h *fasthttp.RequestHeader) bool {
	raw := h.RawHeaders()
	return hasHeader(raw, transferEncoding) && hasHeader(raw, contentLength)
}

// hasHeader reports whether raw header lines have one named name (lower
// case, with its colon).
func hasHeader(raw, name []byte) bool {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if len(line) >= len(name) && line[0]|0x20 == name[0] && bytes.EqualFold(line[:len(name)], name) {
			return true
		}
	}
	return false
}
