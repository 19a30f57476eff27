package callbound

import (
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	clientA = netip.MustParseAddr("192.0.2.1")
	clientB = netip.MustParseAddr("192.0.2.2")
)

// stopper is work that records being cancelled.
type stopper chan struct{}

func (s stopper) Cancel() { close(s) }

// waitCancelled watches task until it is cancelled and returns why.
func waitCancelled(task *Task) error {
	s := make(stopper)
	task.Watch(s)
	defer task.Unwatch()
	<-s
	return task.Err()
}

// fakePeer hangs up when told to.
type fakePeer struct{ gone atomic.Bool }

func (f *fakePeer) Gone() bool { return f.gone.Load() }

// eventually fails the test if cond does not hold within a generous bound;
// it only keeps a broken pool from hanging the test.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i == 10_000 {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// blocker occupies every slot of p until release is closed.
func blocker(t *testing.T, p *Bound, c Caller) (release func()) {
	t.Helper()
	ch := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < p.Workers(); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Do(c, 0, func(*Task) { <-ch })
		}()
	}
	eventually(t, "blockers run", func() bool { run, _, _, _ := p.Stats(); return run == p.Workers() })
	return func() { close(ch); wg.Wait() }
}

// waitFor waits until n callers wait.
func waitFor(t *testing.T, p *Bound, n int) {
	t.Helper()
	eventually(t, "callers wait", func() bool { _, w, _, _ := p.Stats(); return w == n })
}

func TestDoRunsAndWaits(t *testing.T) {
	p := New(Config{Workers: 2, Queue: 64})
	var n atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Do(Caller{Key: clientA}, 0, func(*Task) { n.Add(1) }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n.Load() != 50 {
		t.Fatalf("ran %d tasks, want 50", n.Load())
	}
	if run, wait, _, _ := p.Stats(); run != 0 || wait != 0 {
		t.Fatalf("after the burst: %d running, %d waiting", run, wait)
	}
}

// With every worker busy and the wait list full, Do rejects at once.
func TestDoRejectsWhenFull(t *testing.T) {
	const queue = 3
	p := New(Config{Workers: 2, Queue: queue})
	release := blocker(t, p, Caller{})
	var wg sync.WaitGroup
	for i := 0; i < queue; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); p.Do(Caller{}, 0, func(*Task) {}) }()
	}
	waitFor(t, p, queue)
	ran := false
	if err := p.Do(Caller{}, 0, func(*Task) { ran = true }); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Do on a full pool = %v, want ErrOverloaded", err)
	}
	if ran {
		t.Fatal("rejected task ran")
	}
	if _, _, rejected, _ := p.Stats(); rejected != 1 {
		t.Fatalf("rejected = %d, want 1", rejected)
	}
	release()
	wg.Wait()
	if err := p.Do(Caller{}, 0, func(*Task) {}); err != nil {
		t.Fatalf("Do after the burst = %v", err)
	}
}

// A client with a long queue delays another client's task by one of its
// own, not by its whole backlog.
func TestWaitersServedRoundRobinByClient(t *testing.T) {
	p := New(Config{Workers: 1, Queue: 64})
	release := blocker(t, p, Caller{Key: clientA})
	var mu sync.Mutex
	var order []netip.Addr
	var wg sync.WaitGroup
	run := func(key netip.Addr) {
		defer wg.Done()
		p.Do(Caller{Key: key}, 0, func(*Task) { mu.Lock(); order = append(order, key); mu.Unlock() })
	}
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go run(clientA)
		waitFor(t, p, i+1)
	}
	wg.Add(1)
	go run(clientB)
	waitFor(t, p, 11)
	release()
	wg.Wait()
	at := -1
	for i, k := range order {
		if k == clientB {
			at = i
		}
	}
	if at < 0 || at > 1 {
		t.Fatalf("client B's task ran at position %d of %v, want 0 or 1", at, order)
	}
}

func TestPerClientShare(t *testing.T) {
	p := New(Config{Workers: 1, Queue: 64, PerClient: 2})
	release := blocker(t, p, Caller{Key: clientA})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.Do(Caller{Key: clientA}, 0, func(*Task) {}) }()
	waitFor(t, p, 1)
	var share *ShareError
	if err := p.Do(Caller{Key: clientA}, 0, func(*Task) { t.Error("over-share task ran") }); !errors.As(err, &share) || share.Limit != 2 {
		t.Fatalf("third task of client A = %v, want a ShareError with limit 2", err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := p.Do(Caller{Key: clientB}, 0, func(*Task) {}); err != nil {
			t.Errorf("client B = %v", err)
		}
	}()
	waitFor(t, p, 2)
	release()
	wg.Wait()
	if err := p.Do(Caller{Key: clientA}, 0, func(*Task) {}); err != nil {
		t.Fatalf("client A after its tasks ended = %v", err)
	}
	if n := len(p.clients); n != 0 {
		t.Fatalf("%d client records left behind", n)
	}
}

