package faucet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"
	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/internal/pebblelog"
	"github.com/stocknode/stocknode/peer"
)

// The cooldown database holds three kinds of records; times are Unix
// nanoseconds, big-endian, so that keys sort by time:
//
//	'c' key         -> expiry   a cooldown: key may not drip before expiry
//	'x' expiry key  -> (empty)  the cooldowns by expiry, for the sweep
//	'd' time addr   -> (empty)  a drip, kept an hour for the status count
//
// A key is 'a' and a recipient address, 'i' and a client IP (16 bytes), or
// 'r' and the identity of a replica whose clients' addresses are not
// trusted.
// Every commit deletes what has expired since the last one, so the disk
// holds only live cooldowns and the last hour's drips.
const (
	prefixCooldown = 'c'
	prefixExpiry   = 'x'
	prefixDrip     = 'd'
)

// dripWindow is how far back the status endpoint counts drips.
const dripWindow = time.Hour

// errClosed answers drips that arrive while the node shuts down.
var errClosed = errors.New("the faucet is shutting down")

// cooldownKey is what a cooldown is kept for: a kind byte and an identity.
type cooldownKey string

func addressKey(a common.Address) cooldownKey { return cooldownKey("a" + string(a[:])) }

// clientKey keys a client by peer.KeyOf: an IPv6 client owns a whole /64.
func clientKey(ip netip.Addr) cooldownKey {
	b := peer.KeyOf(ip.Unmap()).As16()
	return cooldownKey("i" + string(b[:]))
}

// replicaKey keys the drips a replica relays, when the sequencer does not
// trust the client addresses it claims.
func replicaKey(id string) cooldownKey { return cooldownKey("r" + id) }

// String names the key in a message to the client.
func (k cooldownKey) String() string {
	switch {
	case len(k) > 1 && k[0] == 'r':
		return "replica " + shortID(string(k[1:])) + " (the drips a replica relays share one cooldown unless the sequencer trusts it: --faucet.trust-replicas)"
	case len(k) == 1+common.AddressLength && k[0] == 'a':
		return "address " + common.BytesToAddress([]byte(k[1:])).Hex()
	case len(k) == 17 && k[0] == 'i':
		ip := netip.AddrFrom16([16]byte([]byte(k[1:]))).Unmap()
		if ip.Is6() {
			return "client " + netip.PrefixFrom(ip, 64).String()
		}
		return "client " + ip.String()
	}
	return fmt.Sprintf("key %x", string(k))
}

// wait says that key may not drip for d, or (inProgress) that a drip for
// it is under way.
type wait struct {
	key        cooldownKey
	d          time.Duration
	inProgress bool
}

// cooldowns keeps who dripped when, in a pebble database of its own.
type cooldowns struct {
	db     *pebble.DB
	period time.Duration
	now    func() time.Time

	mu       sync.Mutex
	inflight map[cooldownKey]bool // reserved by drips under way
	recent   []int64              // drip times of the last hour, oldest first
	closed   bool

	// writeMu makes commits one at a time, so that a sweep, which reads a
	// cooldown before deleting it, never deletes one a commit just renewed.
	writeMu    sync.Mutex
	sweptUntil uint64
}

// DatabaseHandles bounds the files the cooldown database keeps open (the
// node counts them in its file-descriptor budget); it stays small.
const DatabaseHandles = 16

// openCooldowns opens (or creates) the database in dir, in memory if dir
// is empty, and deletes what expired while the node was down.
func openCooldowns(dir string, period time.Duration, now func() time.Time, log *slog.Logger) (*cooldowns, error) {
	opts := &pebble.Options{Logger: pebblelog.New(log, "faucet database"), MaxOpenFiles: DatabaseHandles}
	if dir == "" {
		dir, opts.FS = "faucet", vfs.NewMem()
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open the faucet's cooldown database %s: %w", dir, err)
	}
	c := &cooldowns{db: db, period: period, now: now, inflight: map[cooldownKey]bool{}}
	if err := c.load(); err != nil {
		db.Close()
		return nil, fmt.Errorf("read the faucet's cooldown database %s: %w", dir, err)
	}
	return c, nil
}

// load sweeps what has expired and reads the last hour's drips.
func (c *cooldowns) load() error {
	b := c.db.NewBatch()
	defer b.Close()
	now := c.now()
	if err := c.sweep(b, now); err != nil {
		return err
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return err
	}
	iter, err := c.db.NewIter(&pebble.IterOptions{LowerBound: timeKey(prefixDrip, now.Add(-dripWindow)), UpperBound: []byte{prefixDrip + 1}})
	if err != nil {
		return err
	}
	for iter.First(); iter.Valid(); iter.Next() {
		if len(iter.Key()) >= 9 {
			c.recent = append(c.recent, int64(binary.BigEndian.Uint64(iter.Key()[1:9])))
		}
	}
	return errors.Join(iter.Error(), iter.Close())
}

// reservation holds keys for one drip under way: concurrent drips for the
// same key wait, so two cannot both pass the cooldown check.
type reservation struct {
	c    *cooldowns
	keys []cooldownKey
}

