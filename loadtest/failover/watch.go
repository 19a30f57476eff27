package failover

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nats-io/nats.go"

	"github.com/stocknode/stocknode/internal/devcluster"
	"github.com/stocknode/stocknode/loadtest/rpcclient"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/lease"
	"github.com/stocknode/stocknode/node/seqlog"
)

// logWatch follows the sequencer's log as a reader and keeps what the
// report needs: when each pre-confirmation was stored, and the hash of
// every block sealed (a number sealed twice with two hashes is a reorg).
type logWatch struct {
	log    *seqlog.Log
	cancel context.CancelFunc
	done   chan struct{}

	// onStall, when set, runs when no pre-confirmation came in time,
	// before the error is returned (Cluster.Dump).
	onStall func()

	mu      sync.Mutex
	changed chan struct{} // closed and replaced at each entry
	preconf []stamp
	sealed  map[uint64]common.Hash
	reorged int
	err     error
}

type stamp struct {
	seq uint64
	at  time.Time
}

func watchLog(ctx context.Context, urls []string) (*logWatch, error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	l, err := seqlog.Open(ctx, seqlog.Config{URLs: urls, Reader: true, ChainID: chain.PreviewChainID}, quiet)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &logWatch{log: l, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{}), sealed: map[uint64]common.Hash{}}
	go w.follow(ctx)
	return w, nil
}

func (w *logWatch) follow(ctx context.Context) {
	defer close(w.done)
	for rec, err := range w.log.Follow(ctx, 1) {
		w.mu.Lock()
		switch e := rec.Entry.(type) {
		case seqlog.Preconfirmed:
			w.preconf = append(w.preconf, stamp{rec.Seq, rec.Time})
		case seqlog.Sealed:
			if h, ok := w.sealed[e.Number]; ok && h != e.Hash {
				w.reorged++
			}
			w.sealed[e.Number] = e.Hash
		}
		w.err = err
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (w *logWatch) close() {
	w.cancel()
	<-w.done
	w.log.Close()
}

// lastSeqSoon is the log's last entry a moment after a kill: an append
// the killed process had on the wire is stored by then, and everything
// after it is another writer's.
func (w *logWatch) lastSeqSoon(ctx context.Context) (uint64, error) {
	if err := sleep(ctx, 20*time.Millisecond); err != nil {
		return 0, err
	}
	info, err := w.log.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.LastSeq, nil
}

// preconfirmedAfter waits for the first pre-confirmation stored after
// entry seq and returns when it was stored.
func (w *logWatch) preconfirmedAfter(ctx context.Context, seq uint64) (time.Time, error) {
	return w.firstPreconf(ctx, "entry "+strconv.FormatUint(seq, 10), func(s stamp) bool { return s.seq > seq })
}

// preconfirmedSince waits for the first pre-confirmation stored after t
// and returns when it was stored. JetStream stamps an entry when its
// stream's leader takes it, so an entry of a leader killed at t is
// stamped before t.
func (w *logWatch) preconfirmedSince(ctx context.Context, t time.Time) (time.Time, error) {
	return w.firstPreconf(ctx, t.Format(time.StampMilli), func(s stamp) bool { return s.at.After(t) })
}

// firstPreconf waits for the first pre-confirmation that is after (false
// for every one before it, true from it on: entries come in order) and
// returns when it was stored.
func (w *logWatch) firstPreconf(ctx context.Context, what string, after func(stamp) bool) (time.Time, error) {
	deadline := time.After(60 * time.Second)
	for {
		w.mu.Lock()
		i := sort.Search(len(w.preconf), func(i int) bool { return after(w.preconf[i]) })
		if i < len(w.preconf) {
			at := w.preconf[i].at
			w.mu.Unlock()
			return at, nil
		}
		changed, err := w.changed, w.err
		w.mu.Unlock()
		if err != nil {
			return time.Time{}, fmt.Errorf("follow the log: %w", err)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-deadline:
			if w.onStall != nil {
				w.onStall()
			}
			return time.Time{}, fmt.Errorf("no pre-confirmation in the log 60s after %s", what)
		}
	}
}

// longestGap is the longest time between two pre-confirmations stored
// between from and to, and around them.
func (w *logWatch) longestGap(from, to time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var gap time.Duration
	for i := 1; i < len(w.preconf); i++ {
		prev, at := w.preconf[i-1].at, w.preconf[i].at
		if at.After(from) && prev.Before(to) {
			gap = max(gap, at.Sub(prev))
		}
	}
	return gap
}

// handOver asks the leader to hand over and returns the longest pause in
// pre-confirmations around it.
func handOver(ctx context.Context, c *devcluster.Cluster, w *logWatch) (time.Duration, error) {
	leader, err := c.Leader(ctx)
	if err != nil {
		return 0, err
	}
	if err := standbyCaughtUp(ctx, c, leader); err != nil {
		return 0, err
	}
	nc, err := nats.Connect(strings.Join(c.URLs, ","))
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	asked := time.Now()
	if _, err := lease.RequestHandover(ctx, nc, chain.PreviewChainID); err != nil {
		return 0, err
	}
	for {
		next, err := c.Leader(ctx)
		if err != nil {
			return 0, err
		}
		if next != leader {
			break
		}
	}
	if err := sleep(ctx, time.Second); err != nil { // the new leader pre-confirms a while
		return 0, err
	}
	return w.longestGap(asked.Add(-100*time.Millisecond), time.Now()), nil
}

func (w *logWatch) sealedBlocks() (blocks, reorged int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.sealed), w.reorged
}

// compareChain counts the blocks the log sealed that the replica holds
// with another hash, once it caught up.
func compareChain(ctx context.Context, url string, w *logWatch) (int, error) {
	w.mu.Lock()
	sealed := make(map[uint64]common.Hash, len(w.sealed))
	var top uint64
	for n, h := range w.sealed {
		sealed[n], top = h, max(top, n)
	}
	w.mu.Unlock()
	client, err := rpcclient.New(url, 4)
	if err != nil {
		return 0, err
	}
	var head hexutil.Uint64
	for deadline := time.Now().Add(30 * time.Second); uint64(head) < top; {
		if err := client.Call(&head, "eth_blockNumber"); err != nil || time.Now().After(deadline) {
			return 0, fmt.Errorf("the replica at %d, not at the log's %d: %v", head, top, err)
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return 0, err
		}
	}
	differ := 0
	for n, want := range sealed {
		var block struct {
			Hash common.Hash `json:"hash"`
		}
		if err := client.Call(&block, "eth_getBlockByNumber", hexutil.Uint64(n), false); err != nil {
			return differ, err
		}
		if block.Hash != want {
			differ++
		}
	}
	return differ, nil
}
