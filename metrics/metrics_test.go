package metrics

import (
	"bytes"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads r's exposition as Prometheus does, failing on any syntax
// error.
func parse(t *testing.T, r *Registry) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	var b bytes.Buffer
	if _, err := r.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("exposition does not parse: %v\n%s", err, b.String())
	}
	return families, b.String()
}

func TestExposition(t *testing.T) {
	r := NewRegistry()
	r.Counter(`rpc_requests_total{method="eth_call",outcome="ok"}`).Add(3)
	r.Counter(`rpc_requests_total{method="eth_call",outcome="error"}`).Inc()
	r.Counter(`rpc_requests_total{method="eth_chainId",outcome="error"}`) // never moves
	h := r.Histogram(`rpc_request_duration_seconds{method="eth_call"}`)
	h.Observe(200 * time.Microsecond)
	h.Observe(2 * time.Second)
	r.Histogram(`rpc_request_duration_seconds{method="eth_chainId"}`) // never observed
	r.Gauge("chain_head_number", func() float64 { return 42 })
	var dropped, refused uint64 = 0, 7
	r.CounterFunc("call_pool_dropped_total", func() uint64 { return dropped })
	r.CounterFunc("http_connections_refused_total", func() uint64 { return refused })
	resp := r.Responses("rest")
	resp.Observe(200, time.Millisecond)
	resp.Observe(200, time.Millisecond)
	resp.Observe(404, time.Millisecond)
	resp.Observe(42, time.Millisecond)

	families, out := parse(t, r)
	for _, want := range []string{
		"# TYPE rpc_requests_total counter\n",
		`rpc_requests_total{method="eth_call",outcome="ok"} 3`,
		`rpc_requests_total{method="eth_call",outcome="error"} 1`,
		"# TYPE rpc_request_duration_seconds histogram\n",
		`rpc_request_duration_seconds_bucket{method="eth_call",le="5e-05"} 0`,
		`rpc_request_duration_seconds_bucket{method="eth_call",le="0.0001"} 0`,
		`rpc_request_duration_seconds_bucket{method="eth_call",le="0.00025"} 1`,
		`rpc_request_duration_seconds_bucket{method="eth_call",le="10"} 2`,
		`rpc_request_duration_seconds_bucket{method="eth_call",le="+Inf"} 2`,
		`rpc_request_duration_seconds_count{method="eth_call"} 2`,
		"# TYPE chain_head_number gauge\n",
		"chain_head_number 42",
		"# TYPE http_connections_refused_total counter\n",
		"http_connections_refused_total 7",
		`rest_responses_total{code="200"} 2`,
		`rest_responses_total{code="404"} 1`,
		`rest_responses_total{code="other"} 1`,
		`rest_response_duration_seconds_count 4`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{`method="eth_chainId"`, "call_pool_dropped_total"} {
		if strings.Contains(out, absent) {
			t.Errorf("a series that never moved is written (%s):\n%s", absent, out)
		}
	}
	if strings.Count(out, "# TYPE rpc_requests_total") != 1 {
		t.Errorf("TYPE line repeated:\n%s", out)
	}
	for name, mf := range families {
		// The library names two of the runtime's counters go_*_count.
		own := !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_")
		if own && mf.GetType() == dto.MetricType_COUNTER && !strings.HasSuffix(name, "_total") {
			t.Errorf("counter %s lacks _total", name)
		}
	}
	for name, typ := range map[string]dto.MetricType{
		"rpc_requests_total":             dto.MetricType_COUNTER,
		"http_connections_refused_total": dto.MetricType_COUNTER,
		"rest_responses_total":           dto.MetricType_COUNTER,
		"rpc_request_duration_seconds":   dto.MetricType_HISTOGRAM,
		"chain_head_number":              dto.MetricType_GAUGE,
		// The runtime's and the process's.
		"go_goroutines":                 dto.MetricType_GAUGE,
		"go_memstats_alloc_bytes":       dto.MetricType_GAUGE,
		"process_cpu_seconds_total":     dto.MetricType_COUNTER,
		"process_resident_memory_bytes": dto.MetricType_GAUGE,
		"process_open_fds":              dto.MetricType_GAUGE,
	} {
		mf, ok := families[name]
		if !ok {
			t.Errorf("no %s", name)
			continue
		}
		if mf.GetType() != typ {
			t.Errorf("%s is a %v, want a %v", name, mf.GetType(), typ)
		}
	}
	dropped = 2
	if _, out := parse(t, r); !strings.Contains(out, "call_pool_dropped_total 2") {
		t.Errorf("a counter that moved is not written:\n%s", out)
	}
}

// Two registries, as two nodes in one process have, share nothing.
func TestRegistriesAreSeparate(t *testing.T) {
	a, b := NewRegistry(), NewRegistry()
	a.Counter("x_total").Inc()
	b.Histogram("y_seconds").Observe(time.Millisecond)
	if _, out := parse(t, a); !strings.Contains(out, "x_total 1") || strings.Contains(out, "y_seconds") {
		t.Errorf("a:\n%s", out)
	}
	if _, out := parse(t, b); strings.Contains(out, "x_total") || !strings.Contains(out, "y_seconds_count 1") {
		t.Errorf("b:\n%s", out)
	}
}

func TestRecordingDoesNotAllocate(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("c_total")
	h := r.Histogram("h_seconds")
	resp := r.Responses("api")
	c.Inc()
	h.Observe(time.Millisecond)
	resp.Observe(200, time.Millisecond)
	if n := testing.AllocsPerRun(1000, func() { c.Inc(); h.Observe(time.Millisecond); resp.Observe(200, time.Millisecond) }); n != 0 {
		t.Fatalf("%v allocs per record", n)
	}
}

func TestMalformedNamePanicsWhenRegistered(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	NewRegistry().Counter(`x{a="b"`)
}

// BenchmarkRecord is a request's recording: its outcome counter and its
// latency.
func BenchmarkRecord(b *testing.B) {
	r := NewRegistry()
	c := r.Counter(`c_total{m="x"}`)
	h := r.Histogram(`h_seconds{m="x"}`)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Inc()
			h.Observe(3 * time.Millisecond)
		}
	})
}

func BenchmarkRecordSerial(b *testing.B) {
	r := NewRegistry()
	c := r.Counter(`c_total{m="x"}`)
	h := r.Histogram(`h_seconds{m="x"}`)
	b.ReportAllocs()
	for b.Loop() {
		c.Inc()
		h.Observe(3 * time.Millisecond)
	}
}
