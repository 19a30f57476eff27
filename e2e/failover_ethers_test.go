package e2e

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestEthersAcrossAFailover: ethers, with its default options, against a
// read replica while the sequencer fails over twice under it (js/
// failover-ethers): every send and wait() is answered, nonces follow each
// other, a read after wait() shows the transfer, and no read goes back.
// Every node runs the default rhythm (200 ms blocks); the candidates keep
// their chain on disk, as in production.
func TestEthersAcrossAFailover(t *testing.T) {
	nodeBin := jsPrerequisites(t)
	cluster := startNATSCluster(t, 1)
	args := func(dir string) []string {
		return []string{"--dev=false", "--datadir", dir, "--ha", "--nats.url", cluster.URL(0)}
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	nodes := []*node{startNode(t, args(dirs[0])...), startNode(t, args(dirs[1])...)}
	lead := awaitOneLeader(t, nodes...)
	replica := startNode(t, "--follow", "--nats.url", cluster.URL(0))

	const run = 25 * time.Second
	started := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runJSFile(t, nodeBin, filepath.Join("js", "failover-ethers.test.mjs"), replica,
			"STOCKNODE_FAILOVER_MS="+strconv.FormatInt(run.Milliseconds(), 10))
	}()
	for _, at := range []time.Duration{6 * time.Second, 15 * time.Second} {
		time.Sleep(time.Until(started.Add(at)))
		nodes[lead].kill()
		killed := time.Now()
		standby := 1 - lead
		poll(t, testContext(t, 10*time.Second), "the standby leads", func() bool {
			return nodes[standby].health(t).Role == "sequencer"
		})
		t.Logf("kill %v into the script: the standby led %v later", at, time.Since(killed).Round(time.Millisecond))
		nodes[lead] = startNode(t, args(dirs[lead])...)
		lead = awaitOneLeader(t, nodes...)
		if lead != standby {
			t.Fatalf("the restarted candidate %d leads, want %d", lead, standby)
		}
	}
	if time.Since(started) > run-2*time.Second {
		t.Errorf("the second failover ended %v into a %v script: too late to be under it", time.Since(started).Round(time.Millisecond), run)
	}
	<-done
}
