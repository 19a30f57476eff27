package e2e

import (
	"math/big"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// candidateArgs are a sequencer candidate's flags on cluster, with its own
// datadir.
func candidateArgs(t *testing.T, cluster *natsCluster, dir string) []string {
	return []string{"--dev=false", "--datadir", dir, "--ha", "--nats.url", cluster.URL(0),
		"--block-time", "2s", "--preconf-interval", "100ms", "--preview.examples=false"}
}

// roles polls the nodes' /health until exactly one is the sequencer and
// the others standbys, and returns the sequencer's index.
func awaitOneLeader(t *testing.T, nodes ...*node) int {
	t.Helper()
	leader := -1
	poll(t, testContext(t, 15*time.Second), "one sequencer and the others standbys", func() bool {
		leader = -1
		for i, n := range nodes {
			switch n.health(t).Role {
			case "sequencer":
				if leader >= 0 {
					return false
				}
				leader = i
			case "standby":
			default:
				return false
			}
		}
		return leader >= 0
	})
	return leader
}

// TestFailoverKeepsPreconfirmations is issue 27's story: two candidates
// started at once elect one sequencer; a transfer sent to the standby is
// relayed and pre-confirmed; the sequencer is killed with -9 before the
// block seals; the standby takes over, and seals the transfer in the
// block it was promised to, keeping every block announced before. The
// killed candidate restarts as a standby.
func TestFailoverKeepsPreconfirmations(t *testing.T) {
	cluster := startNATSCluster(t, 1)
	dirs := []string{t.TempDir(), t.TempDir()}
	nodes := []*node{startNode(t, candidateArgs(t, cluster, dirs[0])...), startNode(t, candidateArgs(t, cluster, dirs[1])...)}
	lead := awaitOneLeader(t, nodes...)
	standby := 1 - lead
	time.Sleep(2 * time.Second) // still one leader after a few renewals
	if again := awaitOneLeader(t, nodes...); again != lead {
		t.Fatalf("the lead moved from %d to %d without a failure", lead, again)
	}

	client, _ := nodes[standby].dial(t)
	ctx := testContext(t, 60*time.Second)
	preconf, err := rpc.DialContext(ctx, nodes[standby].URL+"/preconf")
	if err != nil {
		t.Fatal(err)
	}
	defer preconf.Close()
	to := freshAddress(t)
	tx := sendTransfer(t, ctx, client, to, 4242)
	poll(t, ctx, "the transfer pre-confirmed, seen on the standby", func() bool {
		b, err := client.PendingBalanceAt(ctx, to)
		return err == nil && b.Int64() == 4242
	})
	var promised struct {
		BlockNumber string `json:"blockNumber"`
	}
	if err := preconf.CallContext(ctx, &promised, "eth_getTransactionByHash", tx.Hash()); err != nil {
		t.Fatal(err)
	}
	announced := blockHashes(t, client)

	nodes[lead].kill()
	killed := time.Now()
	poll(t, testContext(t, 10*time.Second), "the standby leads", func() bool {
		return nodes[standby].health(t).Role == "sequencer"
	})
	t.Logf("the standby leads %v after the kill", time.Since(killed).Round(time.Millisecond))

	receipt := waitSealed(t, ctx, client, tx.Hash())
	if want, ok := new(big.Int).SetString(promised.BlockNumber, 0); !ok || receipt.BlockNumber.Cmp(want) != 0 {
		t.Errorf("the transfer sealed in block %d, pre-confirmed in %q", receipt.BlockNumber, promised.BlockNumber)
	}
	for number, hash := range announced {
		h, err := client.HeaderByNumber(ctx, new(big.Int).SetUint64(number))
		if err != nil || h.Hash() != hash {
			t.Fatalf("block %d announced as %s is now %v (%v)", number, hash, h, err)
		}
	}

	// The killed candidate comes back as a standby and follows.
	nodes[lead] = startNode(t, candidateArgs(t, cluster, dirs[lead])...)
	if got := awaitOneLeader(t, nodes...); got != standby {
		t.Fatalf("after the restart %d leads, want %d", got, standby)
	}
	back, _ := nodes[lead].dial(t)
	poll(t, ctx, "the restarted candidate replays the transfer's block", func() bool {
		b, err := back.BalanceAt(ctx, to, nil)
		return err == nil && b.Int64() == 4242
	})
}

// blockHashes maps every block number up to the head to its hash.
func blockHashes(t *testing.T, c *ethclient.Client) map[uint64]common.Hash {
	t.Helper()
	ctx := testContext(t, 10*time.Second)
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hashes := make(map[uint64]common.Hash, head+1)
	for n := uint64(0); n <= head; n++ {
		h, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		hashes[n] = h.Hash()
	}
	return hashes
}

// TestStalledLeaderStepsDown: a leader that stalls past its lease (SIGSTOP,
// as a long pause or a partition would) loses it to the standby; when it
// wakes it is fenced or finds the lease lost, steps down to a standby and
// follows the new leader's chain, and relays sends to it.
func TestStalledLeaderStepsDown(t *testing.T) {
	cluster := startNATSCluster(t, 1)
	nodes := []*node{startNode(t, candidateArgs(t, cluster, t.TempDir())...), startNode(t, candidateArgs(t, cluster, t.TempDir())...)}
	lead := awaitOneLeader(t, nodes...)
	standby := 1 - lead

	if err := nodes[lead].cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			nodes[lead].cmd.Process.Signal(syscall.SIGCONT)
		}
	}()
	poll(t, testContext(t, 10*time.Second), "the standby leads while the leader is stopped", func() bool {
		return nodes[standby].health(t).Role == "sequencer"
	})
	ctx := testContext(t, 60*time.Second)
	client, _ := nodes[standby].dial(t)
	start, err := client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the new leader seals a block", func() bool {
		n, err := client.BlockNumber(ctx)
		return err == nil && n > start
	})
	if err := nodes[lead].cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false
	if got := awaitOneLeader(t, nodes...); got != standby {
		t.Fatalf("after the stalled leader woke, %d leads, want %d", got, standby)
	}

	old, _ := nodes[lead].dial(t)
	to := freshAddress(t)
	tx := sendTransfer(t, ctx, old, to, 99)
	receipt := waitSealed(t, ctx, old, tx.Hash())
	theirs, err := client.HeaderByNumber(ctx, receipt.BlockNumber)
	if err != nil || theirs.Hash() != receipt.BlockHash {
		t.Fatalf("the woken node sealed the transfer in %s; the leader's block %d is %v (%v)", receipt.BlockHash, receipt.BlockNumber, theirs, err)
	}
}

