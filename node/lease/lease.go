// Package lease is the sequencer's leader lease: one entry of a JetStream
// key-value bucket, which its holder renews every Renew and which lasts a
// TTL after its last renewal. A
// candidate takes the lease with a create that succeeds only when no one
// holds it, and its holder renews it with a compare-and-set on the
// revision it last wrote, so that two candidates never both believe they
// renewed. Consensus is JetStream's (Raft among the NATS servers of a
// cluster): the project writes none.
//
// The lease is for liveness, not for safety. A holder that stalls past its
// TTL, or cannot confirm its renewals, may still believe it leads; the
// sequencer's log fences it (every append expects the log's last
// sequence, node/seqlog), so two leaders never both extend the chain.
// What the lease decides is who tries.
//
// A waiting candidate does not wait for the server to expire a dead
// holder's entry: it watches the entry, and takes it with a
// compare-and-set on the revision it last saw once that revision has
// stood for a TTL by its own clock (TakeStale). JetStream's expiry of an
// entry runs on a timer of the server's, which under a flood fired up to
// 800 ms late; the expiry (Expiry, far longer than the TTL; the bucket
// writes a marker, LimitMarkerTTL, NATS 2.11 and later) stays as the
// backstop.
package lease

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The defaults give a takeover within about a second of the holder's
// death: the entry outlives the last renewal by at most TTL, and the
// waiting candidate hears of its expiry at once (or polls every Renew).
const (
	DefaultTTL   = 600 * time.Millisecond
	DefaultRenew = 150 * time.Millisecond
)

// bucketBytes bounds the bucket: one entry of a holder's name, and room
// for its expiry markers.
const bucketBytes = 64 << 10

// key is the lease's entry in its bucket.
const key = "leader"

// ErrLost is a renewal that found the lease expired or held by another.
var ErrLost = errors.New("the leader lease is lost")

// Config says whose lease it is and how long it lasts.
type Config struct {
	// ChainID names the bucket: one lease per chain.
	ChainID uint64
	// Holder is this candidate's name, written in the lease so that
	// others can say who leads.
	Holder string
	// TTL is how long the lease outlives its last renewal; Renew how
	// often its holder renews it (and a waiting candidate polls). Zero
	// takes DefaultTTL and DefaultRenew.
	TTL, Renew time.Duration
	// Replicas is the bucket's replication on a NATS cluster (0: 1).
	Replicas int
	// Expiry is how long the bucket keeps an entry after its last write
	// (0: DefaultExpiry). It is only the backstop: candidates take a dead
	// holder's lease by their own clocks, a TTL after its last renewal
	// (TakeStale).
	Expiry time.Duration
}

// DefaultExpiry outlasts a holder that cannot confirm its renewals
// (maxUnconfirmed). An entry that expired at TTL would be gone when the
// NATS server leading the bucket dies: its successor, elected later than
// a TTL after the last renewal, drops the entry, and the holder, whose
// next renewal then finds no lease, steps down although it was sequencing
// all along and no one had taken over.
const DefaultExpiry = maxUnconfirmed

func (c Config) withDefaults() Config {
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.Renew == 0 {
		c.Renew = DefaultRenew
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.Expiry == 0 {
		c.Expiry = DefaultExpiry
	}
	return c
}

func (c Config) validate() error {
	switch {
	case c.Holder == "":
		return errors.New("lease: a candidate needs a holder name")
	case c.TTL < 100*time.Millisecond:
		return fmt.Errorf("lease: TTL %v is below JetStream's shortest age, 100ms", c.TTL)
	case c.Renew <= 0 || 2*c.Renew > c.TTL:
		return fmt.Errorf("lease: renewing every %v does not fit twice in a TTL of %v (a holder would lose the lease to one slow renewal)", c.Renew, c.TTL)
	case c.Expiry < c.TTL:
		return fmt.Errorf("lease: an entry's expiry %v is shorter than the TTL %v", c.Expiry, c.TTL)
	}
	return nil
}

// BucketName is the key-value bucket of chainID's lease.
func BucketName(chainID uint64) string {
	return "STOCKNODE_" + strconv.FormatUint(chainID, 10) + "_LEASE"
}

// Lease is one candidate's handle on the lease.
type Lease struct {
	cfg    Config
	kv     jetstream.KeyValue
	rev    uint64        // the revision this candidate last wrote; 0 while it holds nothing
	resign chan struct{} // Resign's word to the renewing loop (Campaign)
}

// Open binds the chain's lease bucket, creating it when it is missing.
func Open(ctx context.Context, js jetstream.JetStream, cfg Config) (*Lease, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:         BucketName(cfg.ChainID),
		Description:    "stocknode's sequencer leader lease",
		History:        1,
		TTL:            cfg.Expiry,
		LimitMarkerTTL: max(cfg.TTL, time.Second), // how long the expiry marker stays: JetStream's least is 1 s
		Replicas:       cfg.Replicas,
		MaxBytes:       bucketBytes,
	})
	if err != nil {
		return nil, fmt.Errorf("lease: bucket %s: %w", BucketName(cfg.ChainID), err)
	}
	return &Lease{cfg: cfg, kv: kv, resign: make(chan struct{}, 1)}, nil
}

// Acquire takes the lease if no one holds it, and reports whether this
// candidate holds it now.
func (l *Lease) Acquire(ctx context.Context) (bool, error) {
	rev, err := l.kv.Create(ctx, key, []byte(l.cfg.Holder))
	switch {
	case errors.Is(err, jetstream.ErrKeyExists):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("lease: take: %w", err)
	}
	l.rev = rev
	return true, nil
}

// TakeStale takes the lease from a holder that has not renewed it since
// revision rev: a compare-and-set that fails, false, if anyone wrote the
// entry since.
func (l *Lease) TakeStale(ctx context.Context, rev uint64) (bool, error) {
	next, err := l.kv.Update(ctx, key, []byte(l.cfg.Holder), rev)
	switch {
	case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("lease: take from a silent holder: %w", err)
	}
	l.rev = next
	return true, nil
}

// Renew extends the held lease by TTL from now. ErrLost says it expired
// or another candidate holds it: the caller must stop leading.
func (l *Lease) Renew(ctx context.Context) error {
	if l.rev == 0 {
		return ErrLost
	}
	rev, err := l.kv.Update(ctx, key, []byte(l.cfg.Holder), l.rev)
	switch {
	case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyNotFound):
		l.rev = 0
		return ErrLost
	case err != nil:
		return fmt.Errorf("lease: renew: %w", err)
	}
	l.rev = rev
	return nil
}

// Release gives the held lease up at once, for a planned handover; a lease
// that was already lost is left alone.
func (l *Lease) Release(ctx context.Context) error {
	if l.rev == 0 {
		return nil
	}
	err := l.kv.Delete(ctx, key, jetstream.LastRevision(l.rev))
	l.rev = 0
	if err != nil && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return fmt.Errorf("lease: release: %w", err)
	}
	return nil
}

// Holder names the candidate that holds the lease ("" when no one does).
func (l *Lease) Holder(ctx context.Context) (string, error) {
	e, err := l.kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("lease: read: %w", err)
	}
	return string(e.Value()), nil
}
