package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stocknode/stocknode/loadtest/workload"
)

// wrkWorkloads are measured a second time with wrk: one thread, the same
// connections, a body of its own per request over the same 1,024
// addresses (loadtest/wrk/rpc.lua). The read goals hold with both
// generators, and the two take different shares of the machine the servers
// share with them.
var wrkWorkloads = []struct{ method, tag string }{
	{"getBalance", "latest"},
	{"getBalance", "pending"},
	{"call", "latest"},
	{"call", "pending"},
}

// measureWrk runs one wrk workload against url and reads its report.
func measureWrk(ctx context.Context, cfg config, url string, pid int, method, tag string) (*readResult, error) {
	cmd := exec.CommandContext(ctx, cfg.wrk, "-t1", "-c"+strconv.Itoa(cfg.conns),
		"-d"+strconv.Itoa(max(1, int(cfg.duration.Seconds())))+"s", "--latency", "-s", cfg.wrkScript, url, "--", method, tag)
	cmd.Env = append(os.Environ(), "TOKEN="+workload.Token.Hex())
	out, cpu, err := runMeasured(cmd, pid)
	if err != nil {
		return nil, err
	}
	r, err := parseWrk(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("wrk %s %s: %w: %.300s", method, tag, err, out)
	}
	r.Method, r.Tag, r.CPU = method, tag, cpu
	return r, nil
}

// parseWrk reads wrk --latency's report and rpc.lua's error count.
func parseWrk(out io.Reader) (*readResult, error) {
	r := new(readResult)
	var haveRPS bool
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		var err error
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return nil, fmt.Errorf("requests/s %q: %w", f[1], err)
			}
			r.RPS, haveRPS = v, true
		case len(f) == 2 && (f[0] == "50%" || f[0] == "99%"):
			d, err := time.ParseDuration(f[1])
			if err != nil {
				return nil, fmt.Errorf("latency %q: %w", f[1], err)
			}
			if f[0] == "50%" {
				r.P50 = d
			} else {
				r.P99 = d
			}
		case len(f) == 2 && f[0] == "rpc-errors":
			err = r.addErrors(f[1], "JSON-RPC errors or answers without a result")
		case len(f) == 5 && f[0] == "Non-2xx":
			err = r.addErrors(f[4], "HTTP statuses other than 200")
		case len(f) >= 3 && f[0] == "Socket" && f[1] == "errors:":
			// connect N, read N, write N, timeout N
			for i := 2; i+1 < len(f) && err == nil; i += 2 {
				err = r.addErrors(strings.TrimSuffix(f[i+1], ","), "socket "+f[i]+" errors")
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !haveRPS {
		return nil, fmt.Errorf("no Requests/sec line")
	}
	return r, nil
}

// addErrors adds wrk's count n of errors of one kind, with what they were.
func (r *readResult) addErrors(n, what string) error {
	v, err := strconv.ParseUint(n, 10, 64)
	if err != nil {
		return fmt.Errorf("count of %s %q: %w", what, n, err)
	}
	if v > 0 {
		r.Errors += v
		r.Sample = append(r.Sample, fmt.Sprintf("%d %s", v, what))
	}
	return nil
}

// wrkRead returns the wrk workload's best round (highest requests/s).
func (s *serverResult) wrkRead(method, tag string) *readResult {
	if s == nil {
		return nil
	}
	return best(s.Wrk, method, tag)
}

// printWrk prints the wrk workloads: requests/s, stocknode's ratios, p99
// and CPU per request.
func printWrk(w io.Writer, res *results, names []string) {
	sn, geth, anvil := res.server("stocknode"), res.server("geth"), res.server("anvil")
	if sn == nil || len(sn.Wrk) == 0 {
		return
	}
	fmt.Fprintf(w, "\nthe same reads with wrk -t1 -c%d (loadtest/wrk/rpc.lua): requests/s, stocknode's ratios, p99, server CPU per request\n", res.Connections)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "wrk\t" + strings.Join(names, "\t") + "\tsn/anvil\tsn/geth\t"
	for _, n := range names {
		header += "p99 " + n + "\t"
	}
	for _, n := range names {
		header += "CPU " + n + "\t"
	}
	fmt.Fprintln(tw, header)
	var notes []string
	for _, wl := range wrkWorkloads {
		line := wl.method + " " + wl.tag + "\t"
		for _, s := range res.Servers {
			r := s.wrkRead(wl.method, wl.tag)
			switch {
			case r == nil:
				line += "-\t"
			case r.Errors > 0:
				line += kilo(r.RPS) + " !\t"
				notes = append(notes, fmt.Sprintf("%s wrk %s %s: %s", s.Name, wl.method, wl.tag, strings.Join(r.Sample, ", ")))
			default:
				line += kilo(r.RPS) + "\t"
			}
		}
		line += ratio(sn.wrkRead(wl.method, wl.tag), anvil.wrkRead(wl.method, wl.tag)) + "\t"
		line += ratio(sn.wrkRead(wl.method, wl.tag), geth.wrkRead(wl.method, wl.tag)) + "\t"
		for _, s := range res.Servers {
			line += p99Cell(s.wrkRead(wl.method, wl.tag))
		}
		for _, s := range res.Servers {
			line += cpuTime(s.wrkRead(wl.method, wl.tag)) + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, "! "+n)
	}
}

