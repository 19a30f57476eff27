package pool

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoRunsAndWaits(t *testing.T) {
	p := New(Config{Workers: 2, Queue: 4})
	var n atomic.Int32
	for i := 0; i < 10; i++ {
		if err := p.Do(func() { n.Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	if n.Load() != 10 {
		t.Fatalf("ran %d tasks, want 10", n.Load())
	}
}

// With every worker busy and the wait list full, Do rejects at once.
func TestDoRejectsWhenFull(t *testing.T) {
	const workers, queue = 2, 3
	p := New(Config{Workers: workers, Queue: queue})
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(workers)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Do(func() { started.Done(); <-release })
		}()
	}
	started.Wait()
	for i := 0; i < queue; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); p.Do(func() {}) }()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, waiting, _ := p.Stats(); waiting == queue {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("queued callers never waited")
		}
		time.Sleep(time.Millisecond)
	}
	ran := false
	if err := p.Do(func() { ran = true }); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Do on a full pool = %v, want ErrOverloaded", err)
	}
	if ran {
		t.Fatal("rejected task ran")
	}
	if _, _, rejected := p.Stats(); rejected != 1 {
		t.Fatalf("rejected = %d, want 1", rejected)
	}
	close(release)
	wg.Wait()
	if err := p.Do(func() {}); err != nil {
		t.Fatalf("Do after the burst = %v", err)
	}
}
