package main

import (
	"strings"
	"testing"
	"time"
)

const wrkReport = `Running 6s test @ http://127.0.0.1:40001
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   701.67us  207.45us   6.78ms   84.05%
    Req/Sec    91.68k     3.11k   95.92k    85.00%
  Latency Distribution
     50%  671.00us
     75%  762.00us
     90%    0.90ms
     99%    1.43ms
  547373 requests in 6.00s, 67.34MB read
`

func TestParseWrk(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		rps     float64
		p50     time.Duration
		p99     time.Duration
		errors  uint64
		samples int
		wantErr string
	}{
		{name: "clean", out: wrkReport + "Requests/sec:  91234.55\nTransfer/sec:     11.22MB\nrpc-errors 0\n",
			rps: 91234.55, p50: 671 * time.Microsecond, p99: 1430 * time.Microsecond},
		{name: "every kind of error", out: wrkReport + "  Socket errors: connect 0, read 2, write 0, timeout 3\n  Non-2xx or 3xx responses: 7\nRequests/sec:  100.00\nrpc-errors 11\n",
			rps: 100, p50: 671 * time.Microsecond, p99: 1430 * time.Microsecond, errors: 23, samples: 4},
		{name: "p99 in seconds", out: "     50%    1.20s\n     99%    2.50s\nRequests/sec:  10.5\n",
			rps: 10.5, p50: 1200 * time.Millisecond, p99: 2500 * time.Millisecond},
		{name: "no rate", out: wrkReport, wantErr: "no Requests/sec"},
		{name: "bad rate", out: "Requests/sec:  fast\n", wantErr: "requests/s"},
		{name: "bad latency", out: "     99%    soon\nRequests/sec:  1\n", wantErr: "latency"},
		{name: "bad error count", out: "Requests/sec:  1\nrpc-errors many\n", wantErr: "count of JSON-RPC errors"},
		{name: "bad socket error count", out: "  Socket errors: connect 0, read x, write 0, timeout 0\nRequests/sec:  1\n", wantErr: "socket read errors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseWrk(strings.NewReader(tt.out))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.RPS != tt.rps || r.P50 != tt.p50 || r.P99 != tt.p99 || r.Errors != tt.errors || len(r.Sample) != tt.samples {
				t.Fatalf("got rps %v p50 %v p99 %v errors %d samples %q", r.RPS, r.P50, r.P99, r.Errors, r.Sample)
			}
		})
	}
}

func TestPrintReadGoals(t *testing.T) {
	read := func(method, tag string, rps, cores float64) readResult {
		return readResult{Method: method, Tag: tag, RPS: rps, CPU: cpuUse{Server: cores}}
	}
	server := func(name string, scale float64) serverResult {
		s := serverResult{Name: name}
		for _, g := range readGoals {
			s.Reads = append(s.Reads, read(g.method, g.tag, 1000*scale, 1))
			s.Wrk = append(s.Wrk, read(g.method, g.tag, 1000*scale, 1))
		}
		return s
	}
	tests := []struct {
		name  string
		alter func(sn, geth, anvil *serverResult)
		want  []string
	}{
		{"all met", func(_, _, _ *serverResult) {}, []string{
			"requests/s, loadtest: all met\n",
			"requests/s, wrk: all met\n",
			// One core at 6,000 req/s against one at 3,000.
			"server CPU per request, loadtest: all met\n",
		}},
		{"one missed", func(sn, _, _ *serverResult) { sn.Wrk[1].RPS = 4000 }, []string{
			"requests/s, loadtest: all met\n",
			"requests/s, wrk: MISSED getBalance pending 1.33x anvil (goal 1.5x)\n",
		}},
		{"CPU per request missed", func(sn, _, _ *serverResult) { sn.Reads[2].CPU.Server = 3 }, []string{
			"requests/s, loadtest: all met\n",
			"server CPU per request, loadtest: MISSED call latest 0.67x anvil (goal 2x); call latest 2.00x geth (goal 4x)\n",
		}},
		{"one anchor's figure missing", func(_, _, anvil *serverResult) { anvil.Wrk = anvil.Wrk[1:] }, []string{
			"requests/s, wrk: NOT MEASURED getBalance latest against anvil\n",
		}},
		{"no wrk", func(sn, geth, anvil *serverResult) { sn.Wrk, geth.Wrk, anvil.Wrk = nil, nil, nil }, []string{
			"requests/s, wrk: not measured\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &results{Servers: []serverResult{server("stocknode", 6), server("geth", 1), server("anvil", 3)}}
			tt.alter(&res.Servers[0], &res.Servers[1], &res.Servers[2])
			var b strings.Builder
			printReadGoals(&b, res)
			for _, want := range tt.want {
				if !strings.Contains(b.String(), want) {
					t.Errorf("missing %q in\n%s", want, b.String())
				}
			}
		})
	}
}

// The read goals end with the setup's ceiling against anvil's getBalance
// latest, when both were measured.
func TestPrintCeilingReach(t *testing.T) {
	anvil := serverResult{Name: "anvil", Reads: []readResult{{Method: "getBalance", Tag: "latest", RPS: 3000}}}
	for _, tt := range []struct {
		name string
		res  *results
		want string
	}{
		{"both", &results{Ceiling: &readResult{RPS: 4500}, Servers: []serverResult{anvil}},
			"ceiling (fasthttp answering a constant body, best round): 1.50x anvil's getBalance latest"},
		{"no ceiling", &results{Servers: []serverResult{anvil}}, ""},
		{"no anvil", &results{Ceiling: &readResult{RPS: 4500}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printCeilingReach(&b, tt.res)
			if got := b.String(); (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