// Work whose request is over or whose client left is never run, and is
// stopped if it runs.
func TestNoWorkOutlivesItsRequest(t *testing.T) {
	past := time.Now().Add(-time.Second)
	tests := []struct {
		name    string
		caller  func(*fakePeer) Caller
		limit   time.Duration
		hangUp  bool
		waiting bool  // the task waits behind a blocker
		want    error // Do's error (waiting) or the context's cause (running)
	}{
		{"deadline passed before", func(*fakePeer) Caller { return Caller{Deadline: past} }, 0, false, false, ErrTimeout},
		{"deadline passes while waiting", func(*fakePeer) Caller { return Caller{Deadline: time.Now().Add(30 * time.Millisecond)} }, 0, false, true, ErrTimeout},
		{"client gone while waiting", func(f *fakePeer) Caller { return Caller{Peer: f} }, 0, true, true, ErrGone},
		{"deadline passes while running", func(*fakePeer) Caller { return Caller{Deadline: time.Now().Add(30 * time.Millisecond)} }, 0, false, false, ErrTimeout},
		{"time limit while running", func(*fakePeer) Caller { return Caller{} }, 30 * time.Millisecond, false, false, ErrTimeLimit},
		{"client gone while running", func(f *fakePeer) Caller { return Caller{Peer: f} }, 0, true, false, ErrGone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(Config{Workers: 1, Queue: 8})
			peer := new(fakePeer)
			release := func() {}
			if tt.waiting {
				release = blocker(t, p, Caller{})
			}
			var cause error
			ran := false
			done := make(chan error, 1)
			go func() {
				done <- p.Do(tt.caller(peer), tt.limit, func(task *Task) {
					ran = true
					cause = waitCancelled(task)
				})
			}()
			if tt.waiting {
				waitFor(t, p, 1)
			}
			if tt.hangUp {
				peer.gone.Store(true)
			}
			err := <-done
			release()
			if tt.waiting || errors.Is(tt.want, ErrTimeout) && !ran {
				if !errors.Is(err, tt.want) || ran {
					t.Fatalf("Do = %v (ran %v), want %v without running", err, ran, tt.want)
				}
				if _, _, _, dropped := p.Stats(); dropped != 1 {
					t.Fatalf("dropped = %d, want 1", dropped)
				}
				return
			}
			if err != nil || !errors.Is(cause, tt.want) {
				t.Fatalf("Do = %v, cause %v; want nil and cause %v", err, cause, tt.want)
			}
		})
	}
}

func TestClose(t *testing.T) {
	p := New(Config{Workers: 1, Queue: 8})
	running := make(chan error, 1)
	go p.Do(Caller{}, 0, func(task *Task) { running <- waitCancelled(task) })
	eventually(t, "task runs", func() bool { run, _, _, _ := p.Stats(); return run == 1 })
	waiting := make(chan error, 1)
	go func() { waiting <- p.Do(Caller{}, 0, func(*Task) { t.Error("dropped task ran") }) }()
	waitFor(t, p, 1)
	p.Close()
	if err := <-running; !errors.Is(err, ErrClosed) {
		t.Fatalf("running task's cause = %v, want ErrClosed", err)
	}
	if err := <-waiting; !errors.Is(err, ErrClosed) {
		t.Fatalf("waiting task = %v, want ErrClosed", err)
	}
	if err := p.Do(Caller{}, 0, func(*Task) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Do after Close = %v", err)
	}
}

// A client whose calls run long shares one slot fewer than Workers with
// the other heavy clients: another client's short call finds the last
// slot free, and once its calls are short again the client has them all.
func TestHeavyClientsLeaveASlot(t *testing.T) {
	p := New(Config{Workers: 2, Queue: 8})
	p.heavyAfter, p.heavyMemory = time.Millisecond, 200*time.Millisecond
	release := make(chan struct{})
	first := make(chan struct{})
	go p.Do(Caller{Key: clientA}, 0, func(*Task) { close(first); <-release })
	<-first
	eventually(t, "client A counts as heavy", func() bool { return p.Heavy() == 1 })

	second := make(chan struct{})
	go p.Do(Caller{Key: clientA}, 0, func(*Task) { close(second) })
	waitFor(t, p, 1) // A's next call waits although a slot is free
	ran := false
	if err := p.Do(Caller{Key: clientB}, 0, func(*Task) { ran = true }); err != nil || !ran {
		t.Fatalf("client B's call on the free slot: %v, ran %v", err, ran)
	}
	select {
	case <-second:
		t.Fatal("heavy client A took the last slot")
	default:
	}
	close(release)
	<-second // A's first call is over: its second runs

	eventually(t, "client A is no longer heavy", func() bool { return p.Heavy() == 0 })
	hold := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	for i := 0; i < 2; i++ {
		go p.Do(Caller{Key: clientA}, 0, func(*Task) { started.Done(); <-hold })
	}
	started.Wait() // both slots, with A no longer heavy
	close(hold)
}

