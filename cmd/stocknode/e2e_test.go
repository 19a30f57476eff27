package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binary is the stocknode executable built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stocknode-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "stocknode")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build stocknode:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running stocknode whose log lines the test reads.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string
	done  chan error
	log   strings.Builder
}

func start(t *testing.T, args ...string) *proc {
	t.Helper()
	if len(args) == 0 || (args[0] != "init" && args[0] != "import" && args[0] != "export") {
		// Tests run in parallel with other nodes; they follow the blocks
		// by their DEBUG lines ("Sealed block").
		args = append([]string{"--http.port", "0", "--verbosity", "4"}, args...)
	}
	return startCmd(t, exec.Command(binary, args...))
}

// startCmd runs cmd, a stocknode, reading its log.
func startCmd(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{t: t, cmd: cmd, lines: make(chan string, 1<<16), done: make(chan error, 1)}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout = io.Discard
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		scanner := bufio.NewScanner(stderr)
		for scanner.Scan() {
			p.lines <- scanner.Text()
		}
		close(p.lines)
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			for range p.lines {
			}
		}
	})
	return p
}

// await reads log lines until one matches re and returns its submatches.
func (p *proc) await(re *regexp.Regexp, timeout time.Duration) []string {
	p.t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("stocknode exited before logging %q; log:\n%s", re, p.log.String())
			}
			p.log.WriteString(line + "\n")
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-timer.C:
			p.t.Fatalf("no log line matching %q within %v; log:\n%s", re, timeout, p.log.String())
		}
	}
}

// stop sends sig and waits for the exit.
func (p *proc) stop(sig syscall.Signal) error {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	for line := range p.lines {
		p.log.WriteString(line + "\n")
	}
	return <-p.done
}

var (
	sealedRe   = regexp.MustCompile(`msg="Sealed block" number=(\d+) hash=(0x[0-9a-f]{64}).*`)
	startRe    = regexp.MustCompile(`msg="(Started new chain|Resumed chain from disk|Resumed after an unclean shutdown[^"]*)" .*head=(\d+) hash=(0x[0-9a-f]{64}).*`)
	importRe   = regexp.MustCompile(`head (\d+) (0x[0-9a-f]{64})`)
	exportRe   = regexp.MustCompile(`Exported blocks 0\.\.(\d+) to .*: head (0x[0-9a-f]{64})`)
	genesisRe  = regexp.MustCompile(`genesis (0x[0-9a-f]{64})`)
	replayedRe = regexp.MustCompile(`msg="Resumed after an unclean shutdown[^"]*" .* replayed=(\d+) replayFrom=(\d+)`)
)

