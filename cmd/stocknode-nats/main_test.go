package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stocknode/stocknode/internal/devcluster"
	"github.com/stocknode/stocknode/internal/natsraft"
)

// build compiles this command into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), exe)
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// A stock nats-server replaces a crashed stream leader 4–9 s after its
// last message; this command's servers must do it within their
// election timer's maximum, plus the vote.
func TestStreamLeaderCrashElectsWithinASecond(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs three NATS server processes")
	}
	bin := build(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := devcluster.StartNATS(ctx, devcluster.Config{Dir: t.TempDir(), NATSBin: bin})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	nc, err := nats.Connect(strings.Join(c.URLs, ","), nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "LOG", Subjects: []string{"log"}, Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "log", []byte("before")); err != nil {
		t.Fatal(err)
	}
	leader := streamLeader(ctx, t, stream)
	c.NATS[leader].Kill() // SIGKILL: no leadership handed over
	killed := time.Now()

	limit := natsraft.Fast().MaxElection + time.Second // the vote, and a busy test machine
	for {
		attempt, cancelAttempt := context.WithTimeout(ctx, 200*time.Millisecond)
		_, err := js.Publish(attempt, "log", []byte("after"), jetstream.WithExpectLastSequence(1))
		cancelAttempt()
		if err == nil {
			break
		}
		if time.Since(killed) > limit {
			t.Fatalf("the stream took no append %v after its leader's crash (last error: %v); a stock nats-server takes 4-9 s", limit, err)
		}
	}
	t.Logf("the stream took an append %v after its leader's crash", time.Since(killed).Round(time.Millisecond))
	if now := streamLeader(ctx, t, stream); now == leader {
		t.Fatalf("the stream's leader is still nats-%d, which was killed", leader)
	}
}

// streamLeader is the index of the server that leads stream.
func streamLeader(ctx context.Context, t *testing.T, stream jetstream.Stream) int {
	t.Helper()
	i, err := devcluster.StreamLeader(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func TestRaftFlagsAreChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := build(t)
	out, err := exec.Command(bin, "--raft_heartbeat", "100ms", "--raft_election_min", "150ms", "-p", "-1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "at least two heartbeats") {
		t.Fatalf("an election timer shorter than two heartbeats: err %v, output %q", err, out)
	}
}
