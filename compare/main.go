// Command compare measures stocknode against its anchors, geth v1.16.7 and
// anvil 1.7.1, in one run on one machine: one genesis for all three (the ten
// development accounts, a predeployed ERC-20 with balances for the 1,024
// addresses the load generator reads), the same load generator
// (bin/loadtest), one server at a time. It prints one table and writes every
// measurement as JSON. compare/run.sh (make compare) builds the binaries and
// installs the anchors; run it through that.
//
//	compare -stocknode BIN -geth BIN -anvil BIN -loadtest BIN -work DIR [-out FILE]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/loadtest/workload"
)

type config struct {
	stocknode, geth, anvil, loadtest string
	work, out                        string
	servers                          string
	duration, warmup, floodDuration  time.Duration
	blockTime                        time.Duration
	conns, rounds                    int
	flood, ceiling, trace            bool
	pacedRate, floodPacedRate        float64
	// traceTxs are the transactions the traceTransaction workload traces,
	// traceChain the block holding them (geth imports it), traceHashes
	// their hashes (loadtest -hashes); set by run when cfg.trace.
	traceTxs                types.Transactions
	traceChain, traceHashes string
}

// workloads are the read measurements, each at cfg.conns connections.
// traceTransaction comes first, right after the traced transactions are
// sealed: on geth they are in block 1 of a chain that never grows, so on
// the others they are traced while their blocks are among the newest 128,
// whose states a full node keeps whole (stocknode reads older ones from its
// state history, which a fresh node is still indexing for a minute).
var workloads = []struct{ method, tag string }{
	{"traceTransaction", "latest"},
	{"getBalance", "latest"},
	{"getBalance", "pending"},
	{"call", "latest"},
	{"call", "pending"},
	{"mix", "latest"},
	{"getProof", "latest"},
}

// traceWorkload reports whether -trace=false leaves a workload out.
func traceWorkload(method string) bool { return method == "getProof" || method == "traceTransaction" }

// pacedWorkloads are measured again at one offered rate for every server:
// unpaced, a faster server is offered more requests, and on a machine it
// shares with the load generator that load itself lengthens the latency
// tail, so unpaced p99s compare the servers' throughput as much as their
// latency.
var pacedWorkloads = []struct{ method, tag string }{
	{"getBalance", "latest"},
	{"call", "latest"},
	{"call", "pending"},
}

func main() {
	var cfg config
	serveConstant := flag.String("serve-constant", "", "internal: serve a constant JSON-RPC answer with fasthttp on this address (the ceiling of the setup)")
	writeGenesisTo := flag.String("write-genesis", "", "write the comparison genesis to this file and exit")
	flag.StringVar(&cfg.stocknode, "stocknode", "bin/stocknode", "stocknode binary")
	flag.StringVar(&cfg.geth, "geth", "", "geth v1.16.7 binary")
	flag.StringVar(&cfg.anvil, "anvil", "", "anvil 1.7.1 binary")
	flag.StringVar(&cfg.loadtest, "loadtest", "bin/loadtest", "loadtest binary")
	flag.StringVar(&cfg.work, "work", "", "work directory (genesis, logs, datadirs)")
	flag.StringVar(&cfg.out, "out", "", "JSON results file (default WORK/compare.json)")
	flag.StringVar(&cfg.servers, "servers", "stocknode,geth,anvil", "servers to measure, in order")
	flag.DurationVar(&cfg.duration, "duration", 6*time.Second, "measurement time per workload")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "load before each measurement, not counted")
	flag.DurationVar(&cfg.floodDuration, "flood-duration", 6*time.Second, "transaction flood time (0: no flood)")
	flag.DurationVar(&cfg.blockTime, "block-time", 200*time.Millisecond, "block time of stocknode and anvil")
	flag.IntVar(&cfg.conns, "c", 64, "keep-alive connections of the read workloads")
	flag.IntVar(&cfg.rounds, "rounds", 2, "rounds of the read workloads and the flood over all servers, interleaved (each round restarts the servers); the table shows each workload's best round, for a machine shared with other work")
	flag.BoolVar(&cfg.trace, "trace", true, "also measure eth_getProof (the token's account and a balance slot) and debug_traceTransaction with callTracer (256 token transfers sent first; geth imports them as block 1)")
	flag.BoolVar(&cfg.ceiling, "ceiling", true, "also measure fasthttp returning a constant body (the setup's ceiling)")
	flag.Float64Var(&cfg.pacedRate, "paced-rate", 10_000, "offered requests/s of the latency comparison at one load (0: skip it); below every server's capacity")
	flag.Float64Var(&cfg.floodPacedRate, "flood-paced-rate", 5_000, "offered transfers/s of a second flood after the first (0: skip it), below the chain's capacity (1,428 transfers a 30M-gas block, 7,142/s at 200 ms blocks), so that its times to pending and latest measure the sequencer rather than a backlog")
	flag.Parse()
	if *serveConstant != "" {
		body := []byte(`{"jsonrpc":"2.0","id":1,"result":"0x0"}`)
		err := fasthttp.ListenAndServe(*serveConstant, func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("application/json")
			ctx.SetBody(body)
		})
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *writeGenesisTo != "" {
		if err := writeGenesis(*writeGenesisTo); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			os.Exit(1)
		}
		return
	}
	cfg.flood = cfg.floodDuration > 0
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "== "+format+"\n", args...)
}

