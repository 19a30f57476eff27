package lease

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Campaign runs until ctx ends: it takes the lease whenever it is free,
// and while it holds it runs lead with a context that ends as soon as the
// lease may be lost, then waits for lead to return before it competes
// again; a lead that returns on its own gives the lease up, and the
// candidate competes again a Renew interval later. A waiting candidate
// takes the lease when it is deleted or expires, or when its holder has
// not renewed it for a TTL. A holder that cannot confirm a renewal for
// TTL−Renew (a slow or partitioned NATS) steps down before a waiting
// candidate may take over, so that it never leads past that moment.
// When ctx ends, a held lease is released for the next candidate.
func (l *Lease) Campaign(ctx context.Context, log *slog.Logger, lead func(ctx context.Context)) {
	for ctx.Err() == nil {
		held, err := l.Acquire(ctx)
		if err != nil {
			log.Warn("Leader lease: cannot reach NATS to take it", "err", err)
		}
		if !held && !l.awaitTurn(ctx, log) {
			continue
		}
		log.Info("Leader lease taken", "holder", l.cfg.Holder, "ttl", l.cfg.TTL)
		l.hold(ctx, log, lead)
		if l.rev != 0 && ctx.Err() == nil {
			l.release(log)
			sleep(ctx, l.cfg.Renew)
		}
	}
	l.release(log)
}

// release gives a held lease up, for the next candidate.
func (l *Lease) release(log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.Renew)
	defer cancel()
	if err := l.Release(ctx); err != nil {
		log.Warn("Leader lease not released; the next candidate waits out its TTL", "err", err)
	}
}

// hold runs lead while the lease is renewed, and returns once lead has.
func (l *Lease) hold(ctx context.Context, log *slog.Logger, lead func(ctx context.Context)) {
	leadCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		lead(leadCtx)
	}()
	defer func() { stop(); <-done }()
	confirmed := time.Now()
	ticker := time.NewTicker(l.cfg.Renew)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-ticker.C:
		}
		renewCtx, cancel := context.WithTimeout(ctx, l.cfg.Renew)
		err := l.Renew(renewCtx)
		cancel()
		switch {
		case err == nil:
			confirmed = time.Now()
		case err == ErrLost:
			log.Warn("Leader lease lost: another candidate holds it or it expired; stepping down")
			return
		case time.Since(confirmed) > l.cfg.TTL-l.cfg.Renew:
			log.Warn("Leader lease unconfirmed for too long; stepping down before it can expire", "err", err, "since", time.Since(confirmed))
			l.rev = 0
			return
		}
	}
}

// awaitTurn waits for the holder to go: it returns true once it took the
// lease from a holder whose revision stood for a TTL (TakeStale), and
// false when the lease may be free (its entry deleted or expired) or the
// watch failed, for the caller to try a create.
func (l *Lease) awaitTurn(ctx context.Context, log *slog.Logger) bool {
	w, err := l.kv.Watch(ctx, key)
	if err != nil {
		log.Warn("Leader lease: cannot watch it", "err", err)
		sleep(ctx, l.cfg.Renew)
		return false
	}
	defer w.Stop()
	// The revision this candidate last saw, and a timer that fires a TTL
	// after it saw it. Its own clock, not the entry's timestamp: the
	// servers' clocks need not agree with it.
	var rev uint64
	silent := time.NewTimer(l.cfg.TTL)
	defer silent.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				sleep(ctx, l.cfg.Renew)
				return false
			case e == nil: // the entry's present value is delivered: none means free
				if rev == 0 {
					return false
				}
			case e.Operation() != jetstream.KeyValuePut:
				return false
			default:
				rev = e.Revision()
				silent.Reset(l.cfg.TTL)
			}
		case <-silent.C:
			if rev == 0 {
				return false
			}
			held, err := l.TakeStale(ctx, rev)
			if err != nil {
				log.Warn("Leader lease: cannot reach NATS to take it", "err", err)
			}
			if held {
				log.Info("Leader lease taken from a holder silent for its TTL", "revision", rev)
				return true
			}
			silent.Reset(l.cfg.TTL) // renewed meanwhile: the watch brings the renewal
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
