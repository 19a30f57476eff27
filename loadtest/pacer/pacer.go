// Package pacer spaces the requests of a set of workers so that together
// they offer a fixed rate.
package pacer

import (
	"time"
)

// Pacer spaces one worker's requests so that all workers together offer a
// fixed rate, the workers' schedules staggered evenly. It compares servers'
// latency at the same load: unpaced, a faster server is offered more, and on
// a machine it shares with the generator that load itself lengthens the tail.
type Pacer struct {
	interval time.Duration
	next     time.Time
}

// New paces worker w of workers, all of them together offering rate
// requests per second from start.
func New(rate float64, workers, w int, start time.Time) *Pacer {
	if rate <= 0 {
		return &Pacer{}
	}
	interval := time.Duration(float64(workers) / rate * float64(time.Second))
	return &Pacer{interval: interval, next: start.Add(interval * time.Duration(w) / time.Duration(workers))}
}

// Wait sleeps until the worker's next send time; a worker behind its
// schedule sends at once.
func (p *Pacer) Wait() {
	if p.interval == 0 {
		return
	}
	if d := time.Until(p.next); d > 0 {
		time.Sleep(d)
	}
	p.next = p.next.Add(p.interval)
	if now := time.Now(); p.next.Before(now) {
		p.next = now // do not burst to catch up
	}
}
