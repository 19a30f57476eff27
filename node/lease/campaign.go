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
// candidate competes again a Renew interval later. A holder that cannot confirm a renewal for TTL−Renew (a slow or
// partitioned NATS) steps down before the entry can expire under it, so
// that it never leads past the moment another candidate may take over.
// When ctx ends, a held lease is released for the next candidate.
func (l *Lease) Campaign(ctx context.Context, log *slog.Logger, lead func(ctx context.Context)) {
	for ctx.Err() == nil {
		held, err := l.Acquire(ctx)
		if err != nil {
			log.Warn("Leader lease: cannot reach NATS to take it", "err", err)
		}
		if !held {
			l.awaitFree(ctx)
			continue
		}
		log.Info("Leader lease taken", "holder", l.cfg.Holder, "ttl", l.cfg.TTL)
		l.hold(ctx, log, lead)
		if l.rev != 0 && ctx.Err() == nil {
			l.release(log)
			select {
			case <-ctx.Done():
			case <-time.After(l.cfg.Renew):
			}
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

// awaitFree waits until the lease may be free: its entry expired or was
// deleted (the watcher hears of it at once), or a Renew interval passed.
func (l *Lease) awaitFree(ctx context.Context) {
	wait, cancel := context.WithTimeout(ctx, l.cfg.Renew)
	defer cancel()
	w, err := l.kv.Watch(wait, key, jetstream.UpdatesOnly())
	if err != nil {
		<-wait.Done()
		return
	}
	defer w.Stop()
	for {
		select {
		case <-wait.Done():
			return
		case e, ok := <-w.Updates():
			if !ok {
				<-wait.Done()
				return
			}
			if e != nil && e.Operation() != jetstream.KeyValuePut {
				return
			}
		}
	}
}
