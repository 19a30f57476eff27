package tracing

import (
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
)

// A request's transactions share one timer: each is stopped by its own
// deadline only, whether the timer fires on time, late (a firing set for
// the transaction before, run as the next one starts) or never (the
// transaction ended first).
func TestDeadlinesStopOnlyTheirOwnTransaction(t *testing.T) {
	var d deadlines
	defer d.end()
	first, second, third := newTestStopper(), newTestStopper(), newTestStopper()

	d.start(first, time.Millisecond, false)
	waitStopped(t, first)

	d.start(second, time.Hour, true)
	d.fire() // the firing for first, run late
	if err := second.stopped(); err != nil {
		t.Fatalf("second transaction stopped by the first's deadline: %v", err)
	}
	d.end()

	d.start(third, 20*time.Millisecond, false)
	d.end()
	time.Sleep(50 * time.Millisecond)
	if err := third.stopped(); err != nil {
		t.Fatalf("a transaction that ended before its deadline was stopped: %v", err)
	}
	if err := second.stopped(); err != nil {
		t.Fatalf("an ended transaction was stopped: %v", err)
	}
}

func newTestStopper() *stopper {
	evm := vm.NewEVM(vm.BlockContext{}, nil, testConfig, vm.Config{})
	return &stopper{tracer: &tracers.Tracer{Stop: func(error) {}}, cfg: new(Config), evm: evm}
}

func waitStopped(t *testing.T, s *stopper) {
	t.Helper()
	for range 500 {
		if err := s.stopped(); err != nil {
			if !errors.Is(err, errTimeout) || !s.evm.Cancelled() {
				t.Fatalf("stopped with %v (EVM cancelled: %v), want %v", err, s.evm.Cancelled(), errTimeout)
			}
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("not stopped by its deadline")
}

// A transaction's stopper, once its trace is over, stops nothing: its
// tracer may be the next transaction's (reusedCallTracer).
func TestDisarmedStopperStopsNothing(t *testing.T) {
	stopped := false
	s := newTestStopper()
	s.tracer.Stop = func(error) { stopped = true }
	s.disarm()
	s.stop(errTimeout)
	if stopped || s.stopped() != nil || s.evm.Cancelled() {
		t.Fatalf("a disarmed stopper stopped its tracer (%v), answers %v, cancelled its EVM (%v)", stopped, s.stopped(), s.evm.Cancelled())
	}
}