// TestPlannedHandover: `stocknode handover` makes the leader stop and give
// the lease up; the standby leads at once and seals, in the block it was
// promised to, a transfer the old leader pre-confirmed; the old leader
// follows as a standby.
func TestPlannedHandover(t *testing.T) {
	cluster := startNATSCluster(t, 1)
	nodes := []*node{startNode(t, candidateArgs(t, cluster, t.TempDir())...), startNode(t, candidateArgs(t, cluster, t.TempDir())...)}
	lead := awaitOneLeader(t, nodes...)
	standby := 1 - lead

	ctx := testContext(t, 60*time.Second)
	client, _ := nodes[lead].dial(t)
	preconf, err := rpc.DialContext(ctx, nodes[lead].URL+"/preconf")
	if err != nil {
		t.Fatal(err)
	}
	defer preconf.Close()
	to := freshAddress(t)
	tx := sendTransfer(t, ctx, client, to, 7)
	var promised struct {
		BlockNumber string `json:"blockNumber"`
	}
	poll(t, ctx, "the transfer pre-confirmed", func() bool {
		return preconf.CallContext(ctx, &promised, "eth_getTransactionByHash", tx.Hash()) == nil && promised.BlockNumber != ""
	})

	out, err := exec.CommandContext(ctx, binary, "handover", "--nats.url", cluster.URL(0)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "handed over") || !strings.Contains(string(out), "leads") {
		t.Fatalf("stocknode handover: %v\n%s", err, out)
	}
	if got := awaitOneLeader(t, nodes...); got != standby {
		t.Fatalf("after the handover %d leads, want %d", got, standby)
	}
	receipt := waitSealed(t, ctx, client, tx.Hash())
	if want, ok := new(big.Int).SetString(promised.BlockNumber, 0); !ok || receipt.BlockNumber.Cmp(want) != 0 {
		t.Errorf("the transfer sealed in block %d, pre-confirmed in %q", receipt.BlockNumber, promised.BlockNumber)
	}
}