// ---------------------------------------------------------------- results

type cpuUse struct {
	Server   float64 `json:"serverCores"`   // server CPU seconds per second
	LoadTest float64 `json:"loadtestCores"` // load generator CPU seconds per second
}

type readResult struct {
	Round  int             `json:"round"`
	Rate   float64         `json:"offeredRate,omitempty"`
	Method string          `json:"method"`
	Tag    string          `json:"tag"`
	RPS    float64         `json:"requestsPerSecond"`
	P50    time.Duration   `json:"p50"`
	P99    time.Duration   `json:"p99"`
	P999   time.Duration   `json:"p999"`
	Errors uint64          `json:"errors"`
	Sample []string        `json:"errorSamples,omitempty"`
	CPU    cpuUse          `json:"cpu"`
	Report json.RawMessage `json:"report"`
}

type floodResult struct {
	Round          int                `json:"round,omitempty"`
	AcceptedPerSec float64            `json:"acceptedPerSecond"`
	IncludedPerSec float64            `json:"includedPerSecond"`
	Rejected       int                `json:"rejected"`
	RejectedBy     map[string]int     `json:"rejectedBy"`
	NotIncluded    int                `json:"notIncluded"`
	TimeToPending  workload.Durations `json:"timeToPending"`
	TimeToLatest   workload.Durations `json:"timeToLatest"`
	TimeToReceipt  workload.Durations `json:"timeToReceipt"`
	CPU            cpuUse             `json:"cpu"`
	Report         json.RawMessage    `json:"report,omitempty"`
	Skipped        string             `json:"skipped,omitempty"`
}

type serverResult struct {
	Name    string            `json:"name"`
	Version string            `json:"version"`
	Command []string          `json:"command"`
	Checks  map[string]string `json:"checks"` // phase -> "ok" or the failure
	Reads   []readResult      `json:"reads"`
	Paced   []readResult      `json:"paced"`
	// Flood is the round whose flood accepted the most; Floods has every round's.
	Flood  *floodResult   `json:"flood,omitempty"`
	Floods []*floodResult `json:"floods,omitempty"`
	// FloodPaced is the flood at one offered rate, below the chain's capacity.
	FloodPaced *floodResult `json:"floodPaced,omitempty"`
	Error      string       `json:"error,omitempty"`
	LoadAvg    []string     `json:"loadAverageAtStart"`
}

type results struct {
	Started     time.Time      `json:"started"`
	Seconds     float64        `json:"seconds"`
	Connections int            `json:"connections"`
	Rounds      int            `json:"rounds"`
	Duration    string         `json:"durationPerWorkload"`
	BlockTime   string         `json:"blockTime"`
	CPUs        int            `json:"cpus"`
	LoadAvg     [2]string      `json:"loadAverageStartEnd"`
	Ceiling     *readResult    `json:"ceiling,omitempty"`
	Servers     []serverResult `json:"servers"`
}

// ---------------------------------------------------------------- run

