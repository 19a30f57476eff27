package ratelimit

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time             { return c.t }
func (c *clock) advance(d time.Duration)    { c.t = c.t.Add(d) }
func limiter(cfg Config, c *clock) *Limiter { l := New(cfg); l.now = c.now; return l }

var (
	alice = netip.MustParseAddr("192.0.2.1")
	bob   = netip.MustParseAddr("192.0.2.2")
)

func TestOffIsNil(t *testing.T) {
	if New(Config{}) != nil {
		t.Fatal("a limiter with every rate off is not nil")
	}
}

func TestRequestsPerSecond(t *testing.T) {
	c := &clock{time.Unix(1000, 0)}
	l := limiter(Config{Requests: 10, RequestBurst: 20}, c)
	for i := 0; i < 20; i++ {
		if d := l.Allow(alice, 1, 0); d != nil {
			t.Fatalf("request %d of the burst denied: %v", i, d)
		}
	}
	d := l.Allow(alice, 1, 0)
	if d == nil || d.RetryAfter != 100*time.Millisecond || !strings.Contains(d.Error(), "--rpc.ratelimit.rps") {
		t.Fatalf("21st request: %v (retry %v), want a denial to retry in 100ms naming the flag", d, d.RetryAfter)
	}
	if d := l.Allow(bob, 1, 0); d != nil {
		t.Fatalf("another client denied: %v", d)
	}
	c.advance(100 * time.Millisecond)
	if d := l.Allow(alice, 1, 0); d != nil {
		t.Fatalf("after the refill: %v", d)
	}
}

func TestComputeUnits(t *testing.T) {
	c := &clock{time.Unix(1000, 0)}
	l := limiter(Config{Units: 100, UnitBurst: 200}, c)
	if d := l.Allow(alice, 1, 150); d != nil {
		t.Fatal(d)
	}
	d := l.Allow(alice, 1, 100)
	if d == nil || d.RetryAfter != 500*time.Millisecond {
		t.Fatalf("over the units: %v", d)
	}
	// A denied request is not charged.
	c.advance(500 * time.Millisecond)
	if d := l.Allow(alice, 1, 100); d != nil {
		t.Fatalf("after the refill: %v", d)
	}
	if d := l.Allow(bob, 1, 500); d == nil || !strings.Contains(d.Error(), "split it") {
		t.Fatalf("a cost over the burst: %v", d)
	}
}

func TestIdleClientsForgotten(t *testing.T) {
	c := &clock{time.Unix(1000, 0)}
	l := limiter(Config{Requests: 10}, c)
	for i := 0; i < 100; i++ {
		l.Allow(netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}), 1, 0)
	}
	if n := l.Clients(); n != 100 {
		t.Fatalf("%d clients remembered, want 100", n)
	}
	c.advance(sweepEvery)
	for i := 0; i < 64*4; i++ { // touch every shard
		l.Allow(netip.AddrFrom4([4]byte{11, 0, byte(i >> 8), byte(i)}), 1, 0)
	}
	if n := l.Clients(); n != 256 {
		t.Fatalf("%d clients remembered after the idle ones refilled, want the 256 new ones", n)
	}
}