// reserve checks keys' cooldowns and reserves them all, or returns the
// longest wait among them (and no reservation).
func (c *cooldowns) reserve(keys ...cooldownKey) (*reservation, *wait, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, nil, errClosed
	}
	if c.period <= 0 {
		return &reservation{c: c}, nil, nil
	}
	now := c.now()
	var longest *wait
	for _, k := range keys {
		w, err := c.waitFor(k, now)
		if err != nil {
			return nil, nil, err
		}
		if w != nil && (longest == nil || w.d > longest.d) {
			longest = w
		}
	}
	if longest != nil {
		return nil, longest, nil
	}
	for _, k := range keys {
		c.inflight[k] = true
	}
	return &reservation{c: c, keys: keys}, nil, nil
}

// waitFor is how long k must still wait, nil if it may drip.
func (c *cooldowns) waitFor(k cooldownKey, now time.Time) (*wait, error) {
	if c.inflight[k] {
		// The drip under way will most likely start a full cooldown.
		return &wait{key: k, d: c.period, inProgress: true}, nil
	}
	expiry, ok, err := c.expiry(k)
	if err != nil || !ok {
		return nil, err
	}
	if d := time.Unix(0, int64(expiry)).Sub(now); d > 0 {
		return &wait{key: k, d: d}, nil
	}
	return nil, nil
}

// expiry reads k's cooldown.
func (c *cooldowns) expiry(k cooldownKey) (uint64, bool, error) {
	v, closer, err := c.db.Get(append([]byte{prefixCooldown}, k...))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read cooldown: %w", err)
	}
	defer closer.Close()
	if len(v) != 8 {
		return 0, false, nil // not ours: treated as absent, swept or overwritten
	}
	return binary.BigEndian.Uint64(v), true, nil
}

// commit records the drip to `to`: its keys' cooldowns start now.
func (r *reservation) commit(to common.Address) error {
	c := r.c
	defer r.release()
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return errClosed
	}
	now := c.now()
	b := c.db.NewBatch()
	defer b.Close()
	// The sweep's deletes come first: the batch's later sets win.
	if err := c.sweep(b, now); err != nil {
		return err
	}
	expiry := binary.BigEndian.AppendUint64(nil, uint64(now.Add(c.period).UnixNano()))
	for _, k := range r.keys {
		b.Set(append([]byte{prefixCooldown}, k...), expiry, nil)
		b.Set(append(append([]byte{prefixExpiry}, expiry...), k...), nil, nil)
	}
	b.Set(append(timeKey(prefixDrip, now), to[:]...), nil, nil)
	// Synced: pebble keeps an unsynced write in its own buffer until a
	// 32 KiB block fills, so without it a kill -9 would forget the last
	// drips' cooldowns. Concurrent drips share one fsync (pebble groups
	// the commits waiting for it).
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("write cooldown: %w", err)
	}
	c.mu.Lock()
	c.recent = append(c.recent, now.UnixNano())
	c.mu.Unlock()
	return nil
}

// release gives the keys back; a drip that failed uses up no cooldown.
func (r *reservation) release() {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range r.keys {
		delete(c.inflight, k)
	}
	r.keys = nil
}

// sweep adds to b the deletion of cooldowns expired since the last sweep
// and of drips older than the status window. The caller holds writeMu (or
// is load, before anyone else).
func (c *cooldowns) sweep(b *pebble.Batch, now time.Time) error {
	upper := timeKey(prefixExpiry, now)
	iter, err := c.db.NewIter(&pebble.IterOptions{LowerBound: binary.BigEndian.AppendUint64([]byte{prefixExpiry}, c.sweptUntil), UpperBound: upper})
	if err != nil {
		return fmt.Errorf("sweep cooldowns: %w", err)
	}
	for iter.First(); iter.Valid(); iter.Next() {
		if err := c.sweepOne(b, iter.Key(), now); err != nil {
			iter.Close()
			return err
		}
	}
	if err := errors.Join(iter.Error(), iter.Close()); err != nil {
		return fmt.Errorf("sweep cooldowns: %w", err)
	}
	c.sweptUntil = binary.BigEndian.Uint64(upper[1:])
	return b.DeleteRange([]byte{prefixDrip}, timeKey(prefixDrip, now.Add(-dripWindow)), nil)
}

// sweepOne deletes an expired index entry and its cooldown, unless the
// cooldown was renewed since (then a later index entry covers it).
func (c *cooldowns) sweepOne(b *pebble.Batch, indexKey []byte, now time.Time) error {
	if err := b.Delete(indexKey, nil); err != nil || len(indexKey) < 9 {
		return err
	}
	k := cooldownKey(indexKey[9:])
	expiry, ok, err := c.expiry(k)
	if err != nil || !ok || expiry > uint64(now.UnixNano()) {
		return err
	}
	return b.Delete(append([]byte{prefixCooldown}, k...), nil)
}

// drips counts the drips of the last hour.
func (c *cooldowns) drips() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	cutoff := c.now().Add(-dripWindow).UnixNano()
	i := 0
	for i < len(c.recent) && c.recent[i] < cutoff {
		i++
	}
	c.recent = c.recent[i:]
	return len(c.recent)
}

// close waits for a commit under way and closes the database; later
// drips get errClosed.
func (c *cooldowns) close() error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	return c.db.Close()
}

// shortID keeps a replica's 56-character public key readable.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12] + "…"
	}
	return id
}

func timeKey(prefix byte, t time.Time) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefix}, uint64(max(t.UnixNano(), 0)))
}
