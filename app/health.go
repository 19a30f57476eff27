package app

import (
	"fmt"
	"time"
)

// healthReport is what GET /health answers.
type healthReport struct {
	head  uint64
	age   time.Duration // of the head's timestamp
	stale bool
	role  string // sequencer, standby or replica
	// replica is a read replica's lag behind the sequencer's log; nil on
	// the sequencer.
	replica *replicaLag
}

// replicaLag is how far a read replica is behind the sequencer.
type replicaLag struct {
	entries uint64        // log entries not yet applied
	lag     time.Duration // from the last applied entry's logging to its application
}

// MarshalJSON writes the report with a fixed field order and precision, as
// load balancers and dashboards have read it since the first release.
func (h healthReport) MarshalJSON() ([]byte, error) {
	b := fmt.Appendf(nil, `{"head":%d,"age":%q,"ageSeconds":%.3f,"stale":%t,"role":%q`, h.head, h.age.Round(time.Millisecond).String(), h.age.Seconds(), h.stale, h.role)
	if r := h.replica; r != nil {
		b = fmt.Appendf(b, `,"replica":{"behindEntries":%d,"lagSeconds":%.3f}`, r.entries, r.lag.Seconds())
	}
	return append(b, '}'), nil
}

// health reports the head's age (and a replica's lag); with block
// production on, a head older than ten block times (at least 5 s:
// timestamps count seconds) is stale, and the node unfit to serve.
func (n *Node) health() (report []byte, ok bool) {
	h := n.healthReport()
	report, _ = h.MarshalJSON()
	return report, !h.stale
}

func (n *Node) healthReport() healthReport {
	h := healthReport{role: n.role()}
	if n.follower != nil && !n.leading.Load() {
		entries, lag, _ := n.follower.Lag()
		h.replica = &replicaLag{entries: entries, lag: lag}
	}
	snap := n.store.Load()
	if snap == nil {
		h.stale = true
		return h
	}
	h.head, h.age = snap.Head.NumberU64(), time.Since(time.Unix(int64(snap.Head.Time()), 0))
	limit := n.staleAfter()
	h.stale = limit > 0 && h.age > limit
	return h
}

// staleAfter is the head age beyond which the chain is stale: ten block
// times, at least 5 s (timestamps count seconds); 0 with production off.
func (n *Node) staleAfter() time.Duration {
	if n.cfg.Sequencer.BlockTime == 0 {
		return 0
	}
	return max(5*time.Second, 10*n.cfg.Sequencer.BlockTime)
}

// The node's roles, as /health and the node_role metric name them.
const (
	roleSequencer = "sequencer" // produces blocks and pre-confirmations
	roleStandby   = "standby"   // a candidate (--ha) that follows the log until it holds the lease
	roleReplica   = "replica"   // follows the sequencer's log (--follow)
)

// role says what this node does in the deployment.
func (n *Node) role() string {
	switch {
	case n.cfg.Follow:
		return roleReplica
	case n.lease != nil && !n.leading.Load():
		return roleStandby
	}
	return roleSequencer
}
