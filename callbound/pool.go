// Package callbound bounds CPU-heavy requests (eth_call, eth_estimateGas,
// eth_createAccessList): at most Workers run at once and at most Queue more
// wait, so that a flood of expensive calls degrades into fast rejections
// instead of unbounded queues and never takes the CPUs from block production
// and cheap requests.
//
// A task runs on its caller's goroutine once it holds one of the Workers
// slots. Handing it to a separate worker goroutine and back, as a classic
// worker pool does, costs two goroutine wake-ups per call and buys no
// isolation: the caller waits for the result either way, and the bound on
// concurrent calls is the same.
//
// Four rules keep one client from hurting the others:
//   - a client whose calls run long (heavy: a task of it ran past
//     heavyAfter in the last heavyMemory) shares, with every other heavy
//     client, one slot fewer than Workers: the last slot is kept for
//     clients whose calls are short, and the CPUs it stands for for block
//     production and cheap reads. A task cannot be paused once it runs, so
//     a client's first heavy call may still take the last slot; its next
//     ones may not. Short calls, however many, use every slot. A node
//     that produces no blocks lends heavy clients that slot while no
//     other client's call waits (Config.Lend); a short call that comes
//     meanwhile runs at once, beside them, in a slot kept for that;
//   - waiting callers are served round-robin by client (Caller.Key), so a
//     client with a thousand calls queued delays another client's call by
//     at most one call per client ahead of it, not by its whole backlog;
//   - with PerClient set, one client may have at most that many tasks
//     running or waiting;
//   - no work outlives its request: a task whose deadline passes, or whose
//     client hangs up, is cancelled while it runs and dropped, never run,
//     while it waits.
package callbound