func run(ctx context.Context, cfg config) error {
	if cfg.work == "" {
		dir, err := os.MkdirTemp("", "stocknode-compare.")
		if err != nil {
			return err
		}
		cfg.work = dir
	}
	if cfg.out == "" {
		cfg.out = filepath.Join(cfg.work, "compare.json")
	}
	genesis := filepath.Join(cfg.work, "genesis.json")
	if err := writeGenesis(genesis); err != nil {
		return err
	}
	logf("genesis %s; work directory %s", genesis, cfg.work)
	if cfg.trace {
		if err := prepareTrace(&cfg); err != nil {
			return err
		}
	}
	res := &results{Started: time.Now(), Connections: cfg.conns, Duration: cfg.duration.String(),
		BlockTime: cfg.blockTime.String(), CPUs: runtime.NumCPU(), LoadAvg: [2]string{loadAvg(), ""}}
	if cfg.ceiling {
		r, err := measureCeiling(ctx, cfg)
		if err != nil {
			logf("ceiling: %v", err)
		} else {
			res.Ceiling = r
		}
	}
	names := strings.Split(cfg.servers, ",")
	res.Servers = make([]serverResult, len(names))
	for i, name := range names {
		res.Servers[i] = serverResult{Name: strings.TrimSpace(name), Checks: map[string]string{}}
	}
	res.Rounds = max(1, cfg.rounds)
	for round := 1; round <= res.Rounds; round++ {
		for i := range res.Servers {
			if ctx.Err() != nil {
				break
			}
			measureServer(ctx, cfg, &res.Servers[i], genesis, round, round == res.Rounds)
		}
	}
	res.Seconds = time.Since(res.Started).Seconds()
	res.LoadAvg[1] = loadAvg()
	data, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(cfg.out, data, 0o644); err != nil {
		return err
	}
	printTables(os.Stdout, cfg, res)
	fmt.Printf("\nJSON: %s\n", cfg.out)
	for _, s := range res.Servers {
		if s.Error != "" {
			return fmt.Errorf("%s: %s", s.Name, s.Error)
		}
		for phase, c := range s.Checks {
			if c != "ok" {
				return fmt.Errorf("%s: correctness check %s failed: %s", s.Name, phase, c)
			}
		}
	}
	return ctx.Err()
}

// measureServer starts one server, checks it, runs the read workloads and
// the transaction flood and, in the last round, the paced workloads and the
// paced flood, and adds what it measured to sr.
func measureServer(ctx context.Context, cfg config, sr *serverResult, genesis string, round int, lastRound bool) {
	name := sr.Name
	sr.LoadAvg = append(sr.LoadAvg, loadAvg())
	srv, err := startServer(ctx, cfg, name, genesis)
	if err != nil {
		sr.Error = err.Error()
		logf("%s: %v", name, err)
		return
	}
	defer srv.stop()
	sr.Version, sr.Command = srv.version, srv.cmd.Args
	logf("%s (%s) round %d serving on %s, pid %d; load average %s", name, srv.version, round, srv.url, srv.cmd.Process.Pid, loadAvg())
	check := func(phase string) bool {
		err := checkState(srv.url)
		if err != nil {
			logf("%s: check %s FAILED: %v", name, phase, err)
			sr.Checks[phase] = err.Error()
			return false
		}
		if _, failed := sr.Checks[phase]; !failed {
			sr.Checks[phase] = "ok"
		}
		return true
	}
	if !check("before") {
		return
	}
	traced := cfg.trace && setupTrace(cfg, sr, srv)
	for _, w := range workloads {
		if ctx.Err() != nil {
			return
		}
		var extra []string
		switch {
		case traceWorkload(w.method) && !cfg.trace, w.method == "traceTransaction" && !traced:
			continue
		case w.method == "traceTransaction":
			extra = []string{"-hashes", cfg.traceHashes}
		}
		r, err := measureRead(ctx, cfg, srv.url, srv.cmd.Process.Pid, w.method, w.tag, extra...)
		if err != nil {
			sr.Error = err.Error()
			return
		}
		r.Round = round
		logf("%s %s %s: %.0f req/s, p99 %v, errors %d", name, w.method, w.tag, r.RPS, r.P99, r.Errors)
		sr.Reads = append(sr.Reads, *r)
	}
	for _, w := range pacedWorkloads {
		if ctx.Err() != nil || cfg.pacedRate <= 0 || !lastRound {
			break
		}
		r, err := measureRead(ctx, cfg, srv.url, srv.cmd.Process.Pid, w.method, w.tag, "-rate", strconv.FormatFloat(cfg.pacedRate, 'f', 0, 64))
		if err != nil {
			sr.Error = err.Error()
			return
		}
		r.Round, r.Rate = round, cfg.pacedRate
		logf("%s %s %s at %.0f/s offered: %.0f req/s, p99 %v, errors %d", name, w.method, w.tag, cfg.pacedRate, r.RPS, r.P99, r.Errors)
		sr.Paced = append(sr.Paced, *r)
	}
	check("afterReads")
	if !cfg.flood || ctx.Err() != nil {
		return
	}
	if name == "geth" {
		sr.Flood = &floodResult{Skipped: "geth seals no blocks without a consensus client"}
		return
	}
	fr := runFlood(ctx, cfg, name, srv)
	fr.Round = round
	sr.Floods = append(sr.Floods, fr)
	if best := sr.Flood; best == nil || best.Skipped != "" || (fr.Skipped == "" && fr.AcceptedPerSec > best.AcceptedPerSec) {
		sr.Flood = fr
	}
	if lastRound && cfg.floodPacedRate > 0 && ctx.Err() == nil {
		sr.FloodPaced = runFlood(ctx, cfg, name, srv, "-rate", strconv.FormatFloat(cfg.floodPacedRate, 'f', 0, 64))
	}
	// The flood spends from the first development accounts only and sends to
	// its own accounts: the last development account, the read addresses and
	// the token balances are untouched.
	check("afterFlood")
}

