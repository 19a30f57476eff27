package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/stocknode/stocknode/internal/procstat"
)

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
		if err := prepareTraceChains(&cfg); err != nil {
			return err
		}
	}
	res := &results{Started: time.Now(), Connections: cfg.conns, Duration: cfg.duration.String(),
		BlockTime: cfg.blockTime.String(), CPUs: runtime.NumCPU(), LoadAvg: [2]string{procstat.LoadAvg(), ""}}
	names := strings.Split(cfg.servers, ",")
	res.Servers = make([]serverResult, len(names))
	for i, name := range names {
		res.Servers[i] = serverResult{Name: strings.TrimSpace(name), Checks: map[string]string{}}
	}
	res.Rounds = max(1, cfg.rounds)
	for round := 1; round <= res.Rounds; round++ {
		order := roundOrder(len(res.Servers), round)
		inOrder := make([]string, len(order))
		for k, i := range order {
			inOrder[k] = res.Servers[i].Name
		}
		logf("round %d order: %s", round, strings.Join(inOrder, ", "))
		measureCeilingRound(ctx, cfg, res, round)
		for _, i := range order {
			if ctx.Err() != nil {
				break
			}
			measureServer(ctx, cfg, &res.Servers[i], genesis, round, round == res.Rounds)
			if cfg.trace && importsChains(res.Servers[i].Name) {
				measureTraceChains(ctx, cfg, &res.Servers[i], round)
			}
		}
	}
	checkTraces(res)
	res.Seconds = time.Since(res.Started).Seconds()
	res.LoadAvg[1] = procstat.LoadAvg()
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

// measureCeilingRound measures the setup's ceiling at the start of a round
// and keeps the best round's: measured once, it caught the machine in
// one phase while each server's figure is its best of every round, so
// the two could not be set side by side (printReadGoals does).
func measureCeilingRound(ctx context.Context, cfg config, res *results, round int) {
	if !cfg.ceiling || ctx.Err() != nil {
		return
	}
	r, err := measureCeiling(ctx, cfg)
	if err != nil {
		logf("ceiling: %v", err)
		return
	}
	r.Round = round
	if res.Ceiling == nil || r.RPS > res.Ceiling.RPS {
		res.Ceiling = r
	}
}

// roundOrder returns the indices of n servers in the order round (from 1)
// measures them: the given order rotated to start at server (round-1) mod n,
// so that round 1 keeps the given order and each round starts one server
// later. Whichever server runs first in a round measures differently (a
// before/after run lost a quarter of stocknode's traceTransaction
// throughput on the build that ran first), so a fixed order would bias the
// comparison of neighbours such as stocknode and stocknode-base; rotated,
// each of n servers runs first in one of every n rounds. The results keep
// the given order (res.Servers is indexed by it), so the tables' columns do
// not move.
func roundOrder(n, round int) []int {
	order := make([]int, n)
	if n == 0 {
		return order
	}
	start := (round - 1) % n
	if start < 0 {
		start += n
	}
	for k := range order {
		order[k] = (start + k) % n
	}
	return order
}

// measureWorkloads measures each of list in turn with measure, labelled
// gen in the log, and appends the results to into. False when ctx ended or a
// measurement failed (sr.Error says why): the server's round stops there.
func measureWorkloads(ctx context.Context, cfg config, sr *serverResult, round int, gen string,
	list []struct{ method, tag string }, measure func(method, tag string) (*readResult, error), into *[]readResult) bool {
	for _, w := range list {
		if ctx.Err() != nil {
			return false
		}
		if traceWorkload(w.method) && !cfg.trace {
			continue
		}
		r, err := measure(w.method, w.tag)
		if err != nil {
			sr.Error = err.Error()
			return false
		}
		r.Round = round
		logf("%s %s%s %s: %.0f req/s, p99 %v, errors %d", sr.Name, gen, w.method, w.tag, r.RPS, r.P99, r.Errors)
		*into = append(*into, *r)
	}
	return true
}

// measureServer starts one server, checks it, runs the read workloads, the
// WebSocket fan-outs and the transaction flood and, in the last round, the
// paced workloads and the paced flood, and adds what it measured to sr.
func measureServer(ctx context.Context, cfg config, sr *serverResult, genesis string, round int, lastRound bool) {
	name := sr.Name
	sr.LoadAvg = append(sr.LoadAvg, procstat.LoadAvg())
	srv, err := startServer(ctx, cfg, name, genesis)
	if err != nil {
		sr.Error = err.Error()
		logf("%s: %v", name, err)
		return
	}
	defer srv.stop()
	sr.Version, sr.Command = srv.version, srv.cmd.Args
	logf("%s (%s) round %d serving on %s, pid %d; load average %s", name, srv.version, round, srv.url, srv.cmd.Process.Pid, procstat.LoadAvg())
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
	pid := srv.cmd.Process.Pid
	if !measureWorkloads(ctx, cfg, sr, round, "", workloads, func(method, tag string) (*readResult, error) {
		return measureRead(ctx, cfg, srv.url, pid, method, tag)
	}, &sr.Reads) {
		return
	}
	if cfg.wrk != "" && !measureWorkloads(ctx, cfg, sr, round, "wrk ", wrkWorkloads, func(method, tag string) (*readResult, error) {
		return measureWrk(ctx, cfg, srv.url, pid, method, tag)
	}, &sr.Wrk) {
		return
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
	measureWebSocket(ctx, cfg, sr, srv, round)
	if !cfg.flood || ctx.Err() != nil {
		return
	}
	if name == "geth" {
		sr.Flood = &floodResult{Skipped: "geth seals no blocks without a consensus client"}
		return
	}
	for _, senders := range cfg.floodSenders {
		if ctx.Err() != nil {
			return
		}
		fr := runFlood(ctx, cfg, name, srv, "-senders", strconv.Itoa(senders))
		fr.Round = round
		sr.Floods = append(sr.Floods, fr)
		if best := sr.Flood; best == nil || best.Skipped != "" || (fr.Skipped == "" && fr.AcceptedPerSec > best.AcceptedPerSec) {
			sr.Flood = fr
		}
	}
	if lastRound && cfg.floodPacedRate > 0 && ctx.Err() == nil {
		sr.FloodPaced = runFlood(ctx, cfg, name, srv, "-rate", strconv.FormatFloat(cfg.floodPacedRate, 'f', 0, 64))
	}
	// The flood spends from the first development accounts only and sends to
	// its own accounts: the last development account, the read addresses and
	// the token balances are untouched.
	check("afterFlood")
}
