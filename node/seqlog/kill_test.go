package seqlog

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// killDirEnv makes the test binary, run as a subprocess by TestKillKeepsAcked,
// append to the log in that directory until it is killed.
const killDirEnv = "SEQLOG_TEST_KILL_DIR"

// TestKillKeepsAcked kills (SIGKILL: no shutdown, nothing flushed) a process
// appending to the log, and finds every entry it reported acknowledged.
func TestKillKeepsAcked(t *testing.T) {
	if os.Getenv(killDirEnv) != "" {
		t.Skip("the appending subprocess runs TestKillAppender")
	}
	dir := t.TempDir()
	var acked uint64
	for round := range 3 { // each round appends after what survived the last
		acked = killAppender(t, dir, acked+100)
		l := openTest(t, Config{Dir: dir})
		if opened := l.Opened(); opened.Seq < acked {
			t.Fatalf("round %d: log reopened at %d, below the acknowledged %d", round, opened.Seq, acked)
		}
		recs := readAll(t, l, 1)
		checkTicks(t, recs, 1)
		if uint64(len(recs)) < acked {
			t.Fatalf("round %d: %d entries after the kill, %d were acknowledged", round, len(recs), acked)
		}
		acked = uint64(len(recs))
		l.Close()
	}
}

// killAppender runs the appender on dir, kills it once it reported the
// sequence n acknowledged, and returns the last sequence it reported.
func killAppender(t *testing.T, dir string, n uint64) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKillAppender$", "-test.count=1")
	cmd.Env = append(os.Environ(), killDirEnv+"="+dir)
	cmd.Stderr = t.Output()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var last uint64
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		seq, ok := strings.CutPrefix(lines.Text(), "acked ")
		if !ok {
			continue
		}
		if last, err = strconv.ParseUint(seq, 10, 64); err != nil {
			t.Fatalf("appender printed %q", lines.Text())
		}
		if last == n {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cmd.Wait(); err == nil || last < n {
		t.Fatalf("appender ended with %v after acknowledging %d, want it killed after %d", err, last, n)
	}
	return last
}

// TestKillAppender is the subprocess of TestKillKeepsAcked.
func TestKillAppender(t *testing.T) {
	dir := os.Getenv(killDirEnv)
	if dir == "" {
		t.Skip("run by TestKillKeepsAcked")
	}
	l, err := Open(context.Background(), Config{ChainID: testChainID, Dir: dir}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	for next := l.Opened().Seq + 1; ; next++ {
		seq, err := l.Append(context.Background(), tick(next))
		if err != nil || seq != next {
			t.Fatalf("append %d: sequence %d, %v", next, seq, err)
		}
		// Unbuffered: the line is out once the append is acknowledged.
		fmt.Fprintf(os.Stdout, "acked %d\n", seq)
	}
}