// ---------------------------------------------------------------- servers

type server struct {
	cmd     *exec.Cmd
	url     string
	version string
	logFile *os.File
	done    chan struct{}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func versionOf(bin string, args ...string) string {
	out, _ := exec.Command(bin, args...).CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "Version:") || strings.HasPrefix(line, "anvil Version:") {
			return strings.TrimSpace(line[strings.Index(line, ":")+1:])
		}
	}
	if line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n"); line != "" && len(line) < 80 {
		return line
	}
	return "?"
}

func startServer(ctx context.Context, cfg config, name, genesis string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	srv := &server{url: fmt.Sprintf("http://127.0.0.1:%d", port), done: make(chan struct{})}
	var args []string
	var bin string
	switch name {
	case "stocknode":
		bin = cfg.stocknode
		srv.version = "this tree"
		args = []string{"--dev", "--genesis", genesis, "--block-time", cfg.blockTime.String(),
			"--http.port", strconv.Itoa(port), "--verbosity", "2"}
	case "geth":
		bin = cfg.geth
		srv.version = versionOf(bin, "version")
		data := filepath.Join(cfg.work, "geth-data")
		os.RemoveAll(data)
		common := []string{"--datadir", data, "--nodiscover", "--maxpeers", "0", "--nat", "none", "--ipcdisable", "--verbosity", "2"}
		init := exec.CommandContext(ctx, bin, append(append([]string{}, common...), "init", genesis)...)
		if out, err := init.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("geth init: %v: %s", err, out)
		}
		if cfg.traceChain != "" {
			imp := exec.CommandContext(ctx, bin, append(append([]string{}, common...), "import", cfg.traceChain)...)
			if out, err := imp.CombinedOutput(); err != nil {
				return nil, fmt.Errorf("geth import %s: %v: %s", cfg.traceChain, err, out)
			}
		}
		p2p, _ := freePort()
		auth, _ := freePort()
		args = append(common, "--syncmode", "full", "--networkid", strconv.Itoa(chainID),
			"--port", strconv.Itoa(p2p), "--authrpc.port", strconv.Itoa(auth),
			"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(port), "--http.api", "eth,net,web3,debug")
	case "anvil":
		bin = cfg.anvil
		srv.version = versionOf(bin, "--version")
		secs := strconv.FormatFloat(cfg.blockTime.Seconds(), 'f', -1, 64)
		// --silent: anvil otherwise prints every request's method name, which costs it throughput.
		args = []string{"--init", genesis, "--block-time", secs, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--silent"}
	default:
		return nil, fmt.Errorf("unknown server %q (stocknode, geth or anvil)", name)
	}
	if bin == "" {
		return nil, fmt.Errorf("no %s binary given", name)
	}
	logPath := filepath.Join(cfg.work, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	srv.logFile = logFile
	srv.cmd = exec.Command(bin, args...)
	srv.cmd.Stdout, srv.cmd.Stderr = logFile, logFile
	srv.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := srv.cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	go func() { srv.cmd.Wait(); close(srv.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n hexutil.Uint64
		if err := rpcCall(srv.url, &n, "eth_blockNumber"); err == nil {
			return srv, nil
		}
		select {
		case <-srv.done:
			return nil, fmt.Errorf("%s exited at start (%v): %s", name, srv.cmd.ProcessState, tail(logPath))
		case <-ctx.Done():
			srv.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			srv.stop()
			return nil, fmt.Errorf("%s did not answer on %s within 60s: %s", name, srv.url, tail(logPath))
		}
	}
}

// stop interrupts the server and waits for it; after 15 s it is killed.
func (s *server) stop() {
	defer s.logFile.Close()
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

func tail(path string) string {
	data, _ := os.ReadFile(path)
	if len(data) > 1500 {
		data = data[len(data)-1500:]
	}
	return string(data)
}

// ---------------------------------------------------------------- measurements

// runLoadtest runs the load generator with -json and returns its report and
// the CPU it and the server used per second of wall time.
func runLoadtest(ctx context.Context, cfg config, serverPID int, args ...string) ([]byte, cpuUse, error) {
	cmd := exec.CommandContext(ctx, cfg.loadtest, append(args, "-json")...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cpu0 := procCPU(serverPID)
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0).Seconds()
	var use cpuUse
	if serverPID > 0 {
		use.Server = (procCPU(serverPID) - cpu0) / wall
	}
	if cmd.ProcessState != nil {
		use.LoadTest = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds() / wall
	}
	if err != nil {
		return nil, use, fmt.Errorf("loadtest %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), use, nil
}

// loadtestRun mirrors the fields of loadtest's http report that compare reads.
type loadtestRun struct {
	ReqPerSec       float64            `json:"requestsPerSecond"`
	HTTPErrors      uint64             `json:"httpErrors"`
	TransportErrors uint64             `json:"transportErrors"`
	RPCErrors       uint64             `json:"rpcErrors"`
	ErrorSamples    []string           `json:"errorSamples"`
	Latency         workload.Durations `json:"latency"`
}

func measureRead(ctx context.Context, cfg config, url string, pid int, method, tag string, extra ...string) (*readResult, error) {
	args := append([]string{"http", "-url", url, "-method", method, "-tag", tag,
		"-c", strconv.Itoa(cfg.conns), "-duration", cfg.duration.String(), "-warmup", cfg.warmup.String(),
		"-token", workload.Token.Hex()}, extra...)
	out, cpu, err := runLoadtest(ctx, cfg, pid, args...)
	if err != nil {
		return nil, err
	}
	var rep struct {
		Runs []json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || len(rep.Runs) != 1 {
		return nil, fmt.Errorf("loadtest http: unexpected output %.300s", out)
	}
	var run loadtestRun
	if err := json.Unmarshal(rep.Runs[0], &run); err != nil {
		return nil, fmt.Errorf("loadtest http: %w", err)
	}
	return &readResult{Method: method, Tag: tag, RPS: run.ReqPerSec, P50: run.Latency.P50, P99: run.Latency.P99,
		P999: run.Latency.P999, Errors: run.HTTPErrors + run.TransportErrors + run.RPCErrors, Sample: run.ErrorSamples,
		CPU: cpu, Report: rep.Runs[0]}, nil
}

// runFlood measures one flood against srv, or says why it could not.
func runFlood(ctx context.Context, cfg config, name string, srv *server, extra ...string) *floodResult {
	what := strings.Join(append([]string{name, "flood"}, extra...), " ")
	fr, err := measureFlood(ctx, cfg, srv.url, srv.cmd.Process.Pid, extra...)
	if err != nil {
		logf("%s: %v", what, err)
		return &floodResult{Skipped: err.Error()}
	}
	logf("%s: accepted %.0f/s, included %.0f/s, time to pending p50 %v p99 %v, time to latest p50 %v",
		what, fr.AcceptedPerSec, fr.IncludedPerSec, fr.TimeToPending.P50, fr.TimeToPending.P99, fr.TimeToLatest.P50)
	return fr
}

func measureFlood(ctx context.Context, cfg config, url string, pid int, extra ...string) (*floodResult, error) {
	args := append([]string{"flood", "-url", url, "-duration", cfg.floodDuration.String()}, extra...)
	out, cpu, err := runLoadtest(ctx, cfg, pid, args...)
	if err != nil {
		return nil, err
	}
	var fr floodResult
	if err := json.Unmarshal(out, &fr); err != nil {
		return nil, fmt.Errorf("loadtest flood: unexpected output %.300s", out)
	}
	fr.CPU, fr.Report = cpu, out
	return &fr, nil
}

func measureCeiling(ctx context.Context, cfg config) (*readResult, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(self, "-serve-constant", addr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	url := "http://" + addr
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i > 100 {
			return nil, errors.New("constant server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	r, err := measureRead(ctx, cfg, url, cmd.Process.Pid, "getBalance", "latest")
	if err == nil {
		logf("ceiling (fasthttp, constant body): %.0f req/s, p99 %v", r.RPS, r.P99)
	}
	return r, err
}

// ---------------------------------------------------------------- checks

func rpcCall(url string, result any, method string, params ...any) error {
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%s: HTTP %d: %.200s", method, resp.StatusCode, data)
	}
	if env.Error != nil {
		return fmt.Errorf("%s: %s", method, env.Error.Message)
	}
	return json.Unmarshal(env.Result, result)
}

// checkState verifies, at latest and at pending, what the genesis says: the
// chain ID, the last development account's balance, and ETH and LoadToken
// balances of read addresses.
func checkState(url string) error {
	var id hexutil.Big
	if err := rpcCall(url, &id, "eth_chainId"); err != nil {
		return err
	}
	if id.ToInt().Int64() != chainID {
		return fmt.Errorf("chain ID %v, want %d", id.ToInt(), chainID)
	}
	dev := workload.DevAddress(len(workload.DevKeys) - 1)
	for _, tag := range []string{"latest", "pending"} {
		var bal hexutil.Big
		if err := rpcCall(url, &bal, "eth_getBalance", dev, tag); err != nil {
			return err
		}
		if bal.ToInt().Cmp(workload.DevBalance) != 0 {
			return fmt.Errorf("eth_getBalance(%s, %s) = %v, want %v", dev, tag, bal.ToInt(), workload.DevBalance)
		}
		for _, i := range []int{0, 511, workload.NumAddresses - 1} {
			a := workload.Address(i)
			if err := rpcCall(url, &bal, "eth_getBalance", a, tag); err != nil {
				return err
			}
			if bal.ToInt().Cmp(workload.EthBalance) != 0 {
				return fmt.Errorf("eth_getBalance(%s, %s) = %v, want %v", a, tag, bal.ToInt(), workload.EthBalance)
			}
			var ret hexutil.Bytes
			data := hexutil.MustDecode("0x" + workload.BalanceOfSelector + strings.Repeat("00", 12) + common.Bytes2Hex(a[:]))
			if err := rpcCall(url, &ret, "eth_call", map[string]any{"to": workload.Token, "data": hexutil.Bytes(data)}, tag); err != nil {
				return err
			}
			if got := new(big.Int).SetBytes(ret); len(ret) != 32 || got.Cmp(workload.TokenBalance(i)) != 0 {
				return fmt.Errorf("balanceOf(%s) at %s = %x, want %v", a, tag, []byte(ret), workload.TokenBalance(i))
			}
		}
	}
	return nil
}

// ---------------------------------------------------------------- /proc

var clockTicks = 100.0 // USER_HZ on Linux

// procCPU is a process's user+system CPU seconds so far (0 if unknown).
func procCPU(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / clockTicks
}

func loadAvg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
