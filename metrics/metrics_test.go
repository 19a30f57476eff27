package metrics

import (
	"strings"
	"testing"
	"time"
)

func TestExposition(t *testing.T) {
	r := NewRegistry()
	r.Counter(`rpc_requests_total{method="eth_call",outcome="ok"}`, "Requests.").Add(3)
	r.Counter(`rpc_requests_total{method="eth_call",outcome="error"}`, "Requests.").Inc()
	h := r.Histogram(`rpc_request_duration_seconds{method="eth_call"}`, "Latency.")
	h.Observe(200 * time.Microsecond)
	h.Observe(2 * time.Second)
	r.Gauge("chain_head_number", "Head.", func() float64 { return 42 })
	var b strings.Builder
	r.WriteTo(&b)
	out := b.String()
	for _, want := range []string{
		"# TYPE rpc_requests_total counter\n",
		`rpc_requests_total{method="eth_call",outcome="ok"} 3`,
		`rpc_requests_total{method="eth_call",outcome="error"} 1`,
		"# TYPE rpc_request_duration_seconds histogram\n",
		`rpc_request_duration_seconds_bucket{method="eth_call",le="0.0001"} 0`,
		`rpc_request_duration_seconds_bucket{method="eth_call",le="0.00025"} 1`,
		`rpc_request_duration_seconds_bucket{method="eth_call",le="+Inf"} 2`,
		`rpc_request_duration_seconds_count{method="eth_call"} 2`,
		"chain_head_number 42",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "# TYPE rpc_requests_total") != 1 {
		t.Errorf("TYPE line repeated:\n%s", out)
	}
}

func TestRecordingDoesNotAllocate(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("c", "")
	h := r.Histogram("h", "")
	if n := testing.AllocsPerRun(1000, func() { c.Inc(); h.Observe(time.Millisecond) }); n != 0 {
		t.Fatalf("%v allocs per record", n)
	}
}
