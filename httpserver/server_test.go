package httpserver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/peer"
)

// echoRPC answers every body with a fixed-size result.
type echoRPC struct{ size int }

func (e echoRPC) Serve(_ *peer.Peer, body, dst []byte) ([]byte, time.Duration) {
	dst = append(dst, `{"jsonrpc":"2.0","id":1,"result":"`...)
	dst = append(dst, strings.Repeat("a", e.size)...)
	return append(dst, `"}`...), 0
}

func start(t *testing.T, cfg Config, rpc RPC, health Health) string {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	return serve(t, New(cfg, rpc, health))
}

// serve binds s to a free port and serves until the test ends; it returns
// the base URL.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	s.cfg.Addr = "127.0.0.1:0"
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + s.Addr().String()
}

func healthy() ([]byte, bool) { return []byte(`{"head":42}`), true }

func post(t *testing.T, url, contentType, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestRPCRequests(t *testing.T) {
	url := start(t, DefaultConfig(), echoRPC{size: 10}, healthy)
	tests := []struct {
		name        string
		contentType string
		body        string
		want        int
	}{
		{"json", "application/json", `{}`, 200},
		{"json with charset", "application/json; charset=utf-8", `{}`, 200},
		{"wrong content type", "text/plain", `{}`, 415},
		{"no content type", "", `{}`, 415},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, url, tt.contentType, tt.body, nil)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
	// A 6 MiB body is refused from its Content-Length, before it is read.
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 6*1024*1024)
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(status, " 413 ") {
		t.Fatalf("6 MiB body: %q, %v", status, err)
	}
	// The server still answers after a rejected body.
	if resp := post(t, url, "application/json", `{}`, nil); resp.StatusCode != 200 {
		t.Fatalf("after rejections: %d", resp.StatusCode)
	}
}

func TestGzipOnlyForLargeResponses(t *testing.T) {
	url := start(t, DefaultConfig(), echoRPC{size: 4096}, healthy)
	resp := post(t, url, "application/json", `{}`, map[string]string{"Accept-Encoding": "gzip"})
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatal("large response not gzipped")
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if !bytes.Contains(body, []byte(strings.Repeat("a", 4096))) {
		t.Fatalf("gunzipped body has %d bytes", len(body))
	}
	small := start(t, DefaultConfig(), echoRPC{size: 10}, healthy)
	if resp := post(t, small, "application/json", `{}`, map[string]string{"Accept-Encoding": "gzip"}); resp.Header.Get("Content-Encoding") != "" {
		t.Fatal("small response gzipped")
	}
}

func TestCORS(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CORS = []string{"https://app.example"}
	url := start(t, cfg, echoRPC{}, healthy)
	if got := post(t, url, "application/json", `{}`, map[string]string{"Origin": "https://app.example"}).Header.Get("Access-Control-Allow-Origin"); got != "https://app.example" {
		t.Fatalf("allowed origin: %q", got)
	}
	if got := post(t, url, "application/json", `{}`, map[string]string{"Origin": "https://evil.example"}).Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("other origin allowed: %q", got)
	}
	// A page's JSON POST with a captcha token (the faucet's drip) is
	// preflighted on every path, mounted APIs' included.
	for _, path := range []string{"/", "/api/preview/faucet/drip"} {
		req, _ := http.NewRequest(http.MethodOptions, url+path, nil)
		req.Header.Set("Origin", "https://app.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type,x-captcha-token")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 204 || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
			t.Fatalf("preflight %s: %d %v", path, resp.StatusCode, resp.Header)
		}
		allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
		for _, h := range []string{"content-type", "x-captcha-token"} {
			if !slices.Contains(strings.Split(strings.ReplaceAll(allowed, " ", ""), ","), h) {
				t.Errorf("preflight %s: request header %s not allowed (%q)", path, h, allowed)
			}
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "https://app.example" {
			t.Errorf("preflight %s: allowed origin %q", path, got)
		}
	}
}

