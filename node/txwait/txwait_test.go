package txwait

import (
	"errors"
	"math/big"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

var (
	alice = netip.MustParseAddr("192.0.2.1")
	bob   = netip.MustParseAddr("192.0.2.2")
)

func tx(nonce uint64) *types.Transaction {
	return types.NewTx(&types.LegacyTx{Nonce: nonce, Gas: 21000, GasPrice: big.NewInt(1)})
}

// preconf is a snapshot whose pending block number holds txs at its index-th
// pre-confirmation.
func preconf(number uint64, index int, txs ...*types.Transaction) *pending.Snapshot {
	return &pending.Snapshot{Pending: &pending.Block{Index: index, Header: &types.Header{Number: new(big.Int).SetUint64(number)}, Transactions: txs}}
}

func sealed(txs ...*types.Transaction) *types.Block {
	return types.NewBlockWithHeader(&types.Header{Number: big.NewInt(1)}).WithBody(types.Body{Transactions: txs})
}

// ready reports what w was handed, without waiting.
func ready(w *Waiter) *pending.Snapshot {
	select {
	case snap := <-w.ready:
		return snap
	default:
		return nil
	}
}

// checkEmpty fails unless r holds nothing: no waiter, no client count.
func checkEmpty(t *testing.T, r *Registry) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Len() != 0 || len(r.waiting) != 0 || len(r.clients) != 0 {
		t.Fatalf("registry holds %d waiters, %d hashes, %d clients; want none", r.Len(), len(r.waiting), len(r.clients))
	}
}

// Each waiter wakes at its event, with the snapshot that answers for it.
func TestWake(t *testing.T) {
	a, b := tx(1), tx(2)
	snap1 := preconf(1, 0, a)
	snap2 := preconf(1, 1, a, b)
	head := preconf(2, 0)
	tests := []struct {
		name  string
		tx    *types.Transaction
		until Until
		want  *pending.Snapshot // nil: still waiting after all three events
	}{
		{"pre-confirmed", a, Preconfirmed, snap1},
		{"pre-confirmed later", b, Preconfirmed, snap2},
		{"sealed", a, Sealed, head},
		{"not in the block", tx(3), Sealed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(DefaultConfig())
			w, err := r.Register(tt.tx.Hash(), alice, tt.until)
			if err != nil {
				t.Fatal(err)
			}
			var got *pending.Snapshot
			for _, step := range []func(){
				func() { r.Preconfirmed(snap1) },
				func() { r.Preconfirmed(snap2) },
				func() { r.Sealed(head, sealed(a, b)); r.Preconfirmed(head) },
			} {
				step()
				if got = ready(w); got != nil {
					break
				}
			}
			if got != tt.want {
				t.Fatalf("woken with %v, want %v", got, tt.want)
			}
			if tt.want != nil {
				checkEmpty(t, r)
			}
			w.Release()
			checkEmpty(t, r)
		})
	}
}

// Two requests for one transaction both wake.
func TestWakeEveryWaiter(t *testing.T) {
	r := New(DefaultConfig())
	a := tx(1)
	w1, _ := r.Register(a.Hash(), alice, Preconfirmed)
	w2, _ := r.Register(a.Hash(), bob, Preconfirmed)
	snap := preconf(1, 0, a)
	r.Preconfirmed(snap)
	if ready(w1) != snap || ready(w2) != snap {
		t.Fatal("a waiter of the transaction was not woken")
	}
	checkEmpty(t, r)
}

// A block opened again (a replica rebuilding it, index from 0) is new
// from its first transaction.
func TestRebuiltBlock(t *testing.T) {
	r := New(DefaultConfig())
	a, b := tx(1), tx(2)
	r.Preconfirmed(preconf(1, 0, a, b))
	w, _ := r.Register(b.Hash(), alice, Preconfirmed)
	rebuilt := preconf(1, 0, a, b)
	r.Preconfirmed(rebuilt)
	if ready(w) != rebuilt {
		t.Fatal("the rebuilt block's transaction did not wake its waiter")
	}
}

// Past a bound a waiter is refused with the flag's name; a released
// one frees its place.
func TestBounds(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		keys []netip.Addr // registered first
		key  netip.Addr
		flag string // "": admitted
	}{
		{"under both", Config{Max: 3, PerClient: 2}, []netip.Addr{alice, bob}, alice, ""},
		{"per client", Config{Max: 3, PerClient: 2}, []netip.Addr{alice, alice}, alice, "--rpc.txsync.per-client"},
		{"another client", Config{Max: 3, PerClient: 2}, []netip.Addr{alice, alice}, bob, ""},
		{"in all", Config{Max: 3, PerClient: 2}, []netip.Addr{alice, bob, bob}, alice, "--rpc.txsync.max"},
		{"no caps", Config{}, []netip.Addr{alice, alice, alice}, alice, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(tt.cfg)
			var held []*Waiter
			for i, key := range tt.keys {
				w, err := r.Register(tx(uint64(i)).Hash(), key, Sealed)
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, w)
			}
			w, err := r.Register(tx(99).Hash(), tt.key, Sealed)
			var limit *LimitError
			switch {
			case tt.flag == "" && err != nil:
				t.Fatalf("Register = %v", err)
			case tt.flag != "" && (!errors.As(err, &limit) || !strings.Contains(err.Error(), tt.flag) || !strings.Contains(err.Error(), "the transaction was not sent")):
				t.Fatalf("Register = %v, want a LimitError naming %s", err, tt.flag)
			case tt.flag != "":
				held[len(held)-1].Release()
				if w, err = r.Register(tx(99).Hash(), tt.key, Sealed); err != nil {
					t.Fatalf("Register after a release = %v", err)
				}
			}
			w.Release()
			for _, h := range held {
				h.Release()
			}
			checkEmpty(t, r)
		})
	}
}

// peerFunc is a client whose hang-up the test decides.
type peerFunc func() bool

func (f peerFunc) Gone() bool { return f() }

// A wait ends at its timeout, its client's hang-up or the shutdown, and
// leaves nothing behind.
func TestWaitEnds(t *testing.T) {
	var asked atomic.Int32
	tests := []struct {
		name    string
		timeout time.Duration
		peer    Peer
		close   bool
		want    error
	}{
		{"timeout", 20 * time.Millisecond, nil, false, ErrTimeout},
		{"timeout, client there", 300 * time.Millisecond, peerFunc(func() bool { asked.Add(1); return false }), false, ErrTimeout},
		{"hang-up", time.Minute, peerFunc(func() bool { return true }), false, ErrGone},
		{"shutdown", time.Minute, nil, true, ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(DefaultConfig())
			w, err := r.Register(tx(1).Hash(), alice, Sealed)
			if err != nil {
				t.Fatal(err)
			}
			if tt.close {
				r.Close()
			}
			if snap, err := w.Wait(tt.timeout, tt.peer); snap != nil || !errors.Is(err, tt.want) {
				t.Fatalf("Wait = %v, %v; want %v", snap, err, tt.want)
			}
			checkEmpty(t, r)
		})
	}
	if asked.Load() == 0 {
		t.Fatal("a long wait never asked whether its client was still there")
	}
}

func TestClosedRefuses(t *testing.T) {
	r := New(DefaultConfig())
	r.Close()
	r.Close() // twice is fine
	if _, err := r.Register(tx(1).Hash(), alice, Sealed); !errors.Is(err, ErrClosed) {
		t.Fatalf("Register after Close = %v", err)
	}
}
