package pacer

import (
	"testing"
	"time"
)

// Paced workers offer the rate asked for, their schedules staggered.
func TestPacer(t *testing.T) {
	start := time.Now()
	tests := []struct {
		rate         float64
		workers, w   int
		wantInterval time.Duration
		wantFirst    time.Duration
	}{
		{rate: 0, workers: 4, w: 1},
		{rate: 1000, workers: 4, w: 0, wantInterval: 4 * time.Millisecond},
		{rate: 1000, workers: 4, w: 3, wantInterval: 4 * time.Millisecond, wantFirst: 3 * time.Millisecond},
		{rate: 64_000, workers: 64, w: 32, wantInterval: time.Millisecond, wantFirst: 500 * time.Microsecond},
	}
	for _, tt := range tests {
		p := New(tt.rate, tt.workers, tt.w, start)
		if p.interval != tt.wantInterval {
			t.Errorf("rate %v, %d workers: interval %v, want %v", tt.rate, tt.workers, p.interval, tt.wantInterval)
		}
		if tt.rate > 0 && p.next.Sub(start) != tt.wantFirst {
			t.Errorf("rate %v, worker %d of %d: first send at +%v, want +%v", tt.rate, tt.w, tt.workers, p.next.Sub(start), tt.wantFirst)
		}
	}
	// Paced: 20 sends at 2 ms spacing take about 40 ms, never a burst.
	p := New(500, 1, 0, time.Now())
	began := time.Now()
	for range 20 {
		p.Wait()
	}
	if took := time.Since(began); took < 36*time.Millisecond {
		t.Fatalf("20 paced sends at 500/s took %v, want about 38 ms", took)
	}
}
