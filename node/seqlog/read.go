package seqlog

import (
	"context"
	"fmt"
	"iter"
	"time"

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
// ErrTruncated. Any error ends it; a canceled ctx ends it with ctx's error.
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
		msgs, err := l.messages(ctx, from)
		if err != nil {
			yield(Record{}, err)
			return
		}
		defer msgs.Stop()
		for next := from; follow || next <= end; next++ {
			rec, err := l.next(ctx, msgs, next)
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// followHeartbeat is how often the server hosting a reader's consumer
// says it is there while no entry comes.
const followHeartbeat = time.Second

func truncated(from, first uint64) error {
	return fmt.Errorf("read from sequence %d, the log starts at %d: %w", from, first, ErrTruncated)
}

// messages is an ordered consumer from sequence from: JetStream recreates it
// on a gap or a lost server, delivering each entry once, in order.
//
// The consumer is a single copy on one server of the cluster; when that
// server is lost, only the missing idle heartbeats tell, after two of them.
// nats.go's default of 5 s for ordered consumers left a replica 10 s
// behind; followHeartbeat makes it 2 s.
func (l *Log) messages(ctx context.Context, from uint64) (jetstream.MessagesContext, error) {
	cons, err := l.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:   from,
	})
	if err != nil {
		return nil, fmt.Errorf("sequencer log: read from %d: %w", from, err)
	}
	msgs, err := cons.Messages(jetstream.PullHeartbeat(followHeartbeat))
	if err != nil {
		return nil, fmt.Errorf("sequencer log: read from %d: %w", from, err)
	}
	return msgs, nil
}

// next returns the entry with sequence want.
func (l *Log) next(ctx context.Context, msgs jetstream.MessagesContext, want uint64) (Record, error) {
	msg, err := msgs.Next(jetstream.NextContext(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return Record{}, ctx.Err()
		}
		return Record{}, fmt.Errorf("sequencer log: read %d: %w", want, err)
	}
	meta, err := msg.Metadata()
	if err != nil {
		return Record{}, fmt.Errorf("sequencer log: read %d: %w", want, err)
	}
	if seq := meta.Sequence.Stream; seq != want {
		return Record{}, truncated(want, seq)
	}
	e, err := l.decode(msg.Subject(), msg.Data())
	if err != nil {
		return Record{}, fmt.Errorf("sequencer log: entry %d: %w", want, err)
	}
	return Record{Seq: want, Time: meta.Timestamp, Pending: meta.NumPending, Entry: e}, nil
}
