package faucet

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

// Reasons chain-health gives.
const (
	ReasonOK            = "ok"             // blocks are being sealed
	ReasonHalted        = "halted"         // the head is stale: the sequencer stopped
	ReasonStarting      = "starting"       // the node has not sealed its first block yet
	ReasonProductionOff = "production-off" // --block-time 0: the chain is served as it is
)

// Health is the chain-health answer. Its field names are camelCase, as
// Base's vibenet chain-health, unlike the faucet's own endpoints.
type Health struct {
	Healthy bool   `json:"healthy"`
	Reason  string `json:"reason"`
	Detail  string `json:"detail"`
	// Head is the latest sealed block's number.
	Head uint64 `json:"head"`
	// HeadAgeSecs is the wall-clock time since the head's timestamp.
	HeadAgeSecs float64 `json:"headAgeSecs"`
	// StuckSecs is the time since this node saw the head number change
	// (since it started, if it has not).
	StuckSecs float64 `json:"stuckSecs"`
}

// headSeen is when the node saw a head number first.
type headSeen struct {
	number uint64
	at     time.Time
	moved  bool // the head changed since the node started
}

// chainHealth tells whether the sequencer is producing blocks.
type chainHealth struct {
	snapshots  *pending.Store
	staleAfter time.Duration // 0: block production is off
	started    time.Time
	seen       atomic.Pointer[headSeen]
}

func newChainHealth(snapshots *pending.Store, staleAfter time.Duration, now time.Time) *chainHealth {
	h := &chainHealth{snapshots: snapshots, staleAfter: staleAfter, started: now}
	seen := &headSeen{at: now}
	if snap := snapshots.Load(); snap != nil {
		seen.number = snap.Head.NumberU64()
	}
	h.seen.Store(seen)
	return h
}

// sealed records a new head; it runs on the sequencer's goroutine.
func (h *chainHealth) sealed(block *types.Block, now time.Time) {
	h.seen.Store(&headSeen{number: block.NumberU64(), at: now, moved: true})
}

// observe returns what is known of the head at now, noting a head number
// that changed without a sealed notice (nobody told us: we see it now).
func (h *chainHealth) observe(head uint64, now time.Time) *headSeen {
	for {
		seen := h.seen.Load()
		if seen.number == head {
			return seen
		}
		next := &headSeen{number: head, at: now, moved: true}
		if h.seen.CompareAndSwap(seen, next) {
			return next
		}
	}
}

// report judges the chain at now. Its stale rule is the node's /health
// rule: a head older than staleAfter.
func (h *chainHealth) report(now time.Time) Health {
	snap := h.snapshots.Load()
	if snap == nil {
		return Health{Reason: ReasonStarting, Detail: "the node has not loaded its chain yet"}
	}
	head := snap.HeadHeader
	age := now.Sub(time.Unix(int64(head.Time), 0))
	seen := h.observe(head.Number.Uint64(), now)
	stuck := now.Sub(seen.at)
	r := Health{Healthy: true, Reason: ReasonOK, Head: seen.number, HeadAgeSecs: seconds(age), StuckSecs: seconds(stuck)}
	switch {
	case h.staleAfter == 0:
		r.Reason = ReasonProductionOff
		r.Detail = fmt.Sprintf("block production is off (--block-time 0): the node serves the chain as it is, head %d", r.Head)
	case age <= h.staleAfter:
		r.Detail = fmt.Sprintf("head %d, timestamped %s ago", r.Head, age.Round(time.Second))
	case !seen.moved && now.Sub(h.started) <= h.staleAfter:
		r.Healthy, r.Reason = false, ReasonStarting
		r.Detail = fmt.Sprintf("the node started %s ago and has not sealed its first block yet; the head it found, %d, is %s old",
			now.Sub(h.started).Round(time.Millisecond), r.Head, age.Round(time.Second))
	default:
		r.Healthy, r.Reason = false, ReasonHalted
		r.Detail = fmt.Sprintf("no block since %d, timestamped %s ago (stale beyond %s): the sequencer is not producing blocks",
			r.Head, age.Round(time.Second), h.staleAfter)
	}
	return r
}

// seconds is d in seconds to the millisecond, never negative (a head
// timestamped in this second may be up to a second "ahead" of now).
func seconds(d time.Duration) float64 {
	return math.Max(0, math.Round(d.Seconds()*1000)/1000)
}