func atoi(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Killed with -9 while producing, the node comes back at or above the last
// block it announced, says how it recovered, and carries on from there. In
// full mode the persisted state trails the head, and the blocks above it
// are replayed: the first round runs past the 128 states held in memory.
func TestKill9ResumesAtOrAboveLastAnnouncedBlock(t *testing.T) {
	for _, tt := range []struct {
		gcmode     string
		firstRound int // blocks announced before the first kill
		replays    bool
	}{
		{"full", 150, true},
		{"archive", 5, false},
	} {
		t.Run(tt.gcmode, func(t *testing.T) {
			t.Parallel()
			kill9Rounds(t, tt.gcmode, tt.firstRound, tt.replays)
		})
	}
}

func kill9Rounds(t *testing.T, gcmode string, firstRound int, replays bool) {
	datadir := t.TempDir()
	args := []string{"--datadir", datadir, "--gcmode", gcmode, "--block-time", "50ms", "--preconf-interval", "50ms"}

	p := start(t, args...)
	if m := p.await(startRe, 30*time.Second); m[1] != "Started new chain" {
		t.Fatalf("first start logged %q", m[1])
	}
	blocks := firstRound
	for round := 0; round < 3; round++ {
		var announced uint64
		for i := 0; i < blocks; i++ {
			announced = atoi(t, p.await(sealedRe, 10*time.Second)[1])
		}
		blocks = 5 + (round+1)*3
		p.stop(syscall.SIGKILL)

		p = start(t, args...)
		m := p.await(startRe, 30*time.Second)
		if !strings.HasPrefix(m[1], "Resumed after an unclean shutdown") {
			t.Fatalf("round %d: restart after kill -9 logged %q", round, m[1])
		}
		head := atoi(t, m[2])
		if head < announced {
			t.Fatalf("round %d: restarted at %d, below the announced block %d", round, head, announced)
		}
		if replays {
			r := replayedRe.FindStringSubmatch(m[0]) // the same line
			if r == nil {
				t.Fatalf("round %d: the restart's line says nothing of a replay: %s", round, m[0])
			}
			if n, from := atoi(t, r[1]), atoi(t, r[2]); n == 0 || n > 130 || from+n != head+1 {
				t.Fatalf("round %d: replayed %d blocks from %d up to head %d", round, n, from, head)
			}
		}
		if next := atoi(t, p.await(sealedRe, 10*time.Second)[1]); next != head+1 {
			t.Fatalf("round %d: first block after restart is %d, want %d", round, next, head+1)
		}
	}
	last := atoi(t, p.await(sealedRe, 10*time.Second)[1])
	if err := p.stop(syscall.SIGINT); err != nil {
		t.Fatalf("clean shutdown: %v", err)
	}
	// The recovery went as designed: it says so, and warns of nothing.
	if w := warningRe.FindString(p.log.String()); w != "" {
		t.Errorf("a recovery after kill -9 logged %s:\n%s", w, p.log.String())
	}
	p = start(t, args...)
	m := p.await(startRe, 30*time.Second)
	if m[1] != "Resumed chain from disk" || atoi(t, m[2]) < last {
		t.Fatalf("after a clean stop at %d the node logged %q at head %s", last, m[1], m[2])
	}
	p.stop(syscall.SIGTERM)
}

// A produced chain exports in geth's format and imports into a fresh
// datadir to the same head, from either gc mode into the other; the
// imported datadir then keeps its mode.
func TestExportImportRoundTrip(t *testing.T) {
	for _, tt := range []struct{ run, imported, other, holds string }{
		{"full", "archive", "full", "it holds an archive-mode chain"},
		{"archive", "full", "archive", "it holds a full-mode chain"},
	} {
		t.Run(tt.run+"_to_"+tt.imported, func(t *testing.T) {
			t.Parallel()
			src := t.TempDir()
			p := start(t, "--datadir", src, "--gcmode", tt.run, "--block-time", "20ms", "--preconf-interval", "20ms")
			for i := 0; i < 10; i++ {
				p.await(sealedRe, 10*time.Second)
			}
			if err := p.stop(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "chain.rlp.gz")
			out := runOK(t, "export", "--datadir", src, file)
			exp := exportRe.FindStringSubmatch(out)
			if exp == nil {
				t.Fatalf("export printed %q", out)
			}
			dst := t.TempDir()
			out = runOK(t, "import", "--datadir", dst, "--gcmode", tt.imported, file)
			imp := importRe.FindStringSubmatch(out)
			if imp == nil || imp[1] != exp[1] || imp[2] != exp[2] {
				t.Fatalf("export head %v, import printed %q", exp[1:], out)
			}
			cmd := exec.Command(binary, "--http.port", "0", "--datadir", dst, "--gcmode", tt.other)
			if outB, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(outB), tt.holds) {
				t.Fatalf("start of the %s datadir with --gcmode %s: err %v, output %s", tt.imported, tt.other, err, outB)
			}
		})
	}
}

// init writes a geth-format genesis; the node then serves that chain, and
// refuses a datadir that holds another chain.
func TestInitWithGenesisFile(t *testing.T) {
	dir := t.TempDir()
	genesis := filepath.Join(dir, "genesis.json")
	const doc = `{"config":{"chainId":1337,"homesteadBlock":0,"eip150Block":0,"eip155Block":0,"eip158Block":0,"byzantiumBlock":0,"constantinopleBlock":0,"petersburgBlock":0,"istanbulBlock":0,"berlinBlock":0,"londonBlock":0,"mergeNetsplitBlock":0,"terminalTotalDifficulty":0,"shanghaiTime":0,"cancunTime":0,"blobSchedule":{"cancun":{"target":3,"max":6,"baseFeeUpdateFraction":3338477}}},
"difficulty":"0x0","gasLimit":"0x1c9c380","baseFeePerGas":"0x3b9aca00","timestamp":"0x0",
"alloc":{"0x00000000000000000000000000000000000000aa":{"balance":"0x1","code":"0x6000","storage":{"0x01":"0x02"}}}}`
	if err := os.WriteFile(genesis, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	datadir := filepath.Join(dir, "data")
	out := runOK(t, "init", "--genesis", genesis, "--datadir", datadir)
	m := genesisRe.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "chain ID 1337") {
		t.Fatalf("init printed %q", out)
	}
	p := start(t, "--datadir", datadir, "--block-time", "50ms", "--preconf-interval", "50ms")
	if got := p.await(startRe, 30*time.Second); got[3] != m[1] {
		t.Fatalf("node started on %s, init wrote genesis %s", got[3], m[1])
	}
	p.await(sealedRe, 10*time.Second)
	p.stop(syscall.SIGINT)

	// The preview genesis named explicitly does not match this datadir.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(strings.Replace(doc, `"0x1"`, `"0x2"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--http.port", "0", "--datadir", datadir, "--genesis", other)
	outB, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(outB), "database holds the chain with genesis") {
		t.Fatalf("start with a mismatching genesis: err %v, output %s", err, outB)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--block-time", "200ms", "--preconf-interval", "1s", "--dev", "--http.port", "0"},
		{"--no-such-flag"},
		{"import", "--datadir", t.TempDir()},
		{"init", "--datadir", t.TempDir()},
	} {
		out, err := exec.Command(binary, args...).CombinedOutput()
		if err == nil {
			t.Errorf("%v: exited 0, output %s", args, out)
		}
	}
}

