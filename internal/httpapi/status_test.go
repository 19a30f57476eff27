package httpapi

import (
	"testing"

	"github.com/valyala/fasthttp"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		status, code int
		msg, body    string
	}{
		{404, NotFoundCode, "Not Found", `{"code":5,"message":"Not Found","details":[]}`},
		{429, ResourceExhausted, `wait "7s" <now>`, `{"code":8,"message":"wait \"7s\" \u003cnow\u003e","details":[]}`},
		{503, Unavailable, "", `{"code":14,"message":"","details":[]}`},
	}
	for _, tt := range tests {
		var ctx fasthttp.RequestCtx
		ctx.SetBodyString("stale")
		Write(&ctx, tt.status, tt.code, tt.msg)
		if got := string(ctx.Response.Body()); got != tt.body {
			t.Errorf("body %s, want %s", got, tt.body)
		}
		if ctx.Response.StatusCode() != tt.status || string(ctx.Response.Header.ContentType()) != "application/json" ||
			string(ctx.Response.Header.Peek("Cache-Control")) != "no-store" {
			t.Errorf("%d: status %d, headers %s", tt.status, ctx.Response.StatusCode(), ctx.Response.Header.String())
		}
	}
}
