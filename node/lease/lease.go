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
//
// Each candidate writes its name with a stamp of its own (entryValue), so
// that a write whose answer came after its context ended, on a loaded
// machine, is known for its own when it landed: the holder renews on from
// it instead of stepping down, and a candidate takes back a create of its
// own without waiting out a TTL.
package lease

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	value  []byte        // what this candidate writes: its name and its stamp (entryValue)
	rev    uint64        // the revision this candidate last wrote; 0 while it holds nothing
	resign chan struct{} // Resign's word to the renewing loop (Campaign)
	// gaveUp: it released the lease since it last took it. An entry of its
	// own left then (a release that failed) is not one it takes back at
	// once (awaitTurn): the next candidate, a planned handover's, goes first.
	gaveUp bool
}

// stampLen is the length of a candidate's stamp, in hex digits.
const stampLen = 16

// entryValue is what a candidate writes in the lease: its name, then a
// stamp of its own, drawn when it opens the lease. A write whose answer
// came too late (its context ended first: a loaded machine, a slow
// server) may still have landed; the stamp is how the candidate knows
// the entry for its own then, where its name alone is only as unique as
// the names its operators chose (--ha.name).
func entryValue(holder string) ([]byte, error) {
	var stamp [stampLen / 2]byte
	if _, err := rand.Read(stamp[:]); err != nil {
		return nil, fmt.Errorf("lease: draw a stamp: %w", err)
	}
	return []byte(holder + " " + hex.EncodeToString(stamp[:])), nil
}

// holderName is the name in an entry's value: the value without its
// stamp (an entry written before stamps were has none).
func holderName(value []byte) string {
	v := string(value)
	i := strings.LastIndexByte(v, ' ')
	if i < 0 || len(v)-i-1 != stampLen {
		return v
	}
	if _, err := hex.DecodeString(v[i+1:]); err != nil {
		return v
	}
	return v[:i]
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
	value, err := entryValue(cfg.Holder)
	if err != nil {
		return nil, err
	}
	return &Lease{cfg: cfg, kv: kv, value: value, resign: make(chan struct{}, 1)}, nil
}

// Acquire takes the lease if no one holds it, and reports whether this
// candidate holds it now.
func (l *Lease) Acquire(ctx context.Context) (bool, error) {
	rev, err := l.kv.Create(ctx, key, l.value)
	switch {
	case errors.Is(err, jetstream.ErrKeyExists):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("lease: take: %w", err)
	}
	l.rev, l.gaveUp = rev, false
	return true, nil
}

// TakeStale takes the lease from a holder that has not renewed it since
// revision rev: a compare-and-set that fails, false, if anyone wrote the
// entry since.
func (l *Lease) TakeStale(ctx context.Context, rev uint64) (bool, error) {
	next, err := l.kv.Update(ctx, key, l.value, rev)
	switch {
	case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("lease: take from a silent holder: %w", err)
	}
	l.rev, l.gaveUp = next, false
	return true, nil
}

// Renew extends the held lease by TTL from now. ErrLost says it expired
// or another candidate holds it: the caller must stop leading.
func (l *Lease) Renew(ctx context.Context) error {
	if l.rev == 0 {
		return ErrLost
	}
	rev, err := l.kv.Update(ctx, key, l.value, l.rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		adopted, readErr := l.adoptOwnWrite(ctx)
		switch {
		case readErr != nil:
			// Whose the entry is cannot be told now: the renewal is
			// unconfirmed, not lost, and the next one asks again.
			return fmt.Errorf("lease: renew: read the entry past revision %d: %w", l.rev, readErr)
		case adopted:
			rev, err = l.kv.Update(ctx, key, l.value, l.rev)
		}
	}
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
	l.gaveUp = true
	err := l.kv.Delete(ctx, key, jetstream.LastRevision(l.rev))
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		adopted, readErr := l.adoptOwnWrite(ctx)
		switch {
		case readErr != nil:
			// The entry may be its own late write, left until it expires.
			err = fmt.Errorf("read the entry past revision %d: %w", l.rev, readErr)
		case adopted:
			err = l.kv.Delete(ctx, key, jetstream.LastRevision(l.rev))
		}
	}
	l.rev = 0
	if err != nil && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return fmt.Errorf("lease: release: %w", err)
	}
	return nil
}

// adoptOwnWrite is for a compare-and-set that found the entry moved past
// the revision this candidate last wrote: when the entry is its own, at a
// later revision, a write of its whose answer it never had (its context
// ended first) landed, and the candidate takes that revision as its last.
// Without this, a holder whose renewal timed out on a loaded machine and
// landed anyway stepped down on its own write, and took the lease back a
// TTL later: a term lost for nothing. An entry deleted or expired is not
// its own; an error is a read that did not answer.
func (l *Lease) adoptOwnWrite(ctx context.Context) (bool, error) {
	e, err := l.kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return false, nil
	case err != nil:
		return false, err
	case !bytes.Equal(e.Value(), l.value) || e.Revision() <= l.rev:
		return false, nil
	}
	l.rev = e.Revision()
	return true, nil
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
	return holderName(e.Value()), nil
}
