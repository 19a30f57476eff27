// Package pool runs CPU-heavy requests (eth_call, eth_estimateGas) on a
// bounded set of workers with a bounded wait list, so that a flood of
// expensive calls degrades into fast rejections instead of unbounded queues.
package pool

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/panjf2000/ants/v2"
)

// ErrOverloaded is returned when every worker is busy and the wait list is
// full; the RPC layer answers it as -32005 "request limit exceeded".
var ErrOverloaded = errors.New("request limit exceeded")

// Config sizes the pool; zero values pick the defaults.
type Config struct {
	// Workers run tasks; default 4 per CPU (calls block briefly on state
	// reads, so a few more workers than cores keeps the CPUs busy).
	Workers int
	// Queue is how many callers may wait for a worker; default 1024.
	Queue int
}

// Pool is a bounded worker pool. It is safe for concurrent use.
type Pool struct {
	workers  *ants.Pool
	tasks    sync.Pool // *task
	rejected atomic.Uint64
}

type task struct {
	fn   func()
	done chan struct{}
	run  func() // bound once to this task: no closure per Do
}

// New starts a pool.
func New(cfg Config) (*Pool, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 4 * runtime.GOMAXPROCS(0)
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 1024
	}
	workers, err := ants.NewPool(cfg.Workers, ants.WithMaxBlockingTasks(cfg.Queue), ants.WithPreAlloc(true))
	if err != nil {
		return nil, fmt.Errorf("start worker pool: %w", err)
	}
	p := &Pool{workers: workers}
	p.tasks.New = func() any {
		t := &task{done: make(chan struct{}, 1)}
		t.run = func() {
			t.fn()
			t.done <- struct{}{}
		}
		return t
	}
	return p, nil
}

// Do runs fn on a worker and returns when it has finished. When all workers
// are busy it waits, unless Queue callers already wait: then it returns
// ErrOverloaded at once without running fn.
func (p *Pool) Do(fn func()) error {
	t := p.tasks.Get().(*task)
	t.fn = fn
	if err := p.workers.Submit(t.run); err != nil {
		t.fn = nil
		p.tasks.Put(t)
		if errors.Is(err, ants.ErrPoolOverload) {
			p.rejected.Add(1)
			return ErrOverloaded
		}
		return fmt.Errorf("submit task: %w", err)
	}
	<-t.done
	t.fn = nil
	p.tasks.Put(t)
	return nil
}

// Stats reports busy workers, callers waiting for one, and rejections so far.
func (p *Pool) Stats() (running, waiting int, rejected uint64) {
	return p.workers.Running(), p.workers.Waiting(), p.rejected.Load()
}

// Close stops the workers; tasks already running finish.
func (p *Pool) Close() { p.workers.Release() }
