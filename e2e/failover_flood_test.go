package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stocknode/stocknode/loadtest/failover"
)

// TestKillsUnderFloodLoseNothing is issue 27's promise under load, at a
// size a test affords (make failover-bench measures it at 1,000
// transfers/s and 20 kills): three NATS servers, two candidates and a
// replica; a flood through the replica; the sequencer killed with -9 three
// times, a planned handover, then each NATS server killed with -9, the
// one leading the log's stream twice. Every transfer that got a hash is
// sealed, no block announced changes hash, and blocks go on within 2 s of
// each NATS server's crash. make test runs it alone, after the other
// packages' tests, whose load on two cores stretches elections (Makefile,
// ALONE).
func TestKillsUnderFloodLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster for a minute")
	}
	report, err := failover.Run(testContext(t, 3*time.Minute), failover.Config{
		Bin: binary, Kills: 3, Handovers: 1, KillNATS: true, NATSLeaderKills: 2, NATSBin: natsBinary,
		Interval: 2 * time.Second, Warmup: 8 * time.Second,
		Rate: 300, Accounts: 128, Senders: 16, KeepDir: true,
	})
	// The cluster's logs are kept for a failure's sake, and shown with it.
	defer os.RemoveAll(report.Dir)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, logTails(report.Dir, 60), stacks(report.Dir, 400))
	}
	t.Log(report)
	if report.Accepted == 0 || report.Lost != 0 || report.Reorged != 0 {
		t.Fatalf("accepted %d, lost %d, blocks reorged %d; want none lost or reorged", report.Accepted, report.Lost, report.Reorged)
	}
	// The election of a new stream leader (at most 700 ms with
	// bin/stocknode-nats, 4-9 s with a stock nats-server), an append's
	// retry, and a machine busy with the race detector.
	if report.NATSPause.Max > 2*time.Second {
		t.Fatalf("blocks stopped for %v after the stream leader's crash; want under 2 s", report.NATSPause.Max)
	}
}

// stacks is, from each node's log in dir, the goroutines of the Go
// runtime's dump (failover's Cluster.Dump, on a stall) that run this
// project's code, at most n lines a log.
func stacks(dir string, n int) string {
	return eachLog(dir, func(name, log string) string {
		_, dump, ok := strings.Cut(log, "SIGQUIT: quit")
		if !ok {
			return ""
		}
		var kept []string
		for _, g := range strings.Split(dump, "\n\n") {
			if strings.HasPrefix(g, "goroutine ") && strings.Contains(g, "github.com/stocknode/stocknode/") {
				kept = append(kept, strings.Split(g, "\n")...)
			}
		}
		return fmt.Sprintf("--- %s, goroutines in stocknode's code (of the dump at the stall):\n%s\n", name, strings.Join(kept[:min(len(kept), n)], "\n"))
	})
}

// logTails is the last n lines of each node's log in dir.
func logTails(dir string, n int) string {
	return eachLog(dir, func(name, log string) string {
		lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
		return fmt.Sprintf("--- %s, last %d lines:\n%s\n", name, n, strings.Join(lines[max(0, len(lines)-n):], "\n"))
	})
}

// eachLog joins what show makes of each node's log in dir.
func eachLog(dir string, show func(name, log string) string) string {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		b.WriteString(show(filepath.Base(p), string(data)))
	}
	return b.String()
}
