package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/stocknode/stocknode/internal/procstat"
	"github.com/stocknode/stocknode/loadtest/httpload"
	"github.com/stocknode/stocknode/loadtest/workload"
)

// runLoadtest runs the load generator with -json and returns its report and
// the CPU it and the server used per second of wall time.
func runLoadtest(ctx context.Context, cfg config, serverPID int, args ...string) ([]byte, cpuUse, error) {
	return runMeasured(exec.CommandContext(ctx, cfg.loadtest, append(args, "-json")...), serverPID)
}

// runMeasured runs a load generator's cmd and returns its standard output
// and the CPU it and the server used per second of wall time.
func runMeasured(cmd *exec.Cmd, serverPID int) ([]byte, cpuUse, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	user0, system0 := procstat.CPUTimes(serverPID)
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0).Seconds()
	var use cpuUse
	if serverPID > 0 {
		user1, system1 := procstat.CPUTimes(serverPID)
		use.Server = (user1 + system1 - user0 - system0) / wall
		use.ServerKernel = (system1 - system0) / wall
	}
	if cmd.ProcessState != nil {
		use.LoadTest = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds() / wall
	}
	if err != nil {
		return nil, use, fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	return stdout.Bytes(), use, nil
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
	var run httpload.RunReport // the report of loadtest http's one run
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
	fr, err := measureFlood(ctx, cfg, floodURL(name, srv.url), srv.cmd.Process.Pid, extra...)
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

// floodURL is where the flood sends and polls. stocknode's pre-confirmed
// pending state is served on both of its views, but on / a client that
// sent a transaction is shown, for the receipt hold (300 ms), the chain as
// it was before its transaction's block sealed (README, "Two views"): the
// flood's poller, which is also its sender, would time the hold, not the
// pre-confirmation. /preconf is the view that a client wanting the fastest
// answer opts into, and the one whose pending state the flood's times are
// about; sends are answered there exactly as on /.
func floodURL(name, url string) string {
	if name == "stocknode" || name == baseName {
		return url + "/preconf"
	}
	return url
}

// defaultFloodSenders are the flood's sender counts. Each sender waits for
// its answer before it sends again, so a flood with too few of them
// measures a server's round trip rather than its intake: anvil takes in as
// much at 32 senders as at 256, stocknode 20% more at 128 than at 64
// (PERFORMANCE.md, "The flood past 1.3x anvil").
const defaultFloodSenders = "64,128"
