// Package failover is loadtest's failover mode (`make failover-bench`): it
// runs the failover topology (internal/devcluster), floods the replica
// with transfers, kills the sequencer's process with SIGKILL again and
// again (restarting it as a standby each time), then kills the NATS server
// that leads the log's stream, and reports the pause from each kill to the
// next pre-confirmation, the transfers lost, the blocks reorged, and the
// sends that got an error.
package failover

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/stocknode/stocknode/internal/devcluster"
	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/loadtest/flood"
)

// Config is a failover run.
type Config struct {
	Bin       string
	Kills     int
	Interval  time.Duration
	Warmup    time.Duration
	Rate      float64
	Accounts  int
	Senders   int
	Handovers int
	KillNATS  bool
	// NATSLeaderKills is how often the NATS server leading the log's
	// stream is killed (and started again), after one kill of each other.
	NATSLeaderKills int
	NATSBin         string
	KeepDir         bool
	NodeFlags       string
}

// Flags registers the mode's flags on fs and returns the Config they fill.
func Flags(fs *flag.FlagSet) *Config {
	c := new(Config)
	fs.StringVar(&c.Bin, "bin", "bin/stocknode", "the stocknode binary")
	fs.IntVar(&c.Kills, "kills", 20, "times the sequencer's process is killed")
	fs.DurationVar(&c.Interval, "interval", 3*time.Second, "time between kills (the killed candidate restarts as a standby meanwhile)")
	fs.DurationVar(&c.Warmup, "warmup", 15*time.Second, "flood time before the first kill (the flood funds its accounts first)")
	fs.Float64Var(&c.Rate, "rate", 1000, "transfers/s offered to the replica")
	fs.IntVar(&c.Accounts, "accounts", 512, "sending accounts")
	fs.IntVar(&c.Senders, "senders", 32, "sending goroutines")
	fs.IntVar(&c.Handovers, "handovers", 20, "planned handovers (stocknode handover) after the kills")
	fs.BoolVar(&c.KillNATS, "kill-nats", true, "after the handovers, kill each NATS server that does not lead the log's stream, then the one that does, -nats-leader-kills times (starting each again)")
	fs.IntVar(&c.NATSLeaderKills, "nats-leader-kills", 20, "times the NATS server leading the log's stream is killed, with -kill-nats")
	fs.StringVar(&c.NATSBin, "nats-bin", "", "run the NATS servers as processes of this nats-server binary, so that -kill-nats kills them as a crash would (kill -9); empty: in this process, where a kill is a shutdown that hands the server's leaderships over first")
	fs.BoolVar(&c.KeepDir, "keep", false, "keep the datadirs and logs (their directory is printed)")
	fs.StringVar(&c.NodeFlags, "node-flags", "", "more flags for every node, space-separated")
	return c
}

// Report is what a run measured.
type Report struct {
	Kills              int               `json:"kills"`
	Pause              latency.Durations `json:"pauseAfterSequencerKill"`
	Takeover           latency.Durations `json:"standbyLeadsAfter"`
	Handover           latency.Durations `json:"pauseAroundHandover"`
	NATSPause          latency.Durations `json:"pauseAfterNATSLeaderKill"`
	NATSFollowerPauses []time.Duration   `json:"pauseAfterNATSFollowerKill,omitempty"`
	NATSCrash          bool              `json:"natsKilledAsACrash"`
	Accepted           int               `json:"accepted"`
	Lost               int               `json:"lost"`
	SendErrors         int               `json:"sendErrors"`
	ErrorsBy           map[string]int    `json:"errorsBy,omitempty"`
	Reorged            int               `json:"blocksReorged"`
	Blocks             int               `json:"blocksSealed"`
	FloodReport        flood.Report      `json:"flood"`
	Dir                string            `json:"dir,omitempty"`
}

func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sequencer killed %d times under a flood through the replica\n", r.Kills)
	fmt.Fprintf(&b, "pause, kill to the next pre-confirmation: %v\n", r.Pause)
	fmt.Fprintf(&b, "standby reports itself sequencer after:   %v\n", r.Takeover)
	if r.Handover.Count > 0 {
		fmt.Fprintf(&b, "longest pause between pre-confirmations around a planned handover: %v\n", r.Handover)
	}
	if r.NATSPause.Count > 0 {
		how := "shut down (in process: its leaderships handed over first)"
		if r.NATSCrash {
			how = "killed -9"
		}
		for _, p := range r.NATSFollowerPauses {
			fmt.Fprintf(&b, "pause, a NATS server that does not lead the stream %s, to the next pre-confirmation: %v\n", how, p.Round(time.Millisecond))
		}
		fmt.Fprintf(&b, "pause, the NATS server leading the stream %s, to the next pre-confirmation: %v\n", how, r.NATSPause)
	}
	fmt.Fprintf(&b, "transfers accepted %d, lost %d; sends with an error %d; blocks sealed %d, reorged %d\n", r.Accepted, r.Lost, r.SendErrors, r.Blocks, r.Reorged)
	for m, n := range r.ErrorsBy {
		fmt.Fprintf(&b, "  error %6d  %s\n", n, m)
	}
	if r.Dir != "" {
		fmt.Fprintf(&b, "datadirs and logs kept in %s\n", r.Dir)
	}
	return b.String()
}