import (
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

var (
	// ErrOverloaded is returned when every slot is busy and the wait list is
	// full; the RPC layer answers it as -32005 "request limit exceeded".
	ErrOverloaded = errors.New("request limit exceeded")
	// ErrTimeout is the cause when the caller's deadline (the request's)
	// passes: a waiting task is dropped, a running one cancelled.
	ErrTimeout = errors.New("request timed out")
	// ErrTimeLimit is the cause when a running task reaches its own time limit.
	ErrTimeLimit = errors.New("time limit reached")
	// ErrGone is the cause when the caller hung up.
	ErrGone = errors.New("client went away")
	// ErrClosed is the cause when the pool is shut down.
	ErrClosed = errors.New("shutting down")
)

// ShareError rejects a client that already has its share of the pool.
type ShareError struct {
	Key   netip.Addr
	Limit int
}

func (e *ShareError) Error() string {
	return fmt.Sprintf("too many concurrent calls from %s: at most %d may run or wait per client (--rpc.call.per-client)", e.Key, e.Limit)
}

// Config sizes the pool; zero values pick the defaults.
type Config struct {
	// Workers is how many tasks may run at once; default GOMAXPROCS.
	// Heavy clients share one fewer (see the package comment): the CPU
	// that leaves keeps blocks sealing and cheap reads answering under a
	// flood of the most expensive calls (PERFORMANCE.md, "Abuse battery"),
	// while short calls still use every CPU.
	Workers int
	// Queue is how many callers may wait for a slot; default 1024.
	Queue int
	// PerClient is the most tasks one client (Caller.Key) may have running
	// or waiting; 0 sets no share.
	PerClient int
	// Lend, when set and true, lets heavy clients take the slot kept from
	// them while no other client's task waits for a slot: the node needs
	// no CPU for block production (a replica, a standby, a node without
	// blocks). A task of another client that comes meanwhile does not wait
	// for the borrowed slot to be given back: it runs beside the heavy
	// ones, sharing the CPUs with them, in a slot the pool keeps for that.
	Lend func() bool
}

// DefaultWorkers is Workers' default on this machine.
func DefaultWorkers() int { return runtime.GOMAXPROCS(0) }

// Caller says whom a task runs for.
type Caller struct {
	// Key groups one client's tasks, for fairness and PerClient.
	Key netip.Addr
	// Deadline is the request's: a task waiting past it is dropped, a task
	// running past it cancelled. Zero means none.
	Deadline time.Time
	// Peer reports whether the client hung up; nil means it cannot tell.
	Peer interface{ Gone() bool }
}

const (
	// tick is how often the monitor looks at running and waiting tasks: the
	// resolution of time limits and deadlines.
	tick = 10 * time.Millisecond
	// goneAfter is how long a task runs or waits before the monitor starts
	// asking whether its client is still there (a poll(2) each time), and
	// goneEvery how often it asks again: short calls never pay for it.
	goneAfter = 50 * time.Millisecond
	goneEvery = 100 * time.Millisecond
	// idleLinger is how long the monitor stays after the last task, so a
	// steady stream of short calls does not start one goroutine per call.
	idleLinger = time.Second
	// heavyAfter is how long a task runs before its client counts as heavy,
	// and heavyMemory how long the client stays heavy after its last such
	// task. An eth_call of a token's balanceOf takes tens of microseconds.
	heavyAfter  = 20 * time.Millisecond
	heavyMemory = 10 * time.Second
)

// Bound is a bounded, fair executor. It is safe for concurrent use.
type Bound struct {
	workers, queue, perClient int
	reserve                   int // slots heavy clients may not take: 1 with two workers or more
	lend                      func() bool
	heavyAfter, heavyMemory   time.Duration

	mu         sync.Mutex
	slots      []slot  // by slot index
	tasks      []*Task // by slot index
	free       []int32 // slot indices not in use
	waiting    int
	ring       []*client // clients with waiting tasks, served in turn
	turn       int
	clients    map[netip.Addr]*client
	heavy      map[netip.Addr]time.Time // heavy clients, until when
	monitoring bool
	closed     bool

	rejected, dropped atomic.Uint64
	waiters           sync.Pool // *waiter
}

// slot is a running task.
type slot struct {
	busy     bool
	caller   Caller
	client   *client // when PerClient counts it
	start    time.Time
	deadline time.Time // the earlier of the caller's and the time limit
	cause    error     // what reaching deadline means
	checked  time.Time // last Gone check
	gen      uint64    // the slot's task count, for the Task
}

// waiter is a task waiting for a slot.
type waiter struct {
	gen     uint64 // changes each time the waiter is reused
	caller  Caller
	limit   time.Duration
	client  *client
	since   time.Time
	checked time.Time
	queued  bool
	slot    int32
	ready   chan error // nil: slot holds the task's slot
}

// client is one Key's tasks.
type client struct {
	key     netip.Addr
	tasks   int // running and waiting, counted when PerClient is set
	waiting []*waiter
}

// New makes a pool.
func New(cfg Config) *Bound {
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers()
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 1024
	}
	reserve := min(1, cfg.Workers-1)
	// The slots past Workers are run only by other clients' tasks while
	// heavy clients have borrowed the reserve (Lend).
	slots := cfg.Workers + reserve
	p := &Bound{
		workers:     cfg.Workers,
		queue:       cfg.Queue,
		perClient:   max(0, cfg.PerClient),
		reserve:     reserve,
		lend:        cfg.Lend,
		heavyAfter:  heavyAfter,
		heavyMemory: heavyMemory,
		slots:       make([]slot, slots),
		tasks:       make([]*Task, slots),
		free:        make([]int32, slots),
		clients:     make(map[netip.Addr]*client),
		heavy:       make(map[netip.Addr]time.Time),
	}
	for i := range p.free {
		p.free[i] = int32(slots - 1 - i)
		p.tasks[i] = new(Task)
	}
	p.waiters.New = func() any { return &waiter{ready: make(chan error, 1)} }
	return p
}

// Workers is how many tasks may run at once.
func (p *Bound) Workers() int { return p.workers }

