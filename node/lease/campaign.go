package lease

import (
	"bytes"
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
// not renewed it for a TTL. A holder that cannot confirm its renewals
// (its NATS slow, partitioned, or electing the bucket's leader) leads on
// for up to maxUnconfirmed, and steps down at once when a renewal finds
// the lease taken.
// When ctx ends, a held lease is released for the next candidate.
func (l *Lease) Campaign(ctx context.Context, log *slog.Logger, lead func(ctx context.Context)) {
	for ctx.Err() == nil {
		held, err := l.attempt(ctx, l.Acquire)
		if err != nil {
			log.Warn("Leader lease: cannot reach NATS to take it", "err", err)
		}
		if !held && !l.awaitTurn(ctx, log) {
			continue
		}
		log.Info("Leader lease taken", "holder", l.cfg.Holder, "ttl", l.cfg.TTL)
		resigned := l.hold(ctx, log, lead)
		if (l.rev != 0 || resigned) && ctx.Err() == nil {
			// The next candidate gets a head start on this one.
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

// Resign gives the held lease up while lead is still returning: its term
// is over and it appends nothing more (it stopped sequencing and leveled
// its chain with the log), so the next candidate need not wait for the
// rest of its step-down. Campaign renews no more and releases the lease.
func (l *Lease) Resign() {
	select {
	case l.resign <- struct{}{}:
	default:
	}
}

// hold runs lead while the lease is renewed, and returns once lead has;
// it reports whether lead resigned.
func (l *Lease) hold(ctx context.Context, log *slog.Logger, lead func(ctx context.Context)) (resigned bool) {
	select { // a word left from a term before
	case <-l.resign:
	default:
	}
	leadCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		lead(leadCtx)
	}()
	defer func() { stop(); <-done }()
	confirmed, warned := time.Now(), false
	ticker := time.NewTicker(l.cfg.Renew)
	defer ticker.Stop()
	renewals := ticker.C
	for {
		select {
		case <-ctx.Done():
			return resigned
		case <-done:
			return resigned
		case <-l.resign:
			l.release(log)
			resigned, renewals = true, nil
			continue
		case <-renewals:
		}
		renewCtx, cancel := context.WithTimeout(ctx, l.cfg.Renew)
		err := l.Renew(renewCtx)
		cancel()
		switch {
		case err == nil:
			confirmed, warned = time.Now(), false
		case err == ErrLost:
			log.Warn("Leader lease lost: another candidate holds it or it expired; stepping down")
			return resigned
		case time.Since(confirmed) > maxUnconfirmed:
			log.Warn("Leader lease unconfirmed for too long; stepping down", "err", err, "since", time.Since(confirmed))
			l.rev = 0
			return resigned
		case time.Since(confirmed) > l.cfg.TTL-l.cfg.Renew && !warned:
			log.Warn("Leader lease unconfirmed: leading on, the log fences this leader if another takes over", "err", err)
			warned = true
		}
	}
}

// maxUnconfirmed is how long a holder leads on without a confirmed
// renewal. Leading on is safe, as the log fences a leader another
// candidate replaced, and it is what keeps blocks coming when the NATS
// server leading the lease's bucket dies: no candidate can take the
// lease until the bucket has elected another leader (4-9 s on a stock
// nats-server, under a second on cmd/stocknode-nats), and the log's
// stream may still have its own.
// Past this, the holder no longer says it sequences.
const maxUnconfirmed = 15 * time.Second

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
			case !l.gaveUp && bytes.Equal(e.Value(), l.value):
				// This candidate's own write, whose answer came too late
				// (a create, or a renewal before it stepped down): no
				// one else holds the lease, and no one need wait for it.
				return l.takeAt(ctx, log, e.Revision(), "Leader lease taken back: the entry was this candidate's own write")
			default:
				rev = e.Revision()
				silent.Reset(l.cfg.TTL)
			}
		case <-silent.C:
			if rev == 0 {
				return false
			}
			// A take that fails finds the entry moved on unseen (a
			// renewal, or an expiry while NATS elected the bucket's
			// leader, which a watch that lost its consumer may never
			// deliver): the caller tries a create and watches afresh.
			return l.takeAt(ctx, log, rev, "Leader lease taken from a holder silent for its TTL")
		}
	}
}

// takeAt makes one try at taking the lease at revision rev (TakeStale),
// and logs taken when it did.
func (l *Lease) takeAt(ctx context.Context, log *slog.Logger, rev uint64, taken string) bool {
	held, err := l.attempt(ctx, func(ctx context.Context) (bool, error) { return l.TakeStale(ctx, rev) })
	if err != nil {
		log.Warn("Leader lease: cannot reach NATS to take it", "err", err)
	}
	if held {
		log.Info(taken, "revision", rev)
	}
	return held
}

// attempt makes one try at taking the lease, bounded by a TTL: while
// the bucket has no leader (its NATS server died) a request is otherwise
// answered only by JetStream's 5 s timeout, and the next try, once a
// leader is elected, would wait for it.
func (l *Lease) attempt(ctx context.Context, take func(context.Context) (bool, error)) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.TTL)
	defer cancel()
	return take(ctx)
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
