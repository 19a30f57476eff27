package metrics

import (
	"strconv"
	"sync/atomic"
	"time"

	vm "github.com/VictoriaMetrics/metrics"
)

// Responses counts an HTTP API's answers by status code
// (`<api>_responses_total{code="200"}`) and times them
// (`<api>_response_duration_seconds`). A code's counter is made on its
// first answer and kept in a table by code, so recording allocates nothing
// after that and codes never answered are absent.
type Responses struct {
	set      *vm.Set
	family   string
	codes    [600]atomic.Pointer[vm.Counter] // index 0: a status outside 100-599
	duration *Histogram
}

// Responses returns the response metrics of the API named api (a metric
// name prefix: "rest", "faucet").
func (r *Registry) Responses(api string) *Responses {
	family := api + "_responses_total"
	mustValidate(family)
	return &Responses{set: r.set, family: family, duration: r.Histogram(api + "_response_duration_seconds")}
}

// Observe records one answer with this status that took d.
func (r *Responses) Observe(status int, d time.Duration) {
	if status < 100 || status >= len(r.codes) {
		status = 0
	}
	c := r.codes[status].Load()
	if c == nil {
		code := "other"
		if status != 0 {
			code = strconv.Itoa(status)
		}
		c = r.set.GetOrCreateCounter(r.family + `{code="` + code + `"}`)
		r.codes[status].Store(c)
	}
	c.Inc()
	r.duration.Observe(d)
}
