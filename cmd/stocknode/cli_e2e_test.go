package main

import (
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The binary answers for itself: its version, its commands, and refusals
// that say what to do.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		args     []string
		exitCode int
		want     []string
	}{
		{"--version", []string{"--version"}, 0, []string{"stocknode ", "commit ", "go-ethereum v1."}},
		{"version", []string{"version"}, 0, []string{"stocknode ", "go-ethereum v1."}},
		{"--version wins", []string{"--dev", "--version"}, 0, []string{"go-ethereum v1."}},
		{"help", []string{"help"}, 0, []string{"stocknode init", "stocknode import", "stocknode export", "stocknode log-repair", "The node's flags:", "-datadir"}},
		{"--help", []string{"--help"}, 0, []string{"stocknode init", "stocknode import", "stocknode export", "-block-time"}},
		{"help import", []string{"help", "import"}, 0, []string{"Usage of stocknode import:", "-datadir"}},
		{"--public with the development faucet key", []string{"--dev", "--public"}, 1, []string{"--faucet.key", "--faucet=false"}},
		{"--gc.percent 0", []string{"--dev", "--gc.percent", "0"}, 1, []string{"--gc.percent 0: must be above 0"}},
		{"an unknown flag", []string{"--nope"}, 2, []string{"flag provided but not defined: -nope", "stocknode init"}},
	} {
		out, err := exec.Command(binary, tt.args...).CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.exitCode {
			t.Errorf("%s: exit code %d, want %d\n%s", tt.name, code, tt.exitCode, out)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.name, w, out)
			}
		}
	}
}

var warningRe = regexp.MustCompile(`level=(WARN|ERROR)`)

// A second node on a datadir is told whose it is; a start that fails on a
// taken port leaves no unclean-shutdown marker; a fresh start warns of
// nothing, and an idle node logs a summary, not a line per block.
func TestDataDirAndQuietLogs(t *testing.T) {
	t.Parallel()
	datadir := t.TempDir()
	p := startCmd(t, exec.Command(binary, "--datadir", datadir, "--http.port", "0", "--log.summary", "2s"))
	p.await(regexp.MustCompile(`msg="JSON-RPC listening"`), 30*time.Second)
	// A summary every 2 s here (10 s by default), never a line per block:
	// 5 blocks a second would be 10 lines in 2 s.
	p.await(regexp.MustCompile(`msg="Sealed blocks" blocks=`), 10*time.Second)
	lines := 0
	deadline := time.After(4100 * time.Millisecond)
wait:
	for {
		select {
		case line := <-p.lines:
			p.log.WriteString(line + "\n")
			lines++
		case <-deadline:
			break wait
		}
	}
	if lines > 3 {
		t.Errorf("an idle node logged %d lines in 4 s:\n%s", lines, p.log.String())
	}

	second, _ := exec.Command(binary, "--datadir", datadir, "--http.port", "0").CombinedOutput()
	pid := strconv.Itoa(p.cmd.Process.Pid)
	if !strings.Contains(string(second), "datadir "+datadir+" is in use by another stocknode (pid "+pid+")") {
		t.Errorf("a second node on the datadir said:\n%s", second)
	}
	if err := p.stop(syscall.SIGINT); err != nil {
		t.Fatalf("the node's stop: %v; its log:\n%s", err, p.log.String())
	}
	if w := warningRe.FindString(p.log.String()); w != "" {
		t.Errorf("a fresh start and a clean stop logged %s:\n%s", w, p.log.String())
	}

	// The port is taken: the start fails, and says nothing of the datadir.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	if out, err := exec.Command(binary, "--datadir", datadir, "--http.port", port).CombinedOutput(); err == nil {
		t.Fatalf("a start on a taken port succeeded:\n%s", out)
	}
	p = startCmd(t, exec.Command(binary, "--datadir", datadir, "--http.port", "0"))
	if m := p.await(startRe, 30*time.Second); m[1] != "Resumed chain from disk" {
		t.Errorf("the start after a failed one logged %q", m[1])
	}
	p.await(regexp.MustCompile(`msg="JSON-RPC listening"`), 10*time.Second)
	if err := p.stop(syscall.SIGINT); err != nil {
		t.Fatalf("the restarted node's stop: %v; its log:\n%s", err, p.log.String())
	}
	if w := warningRe.FindString(p.log.String()); w != "" {
		t.Errorf("a restart logged %s:\n%s", w, p.log.String())
	}
}
