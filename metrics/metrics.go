// Package metrics keeps the node's counters and histograms in atomics (no
// allocation, no lock when recording) and writes them in the Prometheus
// text exposition format.
package metrics

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Counter is a monotonically increasing count.
type Counter struct{ v atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.v.Add(1) }

// Add adds n.
func (c *Counter) Add(n uint64) { c.v.Add(n) }

// Load returns the count.
func (c *Counter) Load() uint64 { return c.v.Load() }

// latencyBuckets are the histogram's upper bounds in seconds: 50 µs to 10 s.
var latencyBuckets = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Histogram counts durations into latencyBuckets.
type Histogram struct {
	counts [18]atomic.Uint64 // one per bucket plus +Inf
	sumNs  atomic.Uint64
}

// Observe records d.
func (h *Histogram) Observe(d time.Duration) {
	s := d.Seconds()
	i := sort.SearchFloat64s(latencyBuckets, s)
	h.counts[i].Add(1)
	h.sumNs.Add(uint64(d))
}

// Gauge reads a current value when the metrics are written.
type Gauge func() float64

// Registry holds named metrics. Registering takes a lock; recording never does.
type Registry struct {
	mu         sync.Mutex
	counters   map[string]*Counter
	histograms map[string]*Histogram
	gauges     map[string]Gauge
	help       map[string]string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{counters: map[string]*Counter{}, histograms: map[string]*Histogram{}, gauges: map[string]Gauge{}, help: map[string]string{}}
}

// Counter returns the counter with this name and labels (`name{k="v"}`),
// creating it once.
func (r *Registry) Counter(name, help string) *Counter {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.counters[name]
	if !ok {
		c = new(Counter)
		r.counters[name] = c
		r.help[baseName(name)] = help
	}
	return c
}

// Histogram returns the latency histogram with this name and labels.
func (r *Registry) Histogram(name, help string) *Histogram {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.histograms[name]
	if !ok {
		h = new(Histogram)
		r.histograms[name] = h
		r.help[baseName(name)] = help
	}
	return h
}

// Gauge registers a value read at exposition time.
func (r *Registry) Gauge(name, help string, g Gauge) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gauges[name] = g
	r.help[baseName(name)] = help
}

func baseName(name string) string {
	if i := strings.IndexByte(name, '{'); i >= 0 {
		return name[:i]
	}
	return name
}

// labels returns the `k="v",...` part of a name, or "".
func labels(name string) string {
	if i := strings.IndexByte(name, '{'); i >= 0 {
		return name[i+1 : len(name)-1]
	}
	return ""
}

// WriteTo writes every metric in the Prometheus text format.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	typed := map[string]bool{}
	header := func(name, kind string) {
		base := baseName(name)
		if typed[base] {
			return
		}
		typed[base] = true
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", base, r.help[base], base, kind)
	}
	for _, name := range sortedKeys(r.counters) {
		header(name, "counter")
		fmt.Fprintf(&b, "%s %d\n", name, r.counters[name].Load())
	}
	for _, name := range sortedKeys(r.gauges) {
		header(name, "gauge")
		fmt.Fprintf(&b, "%s %s\n", name, formatFloat(r.gauges[name]()))
	}
	for _, name := range sortedKeys(r.histograms) {
		header(name, "histogram")
		writeHistogram(&b, baseName(name), labels(name), r.histograms[name])
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

func writeHistogram(b *strings.Builder, base, lbl string, h *Histogram) {
	sep := ""
	if lbl != "" {
		sep = ","
	}
	var cum uint64
	for i, le := range latencyBuckets {
		cum += h.counts[i].Load()
		fmt.Fprintf(b, "%s_bucket{%s%sle=%q} %d\n", base, lbl, sep, formatFloat(le), cum)
	}
	cum += h.counts[len(latencyBuckets)].Load()
	fmt.Fprintf(b, "%s_bucket{%s%sle=\"+Inf\"} %d\n", base, lbl, sep, cum)
	wrap := func(s string) string {
		if lbl == "" {
			return s
		}
		return s + "{" + lbl + "}"
	}
	fmt.Fprintf(b, "%s %s\n", wrap(base+"_sum"), formatFloat(float64(h.sumNs.Load())/1e9))
	fmt.Fprintf(b, "%s %d\n", wrap(base+"_count"), cum)
}

func formatFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
