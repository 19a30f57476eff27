package callbound

import (
	"time"
)

// monitor enforces deadlines and time limits and stops work for clients
// that hung up, every tick while the pool has tasks; it exits after
// idleLinger without any.
func (p *Bound) monitor() {
	var idle time.Time
	for {
		time.Sleep(tick)
		now := time.Now()
		p.mu.Lock()
		if p.waiting == 0 && len(p.free) == len(p.slots) {
			if idle.IsZero() {
				idle = now
			}
			p.expireHeavy(now)
			if (now.Sub(idle) >= idleLinger && len(p.heavy) == 0) || p.closed {
				p.monitoring = false
				p.mu.Unlock()
				return
			}
			p.mu.Unlock()
			continue
		}
		idle = time.Time{}
		cancels, suspects := p.scan(now)
		p.expireHeavy(now)
		p.mu.Unlock()
		for _, c := range cancels {
			c.task.cancel(c.gen, c.cause)
		}
		p.checkGone(suspects)
	}
}

// cancellation is a running task to stop, outside the lock.
type cancellation struct {
	task  *Task
	gen   uint64
	cause error
}

// suspect is a task whose client the monitor asks about, outside the lock.
type suspect struct {
	peer interface{ Gone() bool }
	task *Task   // a running task (at generation gen)
	w    *waiter // or a waiting one, at generation gen
	gen  uint64
}

// scan drops waiting tasks past their deadline and returns the running
// tasks to cancel and those whose client is due a check; the caller holds mu.
func (p *Bound) scan(now time.Time) ([]cancellation, []suspect) {
	var cancels []cancellation
	var suspects []suspect
	for i := range p.slots {
		s := &p.slots[i]
		switch {
		case !s.busy:
			continue
		}
		if now.Sub(s.start) >= p.heavyAfter {
			// Marked while it runs, so the client's next calls wait for
			// a slot heavy clients may take.
			p.heavy[s.caller.Key] = now.Add(p.heavyMemory)
		}
		switch {
		case !s.deadline.IsZero() && !now.Before(s.deadline):
			cancels = append(cancels, cancellation{p.tasks[i], s.gen, s.cause})
			s.deadline = time.Time{} // once
		case due(s.caller.Peer, s.start, &s.checked, now):
			suspects = append(suspects, suspect{peer: s.caller.Peer, task: p.tasks[i], gen: s.gen})
		}
	}
	for _, cl := range append([]*client(nil), p.ring...) {
		for i := 0; i < len(cl.waiting); i++ {
			w := cl.waiting[i]
			switch {
			case !w.caller.Deadline.IsZero() && !now.Before(w.caller.Deadline):
				p.drop(cl, i, ErrTimeout)
				i--
			case due(w.caller.Peer, w.since, &w.checked, now):
				suspects = append(suspects, suspect{peer: w.caller.Peer, w: w, gen: w.gen})
			}
		}
	}
	return cancels, suspects
}

// expireHeavy forgets clients no longer heavy, and starts their waiting
// tasks where slots are free; the caller holds mu.
func (p *Bound) expireHeavy(now time.Time) {
	expired := false
	for key, until := range p.heavy {
		if now.After(until) {
			delete(p.heavy, key)
			expired = true
		}
	}
	if expired {
		p.dispatch(now)
	}
}

// due reports whether a task that began at since is due a Gone check.
func due(peer interface{ Gone() bool }, since time.Time, checked *time.Time, now time.Time) bool {
	if peer == nil || now.Sub(since) < goneAfter || now.Sub(*checked) < goneEvery {
		return false
	}
	*checked = now
	return true
}

// checkGone asks each suspect's client whether it is still there and stops
// the work of those that are not.
func (p *Bound) checkGone(suspects []suspect) {
	for _, s := range suspects {
		if !s.peer.Gone() {
			continue
		}
		if s.task != nil {
			s.task.cancel(s.gen, ErrGone)
			continue
		}
		p.mu.Lock()
		if s.w.gen == s.gen && s.w.queued {
			for i, w := range s.w.client.waiting {
				if w == s.w {
					p.drop(s.w.client, i, ErrGone)
					break
				}
			}
		}
		p.mu.Unlock()
	}
}

// drop ends cl's i-th waiting task without running it; the caller holds mu.
func (p *Bound) drop(cl *client, i int, cause error) {
	w := cl.waiting[i]
	p.unqueue(cl, i)
	if p.perClient > 0 {
		cl.tasks--
		p.forget(cl)
	}
	p.dropped.Add(1)
	w.ready <- cause
}
