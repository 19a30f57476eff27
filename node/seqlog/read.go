package seqlog

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Read yields the entries from sequence from (1 or 0: the first) up to the
// last one stored when Read started, then ends: recovery reads what follows
// its persisted head this way.
func (l *Log) Read(ctx context.Context, from uint64) iter.Seq2[Record, error] {
	return l.read(ctx, from, false)
}

// Follow yields the entries from sequence from on, waiting for new ones,
// until ctx ends or the caller stops; a replica follows the sequencer so.
func (l *Log) Follow(ctx context.Context, from uint64) iter.Seq2[Record, error] {
	return l.read(ctx, from, true)
}

// read yields records in sequence order with no gap: a record missing
// (dropped by retention before it was read) ends the iteration with
// ErrTruncated. Any other error ends it; a canceled ctx ends it with ctx's
// error. A reader that loses its consumer (its server lost, the cluster
// electing leaders) reads on from where it was with a new one: Follow for
// as long as it takes, Read for OutageTimeout.
func (l *Log) read(ctx context.Context, from uint64, follow bool) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		from = max(from, 1)
		info, err := l.stream.Info(ctx)
		if err != nil {
			yield(Record{}, fmt.Errorf("sequencer log: %w", err))
			return
		}
		end := info.State.LastSeq
		if info.State.FirstSeq > from {
			yield(Record{}, truncated(from, info.State.FirstSeq))
			return
		}
		if !follow && from > end {
			return
		}
		r := &reader{log: l, next: from, follow: follow, end: end}
		defer r.drop()
		for follow || r.next <= end {
			rec, err := r.read(ctx)
			if errors.Is(err, errReadEnd) || !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// followHeartbeat is how often the server hosting a reader's consumer
// says it is there while no entry comes: two missed ones and the reader
// takes a new consumer.
const followHeartbeat = time.Second

// consumerAttempt bounds one attempt to create a reader's consumer; the
// attempts go on every outageRetryWait.
const consumerAttempt = 2 * time.Second

// errReadEnd ends a Read whose last entries were foreign.
var errReadEnd = errors.New("end of the entries to read")

func truncated(from, first uint64) error {
	return fmt.Errorf("read from sequence %d, the log starts at %d: %w", from, first, ErrTruncated)
}

// reader reads the stream in order through a consumer of its own that
// starts at next, and takes a new one from next whenever it loses it.
//
// It does what nats.go's ordered consumer does, with shorter waits: the
// consumer is a single copy on one server of the cluster, and when that
// server goes the ordered consumer noticed only after 10 s (two missed
// heartbeats of 5 s), then waited up to 10 s for each attempt to create
// another and up to 10 s between attempts, while the cluster elected new
// leaders: a replica fell 20 s and more behind a sequencer that had
// recovered in 5.
type reader struct {
	log    *Log
	next   uint64 // the sequence to read next
	follow bool
	end    uint64 // without follow: the last sequence to read
	cons   jetstream.Consumer
	msgs   jetstream.MessagesContext
	lost   time.Time // when it lost its last consumer, until it has another
}

// read returns the entry of sequence r.next.
func (r *reader) read(ctx context.Context) (Record, error) {
	var failing time.Time // since when subscribe has failed
	for {
		if r.log.nc.IsClosed() {
			return Record{}, fmt.Errorf("sequencer log: read %d: %w", r.next, nats.ErrConnectionClosed)
		}
		if r.msgs == nil {
			err := r.subscribe(ctx)
			switch {
			case err == nil && !r.lost.IsZero():
				r.log.log.Info("Sequencer log reader reading again", "next", r.next, "after", time.Since(r.lost).Round(time.Millisecond))
				r.lost = time.Time{}
			case errors.Is(err, ErrRebuilt):
				return Record{}, err
			case err != nil:
				if ctx.Err() != nil {
					return Record{}, ctx.Err()
				}
				if failing.IsZero() {
					failing = time.Now()
				}
				if !r.follow && time.Since(failing) > r.log.cfg.OutageTimeout {
					return Record{}, fmt.Errorf("sequencer log: read from %d: %w", r.next, err)
				}
				select {
				case <-ctx.Done():
					return Record{}, ctx.Err()
				case <-time.After(outageRetryWait):
				}
				continue
			}
		}
		msg, err := r.msgs.Next(jetstream.NextContext(ctx))
		if ctx.Err() != nil {
			return Record{}, ctx.Err()
		}
		if err != nil {
			// Missing heartbeats, the consumer deleted, the connection
			// closed: read on with a new consumer.
			r.log.log.Warn("Sequencer log reader lost its consumer, taking a new one", "next", r.next, "err", err)
			r.lost = time.Now()
			r.drop()
			continue
		}
		meta, err := msg.Metadata()
		if err != nil {
			return Record{}, fmt.Errorf("sequencer log: read %d: %w", r.next, err)
		}
		switch seq := meta.Sequence.Stream; {
		case seq < r.next:
			continue // delivered before, by a consumer given up
		case seq > r.next:
			// Dropped by retention, or lost on its way: the stream knows.
			if info, err := r.log.stream.Info(ctx); err == nil && info.State.FirstSeq > r.next {
				return Record{}, truncated(r.next, info.State.FirstSeq)
			}
			r.drop()
			continue
		}
		if err := r.log.verify(ctx, r.next, msg.Subject(), msg.Data(), msg.Headers()); err != nil {
			r.log.warnForeign(err)
			if r.next++; !r.follow && r.next > r.end {
				return Record{}, errReadEnd
			}
			continue
		}
		e, err := r.log.decode(msg.Subject(), msg.Data())
		if err != nil {
			return Record{}, undecodable(r.next, err)
		}
		rec := Record{Seq: r.next, Time: meta.Timestamp, Pending: meta.NumPending, Entry: e}
		r.next++
		return rec, nil
	}
}

// subscribe creates a consumer from r.next and starts pulling from it;
// ErrRebuilt if the stream is not the one the log opened.
func (r *reader) subscribe(ctx context.Context) error {
	attempt, cancel := context.WithTimeout(ctx, consumerAttempt)
	defer cancel()
	if err := r.log.checkRebuilt(attempt); err != nil {
		return err
	}
	cons, err := r.log.stream.CreateConsumer(attempt, jetstream.ConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:   r.next,
		AckPolicy:     jetstream.AckNonePolicy,
		// One copy in memory, as an ordered consumer: a lost one is
		// created again, from where its reader was.
		Replicas:          1,
		MemoryStorage:     true,
		InactiveThreshold: time.Minute,
	})
	if err != nil {
		return err
	}
	// Checked again with the consumer in place: a stream deleted and
	// created again between the first check and the consumer's creation
	// would hold the consumer, and the reader would wait on the rebuilt
	// stream for an entry of the old one. A rebuild after this check
	// deletes the consumer and brings the reader back here.
	if err := r.log.rebuilt(attempt); err != nil {
		r.cons = cons
		r.drop()
		return err
	}
	msgs, err := cons.Messages(jetstream.PullHeartbeat(followHeartbeat), jetstream.WithMessagesErrOnMissingHeartbeat(true))
	if err != nil {
		r.cons = cons
		r.drop()
		return err
	}
	r.cons, r.msgs = cons, msgs
	return nil
}

// drop stops pulling and deletes the consumer, if any (in the background:
// its server may be gone; unused, it goes after InactiveThreshold anyway).
func (r *reader) drop() {
	if r.msgs != nil {
		r.msgs.Stop()
		r.msgs = nil
	}
	if r.cons == nil {
		return
	}
	name := r.cons.CachedInfo().Name
	r.cons = nil
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), consumerAttempt)
		defer cancel()
		_ = r.log.stream.DeleteConsumer(ctx, name)
	}()
}
