package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/internal/latency"
)

func kilo(v float64) string {
	switch {
	case v >= 9_995: // rounds to 10.00k or more: one decimal, as 10.0k
		return fmt.Sprintf("%.1fk", v/1000)
	case v >= 1000:
		return fmt.Sprintf("%.2fk", v/1000)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// ms prints a latency for the tables ("-" for none).
func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return latency.Format(d)
}

func (r *results) server(name string) *serverResult {
	for i := range r.Servers {
		if r.Servers[i].Name == name {
			return &r.Servers[i]
		}
	}
	return nil
}

// read returns the workload's best round (highest requests/s).
func (s *serverResult) read(method, tag string) *readResult {
	if s == nil {
		return nil
	}
	return best(s.Reads, method, tag)
}

// best returns the workload's measurement with the highest requests/s.
func best(reads []readResult, method, tag string) *readResult {
	var top *readResult
	for i := range reads {
		r := &reads[i]
		if r.Method == method && r.Tag == tag && (top == nil || r.RPS > top.RPS) {
			top = r
		}
	}
	return top
}

// p99Cell is r's p99 as a table cell, "-" when r was not measured.
func p99Cell(r *readResult) string {
	if r == nil {
		return "-\t"
	}
	return ms(r.P99) + "\t"
}

func ratio(a, b *readResult) string {
	if a == nil || b == nil || b.RPS == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a.RPS/b.RPS)
}