// TestBadLogFlags: a sequencer log that cannot be had stops the start with
// what is wrong and the flags to change.
func TestBadLogFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"--nats.replicas", "2"}, "Replicas 2 needs an external NATS cluster"},
		{[]string{"--nats.listen", "nope"}, `Listen "nope" is not host:port`},
		{[]string{"--follow"}, "--follow needs --nats.url"},
		{[]string{"--follow", "--nats.url", "nats://127.0.0.1:1", "--nats.listen", "127.0.0.1:0"}, "--follow and --nats.listen do not go together"},
		{[]string{"--follow", "--nats.url", "nats://127.0.0.1:1", "--follow.relay-timeout", "0s"}, "--follow.relay-timeout 0s must be positive"},
		{[]string{"--nats.nkey", "replica.nk"}, "--nats.nkey, --nats.creds and --nats.tls.* authenticate to --nats.url"},
		{[]string{"--follow", "--nats.url", "nats://127.0.0.1:1", "--nats.nkey", "/nonexistent/replica.nk"}, "--nats.nkey: nkey seed: open /nonexistent/replica.nk"},
		{[]string{"--follow", "--nats.url", "nats://127.0.0.1:1", "--faucet.trust-replicas", "replica"}, "--faucet.trust-replicas is the sequencer's"},
		{[]string{"--nats.listen.tls.cert", "c.pem"}, "--nats.listen.tls.cert and --nats.listen.tls.key go together"},
		{[]string{"--nats.listen.tls.cert", "c.pem", "--nats.listen.tls.key", "k.pem"}, "--nats.listen.tls.cert needs --nats.listen"},
	} {
		out, err := exec.Command(binary, append([]string{"--dev", "--http.port", "0"}, tt.args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tt.says) || !strings.Contains(string(out), "--nats.") {
			t.Errorf("%v: %v, output %s; want a failure saying %q and naming the flags", tt.args, err, out, tt.says)
		}
	}
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(binary, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("stocknode %v: %v\n%s", args, err, out)
	}
	return string(out)
}

var adminRe = regexp.MustCompile(`msg="Admin listener" url=(http://[0-9.:]+)`)

// --metrics serves Prometheus text and --pprof the Go profiles, on the admin
// listener only: the public port has neither.
func TestMetricsAndPprofOnAdminListener(t *testing.T) {
	p := start(t, "--dev", "--metrics", "--pprof", "--pprof.addr", "127.0.0.1:0", "--block-time", "50ms", "--preconf-interval", "50ms")
	admin := p.await(adminRe, 30*time.Second)[1]
	public := p.await(regexp.MustCompile(`msg="JSON-RPC listening" url=(http://[0-9.:]+)`), 10*time.Second)[1]
	p.await(sealedRe, 10*time.Second)
	resp, err := http.Post(public, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	body := httpGet(t, admin+"/metrics")
	for _, want := range []string{"# TYPE chain_head_number gauge", "rpc_requests_total{method=\"eth_blockNumber\",outcome=\"ok\"} 1", "ws_connections",
		"# TYPE sequencer_seal_duration_seconds histogram", "go_goroutines", "process_cpu_seconds_total"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if body := httpGet(t, admin+"/debug/pprof/"); !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/ index: %.200s", body)
	}
	for _, path := range []string{"/metrics", "/debug/pprof/"} {
		resp, err := http.Get(public + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("public port serves %s: %d", path, resp.StatusCode)
		}
	}
	p.stop(syscall.SIGINT)
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}
