// Package ratelimit meters clients: requests per second and compute units
// per second (methods weighted by their cost, as hosted providers meter
// them) per client address, each a token bucket with a burst. It keeps one
// small record per active client and forgets idle ones as it goes, with no
// goroutine of its own.
package ratelimit

import (
	"fmt"
	"net/netip"
	"sync"
	"time"
)

// Config sets the rates; a zero rate turns that limit off.
type Config struct {
	Requests     float64 // requests per second per client
	RequestBurst float64 // requests a client may make at once; default 2 s of Requests
	Units        float64 // compute units per second per client
	UnitBurst    float64 // units a client may spend at once; default 2 s of Units
}

// Enabled reports whether any limit is on.
func (c Config) Enabled() bool { return c.Requests > 0 || c.Units > 0 }

// Limiter meters clients. It is safe for concurrent use.
type Limiter struct {
	req, units bucketRate
	shards     [64]shard
	now        func() time.Time
}

type bucketRate struct{ rate, burst float64 }

type shard struct {
	mu        sync.Mutex
	clients   map[netip.Addr]*meter
	lastSweep time.Time
}

// meter is one client's two buckets.
type meter struct {
	req, units float64 // tokens left
	last       time.Time
}

// sweepEvery is how often a shard forgets clients whose buckets have
// refilled: they are indistinguishable from new ones.
const sweepEvery = 10 * time.Second

// New returns a limiter; nil if cfg turns every limit off.
func New(cfg Config) *Limiter {
	if !cfg.Enabled() {
		return nil
	}
	if cfg.RequestBurst <= 0 {
		cfg.RequestBurst = 2 * cfg.Requests
	}
	if cfg.UnitBurst <= 0 {
		cfg.UnitBurst = 2 * cfg.Units
	}
	l := &Limiter{req: bucketRate{cfg.Requests, cfg.RequestBurst}, units: bucketRate{cfg.Units, cfg.UnitBurst}, now: time.Now}
	for i := range l.shards {
		l.shards[i].clients = make(map[netip.Addr]*meter)
	}
	return l
}

// Denial says why a client must wait, and how long.
type Denial struct {
	RetryAfter time.Duration
	reason     string
}

func (d *Denial) Error() string { return d.reason }

// Allow charges n requests costing units compute units to client key. When
// either bucket cannot pay, nothing is charged and the Denial says when it
// could (a cost over the burst can never be paid; its Denial says so).
func (l *Limiter) Allow(key netip.Addr, n, units float64) *Denial {
	return l.AllowAt(key, n, units, l.now())
}

// AllowAt is Allow at now, for a caller that read the clock already (a
// clock read costs about as much as the rest of Allow).
func (l *Limiter) AllowAt(key netip.Addr, n, units float64, now time.Time) *Denial {
	sh := &l.shards[shardOf(key)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if now.Sub(sh.lastSweep) >= sweepEvery {
		l.sweep(sh, now)
	}
	m := sh.clients[key]
	if m == nil {
		m = &meter{req: l.req.burst, units: l.units.burst, last: now}
		sh.clients[key] = m
	}
	elapsed := now.Sub(m.last).Seconds()
	m.last = now
	m.req = min(l.req.burst, m.req+elapsed*l.req.rate)
	m.units = min(l.units.burst, m.units+elapsed*l.units.rate)
	if d := l.req.deny(m.req, n, "requests", "--rpc.ratelimit.rps"); d != nil {
		return d
	}
	if d := l.units.deny(m.units, units, "compute units", "--rpc.ratelimit.cups"); d != nil {
		return d
	}
	if l.req.rate > 0 {
		m.req -= n
	}
	if l.units.rate > 0 {
		m.units -= units
	}
	return nil
}

// deny checks that have tokens pay cost.
func (b bucketRate) deny(have, cost float64, what, flag string) *Denial {
	switch {
	case b.rate <= 0 || cost <= have:
		return nil
	case cost > b.burst:
		return &Denial{
			RetryAfter: time.Duration(b.burst / b.rate * float64(time.Second)),
			reason:     fmt.Sprintf("rate limited: this request costs %.0f %s, more than the %.0f a client may spend at once (%s); split it", cost, what, b.burst, flag),
		}
	}
	wait := time.Duration((cost - have) / b.rate * float64(time.Second))
	return &Denial{
		RetryAfter: wait,
		reason:     fmt.Sprintf("rate limited: over %.0f %s per second per client (%s); retry in %v", b.rate, what, flag, wait.Round(time.Millisecond)),
	}
}

// sweep forgets clients whose buckets are full again; the caller holds sh.mu.
func (l *Limiter) sweep(sh *shard, now time.Time) {
	sh.lastSweep = now
	for key, m := range sh.clients {
		idle := now.Sub(m.last).Seconds()
		if l.req.refilled(m.req, idle) && l.units.refilled(m.units, idle) {
			delete(sh.clients, key)
		}
	}
}

func (b bucketRate) refilled(have, idle float64) bool {
	return b.rate <= 0 || have+idle*b.rate >= b.burst
}

// Clients is how many clients the limiter remembers.
func (l *Limiter) Clients() int {
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		n += len(sh.clients)
		sh.mu.Unlock()
	}
	return n
}

func shardOf(a netip.Addr) int {
	b := a.As16()
	h := uint32(2166136261)
	for _, x := range b {
		h = (h ^ uint32(x)) * 16777619
	}
	return int(h % 64)
}