// printTables prints the comparison: one table of the read workloads
// (requests/s, ratios, p99), the CPU each side used, and the flood.
func printTables(w io.Writer, cfg config, res *results) {
	var names []string
	for _, s := range res.Servers {
		names = append(names, s.Name)
	}
	rounds := ""
	if res.Rounds > 1 {
		rounds = fmt.Sprintf(", best of %d rounds", res.Rounds)
	}
	fmt.Fprintf(w, "\n%s, %d keep-alive connections, %v per workload (after %v warm-up%s), %v blocks; %d CPUs, load average %s at start, %s at end\n",
		strings.Join(names, " vs "), res.Connections, res.Duration, cfg.warmup, rounds, res.BlockTime, res.CPUs, res.LoadAvg[0], res.LoadAvg[1])
	for _, s := range res.Servers {
		if s.Version != "" {
			fmt.Fprintf(w, "  %s: %s\n", s.Name, s.Version)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	sn, geth, anvil, base := res.server("stocknode"), res.server("geth"), res.server("anvil"), res.server(baseName)
	header := "requests/s\t"
	for _, n := range names {
		header += n + "\t"
	}
	if sn != nil && anvil != nil {
		header += "sn/anvil\t"
	}
	if sn != nil && geth != nil {
		header += "sn/geth\t"
	}
	if sn != nil && base != nil {
		header += "sn/base\t"
	}
	for _, n := range names {
		header += "p99 " + n + "\t"
	}
	fmt.Fprintln(tw, header)
	var notes []string
	for _, wl := range tableWorkloads(cfg) {
		line := wl.method + " " + wl.tag + "\t"
		for _, s := range res.Servers {
			r := s.read(wl.method, wl.tag)
			var errs uint64
			var sample string
			for _, o := range s.Reads {
				if o.Method == wl.method && o.Tag == wl.tag && o.Errors > 0 {
					errs += o.Errors
					if sample == "" && len(o.Sample) > 0 {
						sample = o.Sample[0]
					}
				}
			}
			switch {
			case r == nil:
				line += "-\t"
			case errs > 0:
				line += kilo(r.RPS) + " !\t"
				note := fmt.Sprintf("%s %s %s: %d errors", s.Name, wl.method, wl.tag, errs)
				if sample != "" {
					note += ", e.g. " + sample
				}
				notes = append(notes, note)
			default:
				line += kilo(r.RPS) + "\t"
			}
		}
		if sn != nil && anvil != nil {
			line += ratio(sn.read(wl.method, wl.tag), anvil.read(wl.method, wl.tag)) + "\t"
		}
		if sn != nil && geth != nil {
			line += ratio(sn.read(wl.method, wl.tag), geth.read(wl.method, wl.tag)) + "\t"
		}
		if sn != nil && base != nil {
			line += ratio(sn.read(wl.method, wl.tag), base.read(wl.method, wl.tag)) + "\t"
		}
		for _, s := range res.Servers {
			line += p99Cell(s.read(wl.method, wl.tag))
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if c := res.Ceiling; c != nil {
		fmt.Fprintf(w, "ceiling: fasthttp answering a constant body, getBalance latest, best round: %s req/s, p99 %s (server %.2f cores, %s a request; load generator %.2f cores)\n",
			kilo(c.RPS), ms(c.P99), c.CPU.Server, cpuTime(c), c.CPU.LoadTest)
	}
	for _, n := range notes {
		fmt.Fprintln(w, "! "+n)
	}
	printWrk(w, res, names)

	printPaced(w, cfg, res, names)

	fmt.Fprintln(w, "\nCPU cores used during each workload: server + load generator")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\t"+strings.Join(names, "\t")+"\t")
	for _, wl := range tableWorkloads(cfg) {
		line := wl.method + " " + wl.tag + "\t"
		for _, s := range res.Servers {
			if r := s.read(wl.method, wl.tag); r != nil {
				line += fmt.Sprintf("%.2f + %.2f\t", r.CPU.Server, r.CPU.LoadTest)
			} else {
				line += "-\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()

	printCPUPerRequest(w, cfg, res, names)
	printReadGoals(w, res)

	if cfg.flood {
		printFlood(w, cfg, res)
	}
	if cfg.wsDuration > 0 {
		printWebSocket(w, cfg, res)
	}

	fmt.Fprint(w, "\ncorrectness (dev account balance, ETH and ERC-20 balances at latest and pending; trace CHAIN: callTracer traces of every block of the chain, the same as geth's):")
	phases := []string{"before", "afterReads", "afterFlood"}
	for _, c := range traceChains {
		phases = append(phases, "trace "+c)
	}
	for _, s := range res.Servers {
		var parts []string
		for _, phase := range phases {
			if c, ok := s.Checks[phase]; ok {
				parts = append(parts, phase+" "+c)
			}
		}
		if s.Error != "" {
			parts = append(parts, "error: "+s.Error)
		}
		fmt.Fprintf(w, "\n  %s: %s", s.Name, strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
}

// printCPUPerRequest prints the server's CPU time per answered request in
// each workload's best round, and how many times stocknode's each anchor
// spends: unlike requests/s, it does not depend on how much of the machine
// the load generator takes.
func printCPUPerRequest(w io.Writer, cfg config, res *results, names []string) {
	sn := res.server("stocknode")
	var anchors []*serverResult
	header := "workload\t" + strings.Join(names, "\t") + "\t"
	for _, name := range []string{"anvil", "geth", baseName} {
		if a := res.server(name); sn != nil && a != nil {
			anchors = append(anchors, a)
			header += strings.TrimPrefix(name, "stocknode-") + "/sn\t"
		}
	}
	fmt.Fprintln(w, "\nserver CPU per answered request (best round), in brackets the part in the kernel; anchor/sn: times stocknode's")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header)
	for _, wl := range tableWorkloads(cfg) {
		line := wl.method + " " + wl.tag + "\t"
		for _, s := range res.Servers {
			line += cpuTime(s.read(wl.method, wl.tag)) + "\t"
		}
		for _, a := range anchors {
			line += cpuRatio(a.read(wl.method, wl.tag), sn.read(wl.method, wl.tag)) + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// cpuPerRequest is r's server CPU time per answered request, 0 when
// unknown.
func cpuPerRequest(r *readResult) time.Duration {
	if r == nil || r.RPS == 0 || r.CPU.Server == 0 {
		return 0
	}
	return time.Duration(r.CPU.Server / r.RPS * float64(time.Second))
}

// cpuTime is r's server CPU per request and, when known, the part of it
// in the kernel (system time: the socket calls, and on loopback the
// receiving side's TCP work as well), which no server can take out.
func cpuTime(r *readResult) string {
	d := cpuPerRequest(r)
	if d == 0 {
		return "-"
	}
	if r.CPU.ServerKernel == 0 {
		return duration(d)
	}
	kernel := time.Duration(float64(d) * r.CPU.ServerKernel / r.CPU.Server)
	return duration(d) + " (" + duration(kernel) + ")"
}

func duration(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.3g µs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%.3g ms", float64(d)/float64(time.Millisecond))
}

// cpuRatio is how many times b's CPU per request a spends.
func cpuRatio(a, b *readResult) string {
	da, db := cpuPerRequest(a), cpuPerRequest(b)
	if da == 0 || db == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(da)/float64(db))
}

// paced returns the workload's measurement at the one offered rate.
func (s *serverResult) paced(method, tag string) *readResult {
	if s == nil {
		return nil
	}
	for i := range s.Paced {
		if r := &s.Paced[i]; r.Method == method && r.Tag == tag {
			return r
		}
	}
	return nil
}

// printPaced prints latency at one offered load: p50 and p99 per server,
// and stocknode's p99 against anvil's (and stocknode-base's).
func printPaced(w io.Writer, cfg config, res *results, names []string) {
	if cfg.pacedRate <= 0 {
		return
	}
	fmt.Fprintf(w, "\nlatency at the same offered load: %s requests/s over %d connections (achieved req/s, p50 / p99)\n", kilo(cfg.pacedRate), res.Connections)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	sn, anvil, base := res.server("stocknode"), res.server("anvil"), res.server(baseName)
	header := "workload\t" + strings.Join(names, "\t") + "\t"
	if sn != nil && anvil != nil {
		header += "p99 sn/anvil\t"
	}
	if sn != nil && base != nil {
		header += "p99 sn/base\t"
	}
	fmt.Fprintln(tw, header)
	for _, wl := range pacedWorkloads {
		line := wl.method + " " + wl.tag + "\t"
		for _, s := range res.Servers {
			if r := s.paced(wl.method, wl.tag); r != nil {
				errs := ""
				if r.Errors > 0 {
					errs = fmt.Sprintf(" (%d errors)", r.Errors)
				}
				line += fmt.Sprintf("%s  %s / %s%s\t", kilo(r.RPS), ms(r.P50), ms(r.P99), errs)
			} else {
				line += "-\t"
			}
		}
		if sn != nil && anvil != nil {
			line += p99Ratio(sn.paced(wl.method, wl.tag), anvil.paced(wl.method, wl.tag)) + "\t"
		}
		if sn != nil && base != nil {
			line += p99Ratio(sn.paced(wl.method, wl.tag), base.paced(wl.method, wl.tag)) + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// p99Ratio is a's p99 over b's.
func p99Ratio(a, b *readResult) string {
	if a == nil || b == nil || b.P99 == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a.P99)/float64(b.P99))
}

// printFlood prints the transaction flood, and the flood at one offered
// rate below the chain's capacity, per server.
func printFlood(w io.Writer, cfg config, res *results) {
	best := ""
	switch {
	case res.Rounds > 1 && len(cfg.floodSenders) > 1:
		best = fmt.Sprintf(", best of %d rounds and of %s senders by accepted/s", res.Rounds, joinInts(cfg.floodSenders))
	case res.Rounds > 1:
		best = fmt.Sprintf(", best of %d rounds by accepted/s", res.Rounds)
	case len(cfg.floodSenders) > 1:
		best = fmt.Sprintf(", best of %s senders by accepted/s", joinInts(cfg.floodSenders))
	}
	fmt.Fprintf(w, "\ntransaction flood: %v of signed transfers from 1,024 funded accounts, %v blocks%s (times: send to first seen; p50 / p99)\n", cfg.floodDuration, res.BlockTime, best)
	if cfg.floodPacedRate > 0 {
		capacity := float64(genesisGasLimit/params.TxGas) / cfg.blockTime.Seconds()
		fmt.Fprintf(w, "(\"at %s/s\": the same flood offered %s transfers/s, below the chain's capacity of %s/s: unpaced, a server that\n"+
			"accepts more than a block holds builds a backlog, and its times measure the backlog rather than the sequencer)\n", kilo(cfg.floodPacedRate), kilo(cfg.floodPacedRate), kilo(capacity))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\tsenders\taccepted/s\tincluded/s\trejected\tnot sealed\tto pending\tto latest\tto receipt\tcores (srv+gen)\t")
	var reasons []string
	for _, s := range res.Servers {
		reasons = append(reasons, floodRow(tw, s.Name, s.Flood)...)
		if s.FloodPaced != nil {
			reasons = append(reasons, floodRow(tw, fmt.Sprintf("%s at %s/s", s.Name, kilo(cfg.floodPacedRate)), s.FloodPaced)...)
		}
	}
	tw.Flush()
	for _, r := range reasons {
		fmt.Fprintln(w, "  "+r)
	}
	printFloodGoal(w, res)
}

// floodGoal is the performance issue's goal for the flood: stocknode
// accepts at least this many times what anvil accepts.
const floodGoal = 1.3

// printFloodGoal prints stocknode's accepted/s over anvil's, when both
// flooded.
func printFloodGoal(w io.Writer, res *results) {
	var sn, anvil *floodResult
	for _, s := range res.Servers {
		switch s.Name {
		case "stocknode":
			sn = s.Flood
		case "anvil":
			anvil = s.Flood
		}
	}
	if sn == nil || anvil == nil || sn.Skipped != "" || anvil.Skipped != "" || anvil.AcceptedPerSec == 0 {
		return
	}
	fmt.Fprintf(w, "  accepted/s, stocknode/anvil: %.2fx (goal at least %.2fx); stocknode's time to pending p99 %s\n",
		sn.AcceptedPerSec/anvil.AcceptedPerSec, floodGoal, ms(sn.TimeToPending.P99))
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// floodRow prints one flood's row and returns its rejection reasons.
func floodRow(tw io.Writer, label string, f *floodResult) (reasons []string) {
	switch {
	case f == nil:
		return nil
	case f.Skipped != "":
		fmt.Fprintf(tw, "%s\tskipped: %s\t\t\t\t\t\t\t\t\t\n", label, f.Skipped)
		return nil
	}
	senders := "-"
	if f.Senders > 0 {
		senders = strconv.Itoa(f.Senders)
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s / %s\t%s / %s\t%s / %s\t%.2f + %.2f\t\n", label, senders,
		kilo(f.AcceptedPerSec), kilo(f.IncludedPerSec), f.Rejected, f.NotIncluded,
		ms(f.TimeToPending.P50), ms(f.TimeToPending.P99), ms(f.TimeToLatest.P50), ms(f.TimeToLatest.P99),
		ms(f.TimeToReceipt.P50), ms(f.TimeToReceipt.P99), f.CPU.Server, f.CPU.LoadTest)
	msgs := make([]string, 0, len(f.RejectedBy))
	for m := range f.RejectedBy {
		msgs = append(msgs, m)
	}
	slices.SortFunc(msgs, func(a, b string) int { return f.RejectedBy[b] - f.RejectedBy[a] })
	for _, m := range msgs {
		reasons = append(reasons, fmt.Sprintf("%s rejected %d: %s", label, f.RejectedBy[m], m))
	}
	return reasons
}

// tableWorkloads are the rows of the tables: the read workloads, then
// each trace workload on each trace chain (tagged by the chain's name).
func tableWorkloads(cfg config) []struct{ method, tag string } {
	rows := append([]struct{ method, tag string }{}, workloads...)
	if !cfg.trace {
		return rows
	}
	for _, chain := range traceChains {
		for _, method := range traceWorkloads {
			rows = append(rows, struct{ method, tag string }{method, chain})
		}
	}
	return rows
}
