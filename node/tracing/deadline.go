package tracing

import (
	"sync/atomic"
	"time"
)

// deadlines stops each transaction's trace when its timeout passes, on
// one timer per request set again for every transaction: a timer and its
// closure made for each transaction were a fiftieth of tracing a block of
// token transfers.
//
// A timer set again may still run its previous firing, concurrently with
// the next transaction's start: a firing therefore stops only the trace
// whose own deadline has passed by then, and otherwise leaves the timer's
// next firing to it.
type deadlines struct {
	timer   *time.Timer
	current atomic.Pointer[deadline]
}

// deadline is one transaction's: when its trace is stopped, and why.
type deadline struct {
	at     time.Time
	stop   *stopper
	d      time.Duration
	capped bool // the node's cap, not the request, set d
}

// start stops stop's trace d from now, unless end comes first.
func (t *deadlines) start(stop *stopper, d time.Duration, capped bool) {
	t.current.Store(&deadline{at: time.Now().Add(d), stop: stop, d: d, capped: capped})
	if t.timer == nil {
		t.timer = time.AfterFunc(d, t.fire)
		return
	}
	t.timer.Reset(d)
}

// end is the transaction's trace over: its deadline no longer stops it.
func (t *deadlines) end() {
	t.current.Store(nil)
	if t.timer != nil {
		t.timer.Stop()
	}
}

func (t *deadlines) fire() {
	if d := t.current.Load(); d != nil && !time.Now().Before(d.at) {
		d.stop.stop(timeoutError(d.d, d.capped))
	}
}
