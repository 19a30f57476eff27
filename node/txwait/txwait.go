// Package txwait holds the requests that wait for their own transaction
// (eth_sendRawTransactionSync, EIP-7966): a registry keyed by transaction
// hash that the sequencer's listener (a replica's Replayer's, on a
// replica) wakes when the transaction is pre-confirmed or sealed, so that
// no waiter polls. Waiters are bounded in all and per client; a wait ends
// at its transaction, its timeout, its client's hang-up or the node's
// shutdown, and leaves nothing behind.
package txwait

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/node/pending"
)

// Config bounds the waiters.
type Config struct {
	// Max is the most waiters in all; PerClient the most of one client
	// (its address; an IPv6 /64). 0: no cap.
	Max, PerClient int
}

// DefaultConfig returns the defaults: enough for a few thousand
// transactions a second of sync senders at 200 ms blocks, while the
// hang-up checks of a full registry stay a few percent of a core.
func DefaultConfig() Config { return Config{Max: 4096, PerClient: 512} }

var (
	// ErrTimeout ends a wait whose timeout passed first.
	ErrTimeout = errors.New("timed out")
	// ErrGone ends a wait whose client hung up.
	ErrGone = errors.New("client went away")
	// ErrClosed ends every wait at shutdown, and refuses new ones.
	ErrClosed = errors.New("the node is shutting down")
)

// LimitError refuses a waiter past a bound; it names the flag.
type LimitError struct {
	Key       netip.Addr // the client, for a per-client bound
	Limit     int
	PerClient bool
}

func (e *LimitError) Error() string {
	if e.PerClient {
		return fmt.Sprintf("too many eth_sendRawTransactionSync requests waiting from %s: at most %d per client (--rpc.txsync.per-client); the transaction was not sent: retry once one has returned, or send it with eth_sendRawTransaction", e.Key, e.Limit)
	}
	return fmt.Sprintf("too many eth_sendRawTransactionSync requests waiting: at most %d (--rpc.txsync.max); the transaction was not sent: retry in a moment, or send it with eth_sendRawTransaction", e.Limit)
}

// Until is the event a waiter waits for.
type Until uint8

const (
	// Preconfirmed: the first snapshot that holds the transaction, pending
	// or sealed (the Preconf view's receipt).
	Preconfirmed Until = iota
	// Sealed: the snapshot whose head is the block that holds it (the
	// Standard view's receipt).
	Sealed
)

// Registry holds the waiters. It is safe for concurrent use; its listener
// methods run on the sequencer's goroutine.
type Registry struct {
	cfg     Config
	mu      sync.Mutex
	waiting map[common.Hash][]*Waiter
	clients map[netip.Addr]int
	count   atomic.Int64 // waiters; the listener reads it without mu
	closed  chan struct{}
	close   sync.Once
	seen    seen // the listener's own
}

// New returns an empty registry.
func New(cfg Config) *Registry {
	return &Registry{cfg: cfg, waiting: map[common.Hash][]*Waiter{}, clients: map[netip.Addr]int{}, closed: make(chan struct{})}
}

// Waiter is one request waiting for its transaction.
type Waiter struct {
	r     *Registry
	hash  common.Hash
	key   netip.Addr
	until Until
	ready chan *pending.Snapshot // sent to once, as the waiter leaves the registry
	gone  bool                   // left the registry; under r.mu
}

// Register adds a waiter for hash on behalf of client key, before the
// transaction is submitted so that no pre-confirmation can pass unseen.
// Past a bound it returns a *LimitError; after Close, ErrClosed. The
// caller must Wait or Release.
func (r *Registry) Register(hash common.Hash, key netip.Addr, until Until) (*Waiter, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.closed:
		return nil, ErrClosed
	default:
	}
	if r.cfg.Max > 0 && int(r.count.Load()) >= r.cfg.Max {
		return nil, &LimitError{Limit: r.cfg.Max}
	}
	if r.cfg.PerClient > 0 && r.clients[key] >= r.cfg.PerClient {
		return nil, &LimitError{Key: key, Limit: r.cfg.PerClient, PerClient: true}
	}
	w := &Waiter{r: r, hash: hash, key: key, until: until, ready: make(chan *pending.Snapshot, 1)}
	r.waiting[hash] = append(r.waiting[hash], w)
	r.clients[key]++
	r.count.Add(1)
	return w, nil
}

// Release removes w, if it is still registered. It may be called more
// than once.
func (w *Waiter) Release() {
	w.r.mu.Lock()
	w.r.remove(w)
	w.r.mu.Unlock()
}

// remove takes w out of the registry; the caller holds mu.
func (r *Registry) remove(w *Waiter) {
	if w.gone {
		return
	}
	w.gone = true
	ws := r.waiting[w.hash]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(r.waiting, w.hash)
	} else {
		r.waiting[w.hash] = ws
	}
	if n := r.clients[w.key] - 1; n > 0 {
		r.clients[w.key] = n
	} else {
		delete(r.clients, w.key)
	}
	r.count.Add(-1)
}

// Peer is the client a waiter waits for: it stops waiting once the client
// hung up (peer.Peer).
type Peer interface{ Gone() bool }

const (
	// goneAfter is how long a wait runs before its client is first asked
	// whether it is still there (one poll(2)), goneEvery how often after:
	// a wait that a pre-confirmation ends, 20 ms on an idle node, never
	// pays for it (the call bound's rhythm: pool.goneAfter, goneEvery).
	goneAfter = 50 * time.Millisecond
	goneEvery = 100 * time.Millisecond
)

// Wait waits up to timeout for w's transaction and returns the snapshot
// that answers for it, or ErrTimeout, ErrGone (p hung up; p may be nil)
// or ErrClosed. w is released when Wait returns.
func (w *Waiter) Wait(timeout time.Duration, p Peer) (*pending.Snapshot, error) {
	defer w.Release()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var check <-chan time.Time
	var gone *time.Timer
	if p != nil {
		gone = time.NewTimer(goneAfter)
		defer gone.Stop()
		check = gone.C
	}
	for {
		select {
		case snap := <-w.ready:
			return snap, nil
		case <-timer.C:
			return nil, ErrTimeout
		case <-w.r.closed:
			return nil, ErrClosed
		case <-check:
			if p.Gone() {
				return nil, ErrGone
			}
			gone.Reset(goneEvery)
		}
	}
}

// Len is the number of waiters.
func (r *Registry) Len() int { return int(r.count.Load()) }

// Close ends every wait with ErrClosed and refuses new ones.
func (r *Registry) Close() { r.close.Do(func() { close(r.closed) }) }
