package natsauth

import (
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
)

// Violations collects the permission violations a NATS server reports to
// a connection (asynchronously, as errors): what a client that probes its
// permissions, such as the abuse battery, waits for.
type Violations struct {
	mu   sync.Mutex
	errs []string
}

// Handler is the connection's nats.ErrorHandler.
func (v *Violations) Handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.errs = append(v.errs, err.Error())
}

// Has reports whether a permission violation naming what was reported,
// such as `Publish to "subject"` or `Subscription to`.
func (v *Violations) Has(what string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, e := range v.errs {
		if strings.Contains(e, "Permissions Violation") && strings.Contains(e, what) {
			return true
		}
	}
	return false
}
