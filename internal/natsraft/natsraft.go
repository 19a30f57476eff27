// Package natsraft sets the Raft timers of the NATS servers that run in
// this process.
//
// nats-server v2.15.2 has no option for them: a follower of a Raft group
// calls an election only when its election timer fires, drawn between 4
// and 9 s after its leader's last message, and a closed route to a dead
// leader starts nothing sooner. When the server that leads the sequencer
// log's stream crashes, blocks stop for that long. The timers are
// unexported package variables (server/raft.go; nats-server's own tests
// shorten them the same way), so this package links to them by name. The
// names are checked at run time by TestTimersReachTheServers, which
// fails if a nats-server upgrade renames them: the linker would then give
// this package variables of its own that no server reads.
package natsraft

import (
	"errors"
	"fmt"
	"time"
	_ "unsafe" // go:linkname

	_ "github.com/nats-io/nats-server/v2/server" // the variables below live there
)

//go:linkname hbInterval github.com/nats-io/nats-server/v2/server.hbInterval
var hbInterval time.Duration

//go:linkname minElectionTimeout github.com/nats-io/nats-server/v2/server.minElectionTimeout
var minElectionTimeout time.Duration

//go:linkname maxElectionTimeout github.com/nats-io/nats-server/v2/server.maxElectionTimeout
var maxElectionTimeout time.Duration

//go:linkname minCampaignTimeout github.com/nats-io/nats-server/v2/server.minCampaignTimeout
var minCampaignTimeout time.Duration

//go:linkname maxCampaignTimeout github.com/nats-io/nats-server/v2/server.maxCampaignTimeout
var maxCampaignTimeout time.Duration

// Timers are the Raft timers every NATS server in the process uses.
type Timers struct {
	// Heartbeat is how often an idle leader tells its followers it lives.
	// A leader under load tells them with every append.
	Heartbeat time.Duration
	// MinElection and MaxElection bound a follower's election timer,
	// drawn anew after each message from its leader: a dead leader is
	// replaced that long after its last message.
	MinElection, MaxElection time.Duration
	// MinCampaign and MaxCampaign bound how long a follower that refused
	// its vote to a candidate less up to date waits before it stands
	// itself. Under a flood the followers of a dead leader seldom hold the
	// same entries, so half the time the first candidate is refused, and
	// this wait adds to the election.
	MinCampaign, MaxCampaign time.Duration
}

// Fast are the timers for a sequencer log: a dead stream leader is
// replaced 400–700 ms after its last message, or 25–200 ms later when the
// first candidate is refused, so that blocks pause under a second (issue
// 27's goal). A follower waits four heartbeats before it calls an
// election, so a leader that misses three in a row (a pause of 300 ms on
// a starved machine) is not deposed. nats-server's own tests run with
// 50 ms heartbeats and 1.5–3.5 s elections; its campaign wait is 100–800
// ms.
func Fast() Timers {
	ms := time.Millisecond
	return Timers{Heartbeat: 100 * ms, MinElection: 400 * ms, MaxElection: 700 * ms, MinCampaign: 25 * ms, MaxCampaign: 200 * ms}
}

// Current are the timers the process's NATS servers use.
func Current() Timers {
	return Timers{Heartbeat: hbInterval, MinElection: minElectionTimeout, MaxElection: maxElectionTimeout,
		MinCampaign: minCampaignTimeout, MaxCampaign: maxCampaignTimeout}
}

// Validate says what is wrong with t, if anything.
func (t Timers) Validate() error {
	switch {
	case t.Heartbeat <= 0:
		return errors.New("the Raft heartbeat must be positive")
	case t.MinElection < 2*t.Heartbeat:
		return fmt.Errorf("the Raft election timeout's minimum (%v) must be at least two heartbeats (%v): a follower would depose a live leader", t.MinElection, 2*t.Heartbeat)
	case t.MaxElection <= t.MinElection:
		return fmt.Errorf("the Raft election timeout's maximum (%v) must exceed its minimum (%v): followers that time out together split the vote", t.MaxElection, t.MinElection)
	case t.MinCampaign <= 0 || t.MaxCampaign <= t.MinCampaign:
		return fmt.Errorf("the Raft campaign wait must be a positive range, not %v to %v", t.MinCampaign, t.MaxCampaign)
	case t.MaxCampaign >= t.MinElection:
		return fmt.Errorf("the Raft campaign wait's maximum (%v) must be shorter than the election timeout's minimum (%v): a refusing follower would stand after the refused candidate tried again", t.MaxCampaign, t.MinElection)
	}
	return nil
}

// Apply makes t the timers of every NATS server in the process. Call it
// before the process starts its first server: the servers read the
// timers without synchronisation. Applying the timers already in use
// writes nothing, so it is safe while servers run.
func Apply(t Timers) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if Current() == t {
		return nil
	}
	hbInterval, minElectionTimeout, maxElectionTimeout = t.Heartbeat, t.MinElection, t.MaxElection
	minCampaignTimeout, maxCampaignTimeout = t.MinCampaign, t.MaxCampaign
	return nil
}