// Run runs the cluster, the flood and the kills.
func Run(ctx context.Context, cfg Config) (Report, error) {
	report := Report{Kills: cfg.Kills}
	dir, err := os.MkdirTemp("", "stocknode-failover-")
	if err != nil {
		return report, err
	}
	if cfg.KeepDir {
		report.Dir = dir
	} else {
		defer os.RemoveAll(dir)
	}
	c, err := devcluster.Start(ctx, devcluster.Config{Bin: cfg.Bin, Dir: dir, NodeArgs: strings.Fields(cfg.NodeFlags), NATSBin: cfg.NATSBin})
	if err != nil {
		return report, err
	}
	defer c.Stop()
	w, err := watchLog(ctx, c.URLs)
	if err != nil {
		return report, err
	}
	defer w.close()
	w.onStall = c.Dump // the nodes' stacks, in their logs, say what stalled

	// The flood lasts until every kill and handover is done (a killed
	// candidate's restart takes seconds, so no duration fits in advance);
	// Duration only bounds a run that hangs.
	stopFlood := make(chan struct{})
	endFlood := sync.OnceFunc(func() { close(stopFlood) })
	defer endFlood()
	floodCfg := flood.Config{URL: c.Nodes[2].URL, Accounts: cfg.Accounts, Senders: cfg.Senders, Rate: cfg.Rate,
		Duration: time.Hour, Stop: stopFlood, FundETH: 10, FeeCapGwei: 100, TipGwei: 1,
		Poll: 40 * time.Millisecond, Drain: 20 * time.Second, FundTimeout: 60 * time.Second}
	floodDone := make(chan error, 1)
	go func() {
		var err error
		report.FloodReport, err = flood.Run(ctx, floodCfg)
		floodDone <- err
	}()
	if err := sleep(ctx, cfg.Warmup); err != nil {
		return report, err
	}
	var pauses, takeovers []time.Duration
	for range cfg.Kills {
		pause, takeover, err := killLeader(ctx, c, w)
		if err != nil {
			return report, err
		}
		pauses, takeovers = append(pauses, pause), append(takeovers, takeover)
		if err := sleep(ctx, cfg.Interval); err != nil {
			return report, err
		}
	}
	report.Pause, report.Takeover = latency.Summarize(pauses), latency.Summarize(takeovers)
	var handovers []time.Duration
	for range cfg.Handovers {
		gap, err := handOver(ctx, c, w)
		if err != nil {
			return report, fmt.Errorf("handover: %w", err)
		}
		handovers = append(handovers, gap)
		if err := sleep(ctx, cfg.Interval); err != nil {
			return report, err
		}
	}
	report.Handover = latency.Summarize(handovers)
	if cfg.KillNATS {
		report.NATSCrash = cfg.NATSBin != "" // a process is killed; a server in this process only shuts down
		var leaderPauses []time.Duration
		if report.NATSFollowerPauses, leaderPauses, err = natsKills(ctx, c, w, cfg.NATSLeaderKills, cfg.Interval); err != nil {
			return report, err
		}
		report.NATSPause = latency.Summarize(leaderPauses)
	}
	if err := sleep(ctx, time.Second); err != nil { // sends in the new leader's hands
		return report, err
	}
	endFlood()
	if err := <-floodDone; err != nil {
		return report, fmt.Errorf("flood: %w", err)
	}
	f := report.FloodReport
	report.Accepted, report.Lost = f.Accepted, f.NotIncluded
	report.SendErrors, report.ErrorsBy = f.Rejected+f.TransportErrors, f.RejectedBy
	report.Blocks, report.Reorged = w.sealedBlocks()
	reorged, err := compareChain(ctx, c.Nodes[2].URL, w)
	report.Reorged += reorged
	return report, err
}

// killLeader kills the sequencer's process and measures the pause to the
// next pre-confirmation the log stores, and to the standby's /health
// saying it leads; then it starts the killed candidate again.
func killLeader(ctx context.Context, c *devcluster.Cluster, w *logWatch) (pause, takeover time.Duration, err error) {
	leader, err := c.Leader(ctx)
	if err != nil {
		return 0, 0, err
	}
	if err := standbyCaughtUp(ctx, c, leader); err != nil {
		return 0, 0, err
	}
	killed := time.Now()
	c.Kill(leader)
	last, err := w.lastSeqSoon(ctx)
	if err != nil {
		return 0, 0, err
	}
	next, err := c.Leader(ctx)
	if err != nil {
		return 0, 0, err
	}
	takeover = time.Since(killed)
	if next == leader {
		return 0, 0, errors.New("the killed candidate leads")
	}
	at, err := w.preconfirmedAfter(ctx, last)
	if err != nil {
		return 0, 0, err
	}
	if err := c.StartNode(ctx, leader); err != nil {
		return 0, 0, err
	}
	return at.Sub(killed), takeover, nil
}

// standbyCaughtUp waits until the candidate that does not lead has applied
// the log: the failure the benchmark measures is a leader's, with a
// standby ready, not a standby's replay after its own restart.
func standbyCaughtUp(ctx context.Context, c *devcluster.Cluster, leader int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return c.CaughtUp(ctx, 1-leader)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