// With one worker there is no slot to keep: a heavy client still runs.
func TestHeavyClientWithOneWorker(t *testing.T) {
	p := New(Config{Workers: 1, Queue: 8})
	p.heavyAfter = time.Millisecond
	if err := p.Do(Caller{Key: clientA}, 0, func(*Task) { time.Sleep(20 * time.Millisecond) }); err != nil {
		t.Fatal(err)
	}
	eventually(t, "client A counts as heavy", func() bool { return p.Heavy() == 1 })
	ran := false
	if err := p.Do(Caller{Key: clientA}, 0, func(*Task) { ran = true }); err != nil || !ran {
		t.Fatalf("heavy client with one worker: %v, ran %v", err, ran)
	}
}

// Where the reserve may be lent, a heavy client alone takes all Workers
// slots; another client's call that comes meanwhile runs at once beside
// them, and no third task of the heavy client starts until one of its
// own ends. Where it may not, the reserve stays kept from the heavy client.
func TestHeavyClientBorrowsTheReserve(t *testing.T) {
	var lend atomic.Bool
	lend.Store(true)
	p := New(Config{Workers: 2, Queue: 8, Lend: lend.Load})
	p.heavyAfter, p.heavyMemory = time.Millisecond, time.Minute
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(1)
	go p.Do(Caller{Key: clientA}, 0, func(*Task) { started.Done(); <-release })
	started.Wait()
	eventually(t, "client A counts as heavy", func() bool { return p.Heavy() == 1 })

	lent := make(chan struct{})
	go p.Do(Caller{Key: clientA}, 0, func(*Task) { close(lent); <-release })
	select {
	case <-lent: // the reserve, lent: both Workers slots are A's
	case <-time.After(5 * time.Second):
		t.Fatal("heavy client A alone was not lent the reserve")
	}
	ran := false
	if err := p.Do(Caller{Key: clientB}, 0, func(*Task) { ran = true }); err != nil || !ran {
		t.Fatalf("client B's call beside the borrowed slot: %v, ran %v", err, ran)
	}
	if running, _, _, _ := p.Stats(); running != 2 {
		t.Fatalf("%d tasks running after B's, want A's 2", running)
	}

	third := make(chan struct{})
	go p.Do(Caller{Key: clientA}, 0, func(*Task) { close(third) })
	waitFor(t, p, 1) // past Workers: A waits
	close(release)
	<-third

	// Without lending, the reserve stays kept from A.
	lend.Store(false)
	hold := make(chan struct{})
	defer close(hold)
	started.Add(1)
	go p.Do(Caller{Key: clientA}, 0, func(*Task) { started.Done(); <-hold })
	started.Wait()
	go p.Do(Caller{Key: clientA}, 0, func(*Task) {})
	waitFor(t, p, 1)
}

// A freed slot goes to another client's waiting call, and the heavy client
// whose call waited first in turn does not borrow the reserve beside it.
func TestBorrowingYieldsToWaitingCalls(t *testing.T) {
	p := New(Config{Workers: 2, Queue: 8, Lend: func() bool { return true }})
	// A is heavy from the start and B never becomes so, however long its
	// calls wait here.
	p.heavyAfter = time.Hour
	p.mu.Lock()
	p.heavy[clientA] = time.Now().Add(time.Hour)
	p.mu.Unlock()
	holdA, holdB := make(chan struct{}), make(chan struct{})
	defer close(holdA)
	var started sync.WaitGroup
	started.Add(1)
	go p.Do(Caller{Key: clientA}, 0, func(*Task) { started.Done(); <-holdA })
	started.Wait()
	started.Add(1)
	go p.Do(Caller{Key: clientB}, 0, func(*Task) { started.Done(); <-holdB })
	started.Wait() // Workers slots busy: A's share and B

	borrowed := make(chan struct{})
	go p.Do(Caller{Key: clientA}, 0, func(*Task) { close(borrowed) })
	waitFor(t, p, 1)
	second := make(chan struct{})
	go p.Do(Caller{Key: clientB}, 0, func(*Task) { close(second); <-holdA })
	waitFor(t, p, 2)
	close(holdB) // B's first call ends: its second takes the slot
	select {
	case <-second:
	case <-time.After(5 * time.Second):
		t.Fatal("client B's waiting call did not start")
	}
	select {
	case <-borrowed:
		t.Fatal("heavy client A borrowed the slot while client B's call waited")
	case <-time.After(50 * time.Millisecond):
	}
	if running, waiting, _, _ := p.Stats(); running != 2 || waiting != 1 {
		t.Fatalf("%d running, %d waiting; want A's first and B's second running, A's second waiting", running, waiting)
	}
}