// readGoals are the performance issue's read goals: stocknode's
// getBalance at least 1.5x anvil's, its eth_call at least 2x, and all four
// at least 4x geth's, in requests/s with each generator and in server CPU
// per request.
var readGoals = []struct {
	method, tag string
	anvil, geth float64
}{
	{"getBalance", "latest", 1.5, 4},
	{"getBalance", "pending", 1.5, 4},
	{"call", "latest", 2, 4},
	{"call", "pending", 2, 4},
}

// printReadGoals says, for each way of measuring, whether every read goal
// held in this run, and which did not.
func printReadGoals(w io.Writer, res *results) {
	sn := res.server("stocknode")
	if sn == nil {
		return
	}
	fmt.Fprintln(w, "\nread goals (getBalance at least 1.5x anvil, eth_call at least 2x, all at least 4x geth; best rounds):")
	ways := []struct {
		name  string
		pick  func(*serverResult, string, string) *readResult
		times func(a, b *readResult) float64
	}{
		{"requests/s, loadtest", (*serverResult).read, rpsTimes},
		{"requests/s, wrk", (*serverResult).wrkRead, rpsTimes},
		{"server CPU per request, loadtest", (*serverResult).read, cpuTimes},
	}
	for _, way := range ways {
		var missed, unmeasured []string
		measured := 0
		for _, g := range readGoals {
			for _, anchor := range []struct {
				name string
				goal float64
			}{{"anvil", g.anvil}, {"geth", g.geth}} {
				a := res.server(anchor.name)
				if a == nil {
					continue
				}
				x := way.times(way.pick(sn, g.method, g.tag), way.pick(a, g.method, g.tag))
				switch {
				case x == 0:
					unmeasured = append(unmeasured, g.method+" "+g.tag+" against "+anchor.name)
				case x < anchor.goal:
					missed = append(missed, fmt.Sprintf("%s %s %.2fx %s (goal %gx)", g.method, g.tag, x, anchor.name, anchor.goal))
				}
				if x != 0 {
					measured++
				}
			}
		}
		fmt.Fprintf(w, "  %s: %s\n", way.name, goalVerdict(measured, missed, unmeasured))
	}
	printCeilingReach(w, res)
}

// printCeilingReach sets the setup's ceiling beside anvil's getBalance
// latest: a requests/s goal above what fasthttp answering a constant body
// made against anvil in the same run is out of reach of any server built
// on fasthttp in that run (an event-loop server answering the same body
// made 1-3% more), for the generator and the server share the machine's
// two cores, and anvil runs at one core's speed whatever is left it
// (PERFORMANCE.md, "What a run can show").
func printCeilingReach(w io.Writer, res *results) {
	anvil := res.server("anvil")
	x := rpsTimes(res.Ceiling, anvil.read("getBalance", "latest"))
	if x == 0 {
		return
	}
	fmt.Fprintf(w, "  the setup's ceiling (fasthttp answering a constant body, best round): %.2fx anvil's getBalance latest with loadtest, the most a fasthttp server doing no work shows in this run\n", x)
}

// goalVerdict sums up one way of measuring: the goals missed and, since a
// goal that was not measured is not met, those without a figure.
func goalVerdict(measured int, missed, unmeasured []string) string {
	if measured == 0 {
		return "not measured"
	}
	var parts []string
	if len(missed) > 0 {
		parts = append(parts, "MISSED "+strings.Join(missed, "; "))
	}
	if len(unmeasured) > 0 {
		parts = append(parts, "NOT MEASURED "+strings.Join(unmeasured, ", "))
	}
	if len(parts) == 0 {
		return "all met"
	}
	return strings.Join(parts, "; ")
}

// rpsTimes is how many times b's requests/s a serves, 0 when unknown.
func rpsTimes(a, b *readResult) float64 {
	if a == nil || b == nil || b.RPS == 0 {
		return 0
	}
	return a.RPS / b.RPS
}

// cpuTimes is how many times a's CPU per request b spends, 0 when
// unknown.
func cpuTimes(a, b *readResult) float64 {
	da, db := cpuPerRequest(a), cpuPerRequest(b)
	if da == 0 || db == 0 {
		return 0
	}
	return float64(db) / float64(da)
}
