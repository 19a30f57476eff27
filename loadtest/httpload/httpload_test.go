package httpload

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestHTTPCountsErrorsApart runs the http mode against an in-process server
// that answers one request in ten with HTTP 503 and one in ten with a
// JSON-RPC error, and checks that the report keeps them apart.
func TestHTTPCountsErrorsApart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Uint64
	var badBodies atomic.Uint64
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		if !bytes.HasPrefix(ctx.PostBody(), []byte(`{"jsonrpc":"2.0","id":`)) || string(ctx.Method()) != "POST" {
			badBodies.Add(1)
		}
		ctx.SetContentType("application/json")
		switch n.Add(1) % 10 {
		case 0:
			ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
			ctx.SetBodyString("busy")
		case 1:
			ctx.SetBodyString(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nope"}}`)
		default:
			ctx.SetBodyString(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`)
		}
	}}
	go srv.Serve(ln)
	defer srv.Shutdown()
	url := "http://" + ln.Addr().String()
	for _, pipeline := range []int{1, 4} {
		rep, err := Run(context.Background(), Config{URL: url, Method: kindMix, Tag: "pending", Conns: "1,8",
			Duration: 300 * time.Millisecond, Warmup: 50 * time.Millisecond, Token: "0x2000000000000000000000000000000000000020",
			Pipeline: pipeline, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Runs) != 2 || rep.Runs[0].Conns != 1 || rep.Runs[1].Conns != 8 {
			t.Fatalf("sweep: %+v", rep.Runs)
		}
		for _, run := range rep.Runs {
			if run.Requests < 100 || run.OK+run.HTTPErrors+run.RPCErrors+run.TransportErrors != run.Requests {
				t.Fatalf("counts don't add up: %+v", run)
			}
			if run.TransportErrors != 0 {
				t.Fatalf("transport errors: %+v", run)
			}
			frac := func(v uint64) float64 { return float64(v) / float64(run.Requests) }
			if f := frac(run.HTTPErrors); f < 0.07 || f > 0.13 {
				t.Errorf("HTTP errors %.3f of requests, want ~0.1", f)
			}
			if f := frac(run.RPCErrors); f < 0.07 || f > 0.13 {
				t.Errorf("JSON-RPC errors %.3f of requests, want ~0.1", f)
			}
			if run.Latency.Count != int(run.Requests) || run.Latency.P50 <= 0 || run.ReqPerSec <= 0 {
				t.Errorf("latency/throughput missing: %+v", run)
			}
			if len(run.PerKind) != len(mixWeights) {
				t.Errorf("mix kinds: %v", run.PerKind)
			}
		}
	}
	if badBodies.Load() != 0 {
		t.Fatalf("%d malformed requests", badBodies.Load())
	}
}

func TestHTTPRefusesRemoteTargets(t *testing.T) {
	_, err := Run(context.Background(), Config{URL: "http://10.1.2.3:8545", Method: kindGetBalance, Tag: "latest", Conns: "1"})
	if err == nil {
		t.Fatal("a non-loopback target was accepted")
	}
}

// A negative offered rate is refused before any load is sent.
func TestNegativeRateRefused(t *testing.T) {
	_, err := Run(context.Background(), Config{URL: "http://127.0.0.1:1", Method: kindGetBalance, Tag: "latest",
		Token: "0x2000000000000000000000000000000000000020", Conns: "1", Rate: -1})
	if err == nil || !strings.Contains(err.Error(), "-rate") {
		t.Fatalf("http -rate -1: %v", err)
	}
}
