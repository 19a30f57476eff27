package app

import (
	"bytes"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/stocknode/stocknode/faucet"
)

// scrape parses the node's exposition as Prometheus does.
func scrape(t *testing.T, n *Node) map[string]*dto.MetricFamily {
	t.Helper()
	var b bytes.Buffer
	if _, err := n.Metrics().WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	families, err := p.TextToMetricFamilies(&b)
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	return families
}

// sample finds the series of family name whose labels include want
// (label=value pairs); nil if there is none.
func sample(families map[string]*dto.MetricFamily, name string, want ...string) *dto.Metric {
	mf := families[name]
	if mf == nil {
		return nil
	}
next:
	for _, m := range mf.Metric {
		for i := 0; i+1 < len(want); i += 2 {
			found := false
			for _, l := range m.Label {
				found = found || l.GetName() == want[i] && l.GetValue() == want[i+1]
			}
			if !found {
				continue next
			}
		}
		return m
	}
	return nil
}

// TestMetricsOfARunningNode: a sequencing node's exposition parses, times
// its seals, pre-confirmations and log appends, counts and times the REST
// API's and the faucet's answers, writes counters as *_total counters and
// leaves out those that never moved.
func TestMetricsOfARunningNode(t *testing.T) {
	n, url, _ := faucetNode(t, "", faucet.DefaultConfig())
	head := func() uint64 { return n.store.Load().Head.NumberU64() }
	first := head()
	for deadline := time.Now().Add(10 * time.Second); head() < first+2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no two blocks sealed")
		}
	}
	if resp := call(t, "GET", url+"/v1/tokenized-stocks/chains", "", nil, nil); resp.StatusCode != 200 {
		t.Fatalf("REST chains: %d", resp.StatusCode)
	}
	if resp := call(t, "GET", url+"/v1/no-such-thing", "", nil, nil); resp.StatusCode != 404 {
		t.Fatalf("REST unknown path: %d", resp.StatusCode)
	}
	if resp := call(t, "GET", url+"/api/preview/faucet/status", "", nil, nil); resp.StatusCode != 200 {
		t.Fatalf("faucet status: %d", resp.StatusCode)
	}
	if resp := call(t, "POST", url, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`, jsonHeader, nil); resp.StatusCode != 200 {
		t.Fatalf("eth_blockNumber: %d", resp.StatusCode)
	}

	families := scrape(t, n)
	for _, h := range []string{"sequencer_seal_duration_seconds", "sequencer_preconf_duration_seconds", "seqlog_append_duration_seconds", "rest_response_duration_seconds", "faucet_response_duration_seconds"} {
		m := sample(families, h)
		if m == nil || families[h].GetType() != dto.MetricType_HISTOGRAM || m.GetHistogram().GetSampleCount() == 0 {
			t.Errorf("%s has not moved: %v", h, m)
		}
	}
	for _, c := range []struct {
		name   string
		labels []string
	}{
		{"rest_responses_total", []string{"code", "200"}},
		{"rest_responses_total", []string{"code", "404"}},
		{"faucet_responses_total", []string{"code", "200"}},
		{"rpc_requests_total", []string{"method", "eth_blockNumber", "outcome", "ok"}},
	} {
		m := sample(families, c.name, c.labels...)
		if m == nil || families[c.name].GetType() != dto.MetricType_COUNTER || m.GetCounter().GetValue() < 1 {
			t.Errorf("%s%v has not moved: %v", c.name, c.labels, m)
		}
	}
	// Never moved: a method's failures and latency, a drop counter.
	if m := sample(families, "rpc_requests_total", "method", "eth_blockNumber", "outcome", "error"); m != nil {
		t.Errorf("eth_blockNumber's zero fail counter is written: %v", m)
	}
	if m := sample(families, "rpc_request_duration_seconds", "method", "eth_chainId"); m != nil {
		t.Errorf("eth_chainId's empty histogram is written: %v", m)
	}
	for _, name := range []string{"call_pool_dropped_total", "ws_slow_dropped_total", "http_connections_refused_total", "call_pool_rejected_total",
		// The old names of the counters.
		"call_pool_dropped", "ws_slow_dropped", "http_connections_refused", "call_pool_rejected"} {
		if families[name] != nil {
			t.Errorf("%s is written", name)
		}
	}
	for name, mf := range families {
		if mf.GetType() == dto.MetricType_COUNTER && !strings.HasSuffix(name, "_total") && !strings.HasPrefix(name, "go_") {
			t.Errorf("counter %s lacks _total", name)
		}
	}
	for role, want := range map[string]float64{"sequencer": 1, "replica": 0} {
		if m := sample(families, "node_role", "role", role); m == nil || m.GetGauge().GetValue() != want {
			t.Errorf("node_role{role=%q}: %v, want %v", role, m, want)
		}
	}
	for name, typ := range map[string]dto.MetricType{"chain_head_number": dto.MetricType_GAUGE, "go_goroutines": dto.MetricType_GAUGE, "process_cpu_seconds_total": dto.MetricType_COUNTER} {
		if mf := families[name]; mf == nil || mf.GetType() != typ {
			t.Errorf("%s: %v, want a %v", name, mf, typ)
		}
	}
}
