package httpload

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestPostConn: the lean client posts each body whole, reads answers of
// every framing the anchors use (a Content-Length, a chunked body larger
// than its buffer, a connection the server closes after its answer), and
// dials again after a close.
func TestPostConn(t *testing.T) {
	large := strings.Repeat("x", 100<<10)
	var conns atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || r.ContentLength != int64(len(body)) {
			http.Error(w, "malformed request", http.StatusBadRequest)
			return
		}
		switch string(body) {
		case "chunked":
			w.Write([]byte(large[:len(large)/2]))
			w.(http.Flusher).Flush() // no Content-Length: chunked
			w.Write([]byte(large[len(large)/2:]))
		case "close":
			w.Header().Set("Connection", "close")
			w.Write(body)
		default:
			w.Write(body)
		}
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()

	c := newPostConn(ln.Addr().String(), "/rpc", ln.Addr().String(), 5*time.Second)
	defer c.close()
	resp := new(fasthttp.Response)
	for i, tt := range []struct {
		body, want string
		conns      int32
	}{
		{`{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1}`, 1},
		{"chunked", large, 1},
		{"close", "close", 1},
		{`{"id":2}`, `{"id":2}`, 2}, // dialled again
		{`{"id":3}`, `{"id":3}`, 2},
	} {
		if err := c.do([]byte(tt.body), resp, time.Now()); err != nil {
			t.Fatalf("request %d (%.20s): %v", i, tt.body, err)
		}
		if resp.StatusCode() != http.StatusOK || !bytes.Equal(resp.Body(), []byte(tt.want)) {
			t.Fatalf("request %d (%.20s): HTTP %d, %d bytes %.40q; want %d bytes", i, tt.body, resp.StatusCode(), len(resp.Body()), resp.Body(), len(tt.want))
		}
		if n := conns.Load(); n != tt.conns {
			t.Fatalf("request %d (%.20s): %d connections, want %d", i, tt.body, n, tt.conns)
		}
	}
}
