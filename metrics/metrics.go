// Package metrics is a thin wrapper over github.com/VictoriaMetrics/metrics
// that gives each node its own *metrics.Set (several nodes in one process,
// and tests, share nothing) and keeps the exposition to series that moved:
//
//   - Counter and Histogram are registered in the set on their first record,
//     so a method that never failed has no fail counter and no empty
//     histogram. The first record takes the set's lock once; every later one
//     is an atomic load and the library's update, without allocating.
//   - CounterFunc writes a count that another package keeps (a pool's
//     rejections) as a counter, and only once it is not zero.
//   - Gauge reads a current value at exposition time, zero or not.
//
// Histograms are Prometheus-style (le buckets, usable by
// histogram_quantile), with LatencyBuckets as their bounds. WriteTo adds the
// Go runtime and process metrics (go_*, process_*).
//
// The package holds no mutable state of its own. The library's TYPE/HELP
// lines are a process-wide switch (metrics.ExposeMetadata), which
// NewRegistry turns on: every registry wants them, so it is never turned
// off.
package metrics

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vm "github.com/VictoriaMetrics/metrics"
)

// LatencyBuckets are the upper bounds, in seconds, of every duration
// histogram: 50 µs to 10 s.
var LatencyBuckets = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Registry is one node's metrics. Registering takes a lock; recording
// never does once a series exists.
type Registry struct {
	set *vm.Set

	mu    sync.Mutex
	funcs []counterFunc // sorted by name
}

type counterFunc struct {
	name string
	f    func() uint64
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	vm.ExposeMetadata(true)
	r := &Registry{set: vm.NewSet()}
	r.set.RegisterMetricsWriter(r.writeCounterFuncs)
	return r
}

// mustValidate panics on a malformed name when it is registered, not on
// the first record in a hot path.
func mustValidate(name string) {
	if err := vm.ValidateMetric(name); err != nil {
		panic(fmt.Sprintf("metrics: %q: %v", name, err))
	}
}

// Counter is a monotonically increasing count, absent from the exposition
// until it is first added to.
type Counter struct {
	set  *vm.Set
	name string
	c    atomic.Pointer[vm.Counter]
}

// Counter returns the counter with this name and labels
// (`name_total{k="v"}`); counters sharing a name count together.
func (r *Registry) Counter(name string) *Counter {
	mustValidate(name)
	return &Counter{set: r.set, name: name}
}

// Inc adds one.
func (c *Counter) Inc() { c.Add(1) }

// Add adds n; adding 0 registers nothing.
func (c *Counter) Add(n uint64) {
	if n == 0 {
		return
	}
	v := c.c.Load()
	if v == nil {
		v = c.register()
	}
	v.AddInt64(int64(n))
}

func (c *Counter) register() *vm.Counter {
	v := c.set.GetOrCreateCounter(c.name) // the same counter for a racing first Add
	c.c.Store(v)
	return v
}

// Load returns the count.
func (c *Counter) Load() uint64 {
	if v := c.c.Load(); v != nil {
		return v.Get()
	}
	return 0
}

// Histogram counts durations into LatencyBuckets, absent from the
// exposition until its first observation.
type Histogram struct {
	set  *vm.Set
	name string
	h    atomic.Pointer[vm.PrometheusHistogram]
}

// Histogram returns the duration histogram with this name and labels
// (`name_seconds{k="v"}`).
func (r *Registry) Histogram(name string) *Histogram {
	mustValidate(name)
	return &Histogram{set: r.set, name: name}
}

// Observe records d.
func (h *Histogram) Observe(d time.Duration) {
	v := h.h.Load()
	if v == nil {
		v = h.set.GetOrCreatePrometheusHistogramExt(h.name, LatencyBuckets)
		h.h.Store(v)
	}
	v.Update(d.Seconds())
}

// Gauge registers a value read at exposition time.
func (r *Registry) Gauge(name string, g func() float64) {
	mustValidate(name)
	r.set.NewGauge(name, g)
}

// CounterFunc registers a count kept elsewhere (it must only grow), read at
// exposition time and written as a counter once it is not zero.
func (r *Registry) CounterFunc(name string, f func() uint64) {
	mustValidate(name)
	r.mu.Lock()
	defer r.mu.Unlock()
	i, found := slices.BinarySearchFunc(r.funcs, name, func(c counterFunc, name string) int { return strings.Compare(c.name, name) })
	if found {
		panic("metrics: " + name + " is registered twice")
	}
	r.funcs = slices.Insert(r.funcs, i, counterFunc{name, f})
}

func (r *Registry) writeCounterFuncs(w io.Writer) {
	r.mu.Lock()
	funcs := slices.Clone(r.funcs)
	r.mu.Unlock()
	for _, c := range funcs {
		if v := c.f(); v != 0 {
			vm.WriteCounterUint64(w, c.name, v)
		}
	}
}

// WriteTo writes the registry's metrics, then the Go runtime's and the
// process's, in the Prometheus text format.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	r.set.WritePrometheus(cw)
	vm.WriteProcessMetrics(cw)
	vm.WriteFDMetrics(cw)
	return cw.n, cw.err
}

// countingWriter counts what reaches w and keeps its first error; the
// library's writers return none.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}
