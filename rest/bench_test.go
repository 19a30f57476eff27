package rest

import (
	"testing"

	"github.com/valyala/fasthttp"
)

// BenchmarkHandler is the REST hot path: one answer from memory.
func BenchmarkHandler(b *testing.B) {
	api, src := newTestAPI(b)
	src.view.Store(testView(7, "2500000000000000000000", nil))
	for _, path := range []string{pathTokens, pathChains, pathSupply + tokenB.Hex()} {
		b.Run(path, func(b *testing.B) {
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.SetMethod("GET")
			ctx.Request.SetRequestURI(path)
			b.ReportAllocs()
			for b.Loop() {
				ctx.Response.Reset()
				api.Handler(&ctx)
			}
			if ctx.Response.StatusCode() != 200 {
				b.Fatalf("status %d", ctx.Response.StatusCode())
			}
		})
	}
}