// Do runs fn for c, with at most limit of running time (0: no limit), and
// returns when it has finished. When all slots are busy it waits its turn,
// unless Queue callers already wait: then it returns ErrOverloaded at once.
// It returns ErrTimeout or ErrGone without running fn when c's deadline
// passes or c hangs up while it waits, a *ShareError when c has its share
// already, and ErrClosed after Close. fn's Task is cancelled, with one of
// the errors above as its Err, when fn must stop; fn must not keep it.
func (p *Bound) Do(c Caller, limit time.Duration, fn func(t *Task)) error {
	idx, err := p.acquire(c, limit)
	if err != nil {
		return err
	}
	defer p.release(idx)
	fn(p.tasks[idx])
	return nil
}

func (p *Bound) acquire(c Caller, limit time.Duration) (int32, error) {
	now := time.Now()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return -1, ErrClosed
	}
	if !c.Deadline.IsZero() && !now.Before(c.Deadline) {
		p.mu.Unlock()
		p.dropped.Add(1)
		return -1, ErrTimeout
	}
	var cl *client
	if p.perClient > 0 {
		if cl = p.client(c.Key); cl.tasks >= p.perClient {
			p.forget(cl)
			p.mu.Unlock()
			p.rejected.Add(1)
			return -1, &ShareError{Key: c.Key, Limit: p.perClient}
		}
		cl.tasks++
	}
	// A free slot is never left to a waiting task that may start (release
	// and the monitor hand it on), so one that is free is this task's.
	if len(p.free) > 0 && p.mayStart(c.Key) {
		idx := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		p.start(idx, c, cl, limit, now)
		p.mu.Unlock()
		return idx, nil
	}
	if p.waiting >= p.queue {
		if cl != nil {
			cl.tasks--
			p.forget(cl)
		}
		p.mu.Unlock()
		p.rejected.Add(1)
		return -1, ErrOverloaded
	}
	w := p.waiters.Get().(*waiter)
	gen := w.gen
	*w = waiter{gen: gen, caller: c, limit: limit, since: now, queued: true, slot: -1, ready: w.ready}
	if cl == nil {
		cl = p.client(c.Key)
	}
	w.client = cl
	if len(cl.waiting) == 0 {
		p.ring = append(p.ring, cl)
	}
	cl.waiting = append(cl.waiting, w)
	p.waiting++
	p.watch()
	p.mu.Unlock()

	err := <-w.ready
	idx := w.slot
	w.gen++
	w.caller, w.client = Caller{}, nil
	p.waiters.Put(w)
	return idx, err
}

// start records the task in slot idx; the caller holds mu.
func (p *Bound) start(idx int32, c Caller, cl *client, limit time.Duration, now time.Time) {
	gen := p.slots[idx].gen + 1
	p.tasks[idx].begin(gen)
	s := slot{busy: true, caller: c, start: now, deadline: c.Deadline, cause: ErrTimeout, gen: gen}
	if p.perClient > 0 {
		s.client = cl
	}
	if limit > 0 && (s.deadline.IsZero() || now.Add(limit).Before(s.deadline)) {
		s.deadline, s.cause = now.Add(limit), ErrTimeLimit
	}
	p.slots[idx] = s
	p.watch()
}

// release gives slot idx to the next waiting task that may start, or
// frees it.
func (p *Bound) release(idx int32) {
	p.mu.Lock()
	if cl := p.slots[idx].client; cl != nil {
		cl.tasks--
		p.forget(cl)
	}
	p.slots[idx] = slot{gen: p.slots[idx].gen}
	p.free = append(p.free, idx)
	if p.waiting > 0 {
		p.dispatch(time.Now())
	}
	p.mu.Unlock()
}

// dispatch starts waiting tasks in free slots while some may start; the
// caller holds mu.
func (p *Bound) dispatch(now time.Time) {
	for len(p.free) > 0 {
		w := p.next(true)
		if w == nil {
			return
		}
		idx := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		p.start(idx, w.caller, w.client, w.limit, now)
		w.slot = idx
		w.ready <- nil
	}
}

// next takes the first waiting task of the next client in turn (with
// startable, the next one whose task may start now).
func (p *Bound) next(startable bool) *waiter {
	for range p.ring {
		p.turn %= len(p.ring)
		cl := p.ring[p.turn]
		if startable && !p.mayStart(cl.key) {
			p.turn++
			continue
		}
		w := cl.waiting[0]
		p.unqueue(cl, 0)
		if len(cl.waiting) > 0 {
			p.turn++ // cl stays in the ring: the next client's turn
		}
		return w
	}
	return nil
}