func TestHealthAndRoutes(t *testing.T) {
	stale := false
	url := start(t, DefaultConfig(), echoRPC{}, func() ([]byte, bool) { return []byte(`{"head":7}`), !stale })
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"head":7}` || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("health: %d %s %v", resp.StatusCode, body, resp.Header)
	}
	stale = true
	if resp, _ := http.Get(url + "/health"); resp.StatusCode != 503 {
		t.Fatalf("stale health: %d", resp.StatusCode)
	}
	if resp, _ := http.Get(url + "/nope"); resp.StatusCode != 404 {
		t.Fatalf("unknown path: %d", resp.StatusCode)
	}
}

func TestMountAndNotFound(t *testing.T) {
	s := New(DefaultConfig(), echoRPC{}, healthy)
	s.Mount("/api/", func(ctx *fasthttp.RequestCtx) {
		fmt.Fprintf(ctx, "api %s %s", ctx.Method(), ctx.Path())
	})
	s.Handle("/page", func(ctx *fasthttp.RequestCtx) { ctx.WriteString("page") })
	s.NotFound(func(ctx *fasthttp.RequestCtx) {
		ctx.SetStatusCode(fasthttp.StatusNotFound)
		fmt.Fprintf(ctx, "nothing at %s %s", ctx.Method(), ctx.Path())
	})
	url := serve(t, s)
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/api/x", 200, "api GET /api/x"},
		{"DELETE", "/api/x", 200, "api DELETE /api/x"},
		{"HEAD", "/api/x", 200, ""},
		{"GET", "/page", 200, "page"},
		{"HEAD", "/page", 200, ""},
		{"PUT", "/page", 404, "nothing at PUT /page"},
		{"GET", "/apix", 404, "nothing at GET /apix"},
		{"POST", "/other", 404, "nothing at POST /other"},
		{"OPTIONS", "/api/x", 204, ""},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, url+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || string(body) != tt.body {
			t.Errorf("%s %s: %d %q, want %d %q", tt.method, tt.path, resp.StatusCode, body, tt.status, tt.body)
		}
	}
}

// TestNoSniff: every answer says X-Content-Type-Options: nosniff, whoever
// wrote it: JSON-RPC, /health, a route's and a mount's handlers (one that
// resets the headers with ctx.Error too), the answer to a path nothing
// serves, CORS's preflight, and fasthttp's refusals of a malformed request.
func TestNoSniff(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BodyLimit = 64
	s := New(cfg, echoRPC{size: 2000}, healthy)
	s.Handle("/page", func(ctx *fasthttp.RequestCtx) {
		ctx.Response.Header.Set("X-Before", "1")
		ctx.Error("gone", fasthttp.StatusGone) // resets the headers
	})
	s.Mount("/api/", func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType("application/json")
		ctx.WriteString(`{"code":5}`)
	})
	url := serve(t, s)
	for _, tt := range []struct {
		name, method, path, contentType, body string
		header                                map[string]string
		status                                int
	}{
		{"JSON-RPC", "POST", "/", "application/json", `{}`, nil, 200},
		{"JSON-RPC, gzipped", "POST", "/", "application/json", `{}`, map[string]string{"Accept-Encoding": "gzip"}, 200},
		{"JSON-RPC of another type", "POST", "/", "text/plain", `{}`, nil, 415},
		{"health", "GET", "/health", "", "", nil, 200},
		{"a route that calls ctx.Error", "GET", "/page", "", "", nil, 410},
		{"a mount", "GET", "/api/x", "", "", nil, 200},
		{"nothing there", "GET", "/nope", "", "", nil, 404},
		{"a preflight", "OPTIONS", "/", "", "", map[string]string{"Origin": "https://a.example"}, 204},
		{"a body over the limit", "POST", "/", "application/json", strings.Repeat(" ", 100), nil, 413},
	} {
		req, err := http.NewRequest(tt.method, url+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		if tt.contentType != "" {
			req.Header.Set("Content-Type", tt.contentType)
		}
		for k, v := range tt.header {
			req.Header.Set(k, v)
		}
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("X-Content-Type-Options"); resp.StatusCode != tt.status || got != "nosniff" {
			t.Errorf("%s: HTTP %d with X-Content-Type-Options %q, want %d nosniff", tt.name, resp.StatusCode, got, tt.status)
		}
	}
}
