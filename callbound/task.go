package callbound

import "sync"

// Canceler is work a task can stop: go-ethereum's *vm.EVM is one.
type Canceler interface{ Cancel() }

// Task is a running task's handle on its cancellation. There is one per
// slot, reused by every task the slot runs: a context per task cost three
// allocations and a microsecond on every eth_call.
type Task struct {
	mu       sync.Mutex
	gen      uint64 // which task of the slot this is
	cause    error  // why it was stopped; nil while it may run
	watching Canceler
}

// Watch makes c stop when the task is cancelled (at once if it already
// is) until Unwatch. A task watches one thing at a time.
func (t *Task) Watch(c Canceler) {
	t.mu.Lock()
	t.watching = c
	cancelled := t.cause != nil
	t.mu.Unlock()
	if cancelled {
		c.Cancel()
	}
}

// Unwatch forgets what Watch was given.
func (t *Task) Unwatch() {
	t.mu.Lock()
	t.watching = nil
	t.mu.Unlock()
}

// Err is why the task was stopped (ErrTimeLimit, ErrTimeout, ErrGone,
// ErrClosed), or nil.
func (t *Task) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cause
}

// begin readies the task for its slot's task gen.
func (t *Task) begin(gen uint64) {
	t.mu.Lock()
	t.gen, t.cause, t.watching = gen, nil, nil
	t.mu.Unlock()
}

// cancel stops task gen with cause; a later task of the slot is left alone.
func (t *Task) cancel(gen uint64, cause error) {
	t.mu.Lock()
	if t.gen != gen || t.cause != nil {
		t.mu.Unlock()
		return
	}
	t.cause = cause
	c := t.watching
	t.mu.Unlock()
	if c != nil {
		c.Cancel()
	}
}