// mayStart reports whether a task of key may start now. While fewer than
// Workers run, any task may, but a heavy client's only while heavy clients
// hold fewer than Workers-reserve slots, or, when the reserve may be lent,
// no other client's task waits. Past Workers, only another client's task
// may start, in the slots heavy clients borrowed. The caller holds mu.
func (p *Bound) mayStart(key netip.Addr) bool {
	running := len(p.slots) - len(p.free)
	if len(p.heavy) == 0 {
		return running < p.workers
	}
	held := 0
	for i := range p.slots {
		if _, heavy := p.heavy[p.slots[i].caller.Key]; p.slots[i].busy && heavy {
			held++
		}
	}
	share := p.workers - p.reserve
	if _, heavy := p.heavy[key]; !heavy {
		return running < p.workers+min(p.reserve, max(0, held-share))
	}
	switch {
	case running >= p.workers:
		return false
	case held < share:
		return true
	}
	return p.lend != nil && p.lend() && !p.othersWait()
}

// othersWait reports whether a task of a client that is not heavy waits;
// the caller holds mu.
func (p *Bound) othersWait() bool {
	for _, cl := range p.ring {
		if _, heavy := p.heavy[cl.key]; !heavy {
			return true
		}
	}
	return false
}

// unqueue removes cl's i-th waiting task; the caller holds mu.
func (p *Bound) unqueue(cl *client, i int) {
	w := cl.waiting[i]
	w.queued = false
	copy(cl.waiting[i:], cl.waiting[i+1:])
	cl.waiting[len(cl.waiting)-1] = nil
	cl.waiting = cl.waiting[:len(cl.waiting)-1]
	p.waiting--
	at := -1
	for j, c := range p.ring {
		if c == cl {
			at = j
			break
		}
	}
	if len(cl.waiting) == 0 {
		p.ring = append(p.ring[:at], p.ring[at+1:]...)
		if at < p.turn {
			p.turn--
		}
		p.forget(cl)
	}
}

// client returns key's record, making it; the caller holds mu.
func (p *Bound) client(key netip.Addr) *client {
	cl := p.clients[key]
	if cl == nil {
		cl = &client{key: key}
		p.clients[key] = cl
	}
	return cl
}

// forget drops cl's record once nothing of it is left; the caller holds mu.
func (p *Bound) forget(cl *client) {
	if cl.tasks == 0 && len(cl.waiting) == 0 {
		delete(p.clients, cl.key)
	}
}

// watch starts the monitor if it is not running; the caller holds mu.
func (p *Bound) watch() {
	if !p.monitoring {
		p.monitoring = true
		go p.monitor()
	}
}

// Close cancels every running task and drops every waiting one with
// ErrClosed; later calls to Do return ErrClosed.
func (p *Bound) Close() {
	p.mu.Lock()
	p.closed = true
	var cancels []cancellation
	for i := range p.slots {
		if p.slots[i].busy {
			cancels = append(cancels, cancellation{p.tasks[i], p.slots[i].gen, ErrClosed})
		}
	}
	for len(p.ring) > 0 {
		w := p.next(false)
		w.ready <- ErrClosed
	}
	p.mu.Unlock()
	for _, c := range cancels {
		c.task.cancel(c.gen, c.cause)
	}
}

// Heavy is how many clients count as heavy now.
func (p *Bound) Heavy() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.heavy)
}

// Stats reports busy slots, callers waiting for one, tasks rejected (queue
// full, share exceeded) and dropped before running (deadline passed, client
// gone) so far.
func (p *Bound) Stats() (running, waiting int, rejected, dropped uint64) {
	p.mu.Lock()
	running, waiting = len(p.slots)-len(p.free), p.waiting
	p.mu.Unlock()
	return running, waiting, p.rejected.Load(), p.dropped.Load()
}
