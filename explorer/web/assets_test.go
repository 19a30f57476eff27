package web

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

func serveAsset(t *testing.T, e *Explorer, method, path string, headers ...string) *fasthttp.Response {
	t.Helper()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(path)
	for i := 0; i+1 < len(headers); i += 2 {
		ctx.Request.Header.Set(headers[i], headers[i+1])
	}
	e.serveAsset(&ctx)
	resp := new(fasthttp.Response)
	ctx.Response.CopyTo(resp)
	return resp
}

func TestAssets(t *testing.T) {
	a, err := loadAssets()
	if err != nil {
		t.Fatal(err)
	}
	e := &Explorer{assets: a, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, name := range []string{"style.css", "app.js", "favicon.svg"} {
		t.Run(name, func(t *testing.T) {
			hashed, err := a.url(name)
			if err != nil {
				t.Fatal(err)
			}
			if hashed == "/assets/"+name || !strings.HasPrefix(hashed, "/assets/") {
				t.Fatalf("hashed URL %q", hashed)
			}
			resp := serveAsset(t, e, "GET", hashed)
			etag := string(resp.Header.Peek("ETag"))
			if resp.StatusCode() != 200 || etag == "" || len(resp.Body()) == 0 ||
				string(resp.Header.Peek("Cache-Control")) != cacheImmutable {
				t.Fatalf("GET %s: %d, ETag %q, Cache-Control %q", hashed, resp.StatusCode(), etag, resp.Header.Peek("Cache-Control"))
			}
			if ct := string(resp.Header.ContentType()); ct != a.plain[name].ctype {
				t.Errorf("Content-Type %q", ct)
			}
			plain := serveAsset(t, e, "GET", "/assets/"+name)
			if plain.StatusCode() != 200 || string(plain.Header.Peek("ETag")) != etag || string(plain.Header.Peek("Cache-Control")) != cachePlain {
				t.Errorf("plain name: %d, ETag %q, Cache-Control %q", plain.StatusCode(), plain.Header.Peek("ETag"), plain.Header.Peek("Cache-Control"))
			}
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
				if got := serveAsset(t, e, "GET", hashed, "If-None-Match", inm); got.StatusCode() != 304 || len(got.Body()) != 0 {
					t.Errorf("If-None-Match %s: %d", inm, got.StatusCode())
				}
			}
			if got := serveAsset(t, e, "GET", hashed, "If-None-Match", `"stale"`); got.StatusCode() != 200 {
				t.Errorf("stale If-None-Match: %d", got.StatusCode())
			}
		})
	}
	if got := serveAsset(t, e, "GET", "/assets/../web.go"); got.StatusCode() != 404 {
		t.Errorf("path outside the assets: %d", got.StatusCode())
	}
}
