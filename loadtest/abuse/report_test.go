package abuse

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/internal/latency"
)

var testTargets = abuseTargets{CanaryP99: 100 * time.Millisecond, MinBlocksPerSec: 4.5, RSSTolerance: 128 << 20, RSSPeakGrowth: 1 << 30}

func rate(r float64) *float64 { return &r }

func TestJudge(t *testing.T) {
	good := attackResult{Name: "blake2f", Canary: latency.Durations{Count: 100, P50: time.Millisecond, P99: 20 * time.Millisecond},
		BlocksPerSec: rate(5), RSSBefore: 100 << 20, RSSPeak: 300 << 20, RSSAfter: 150 << 20, AnswersAfter: true}
	tests := []struct {
		name   string
		change func(r *attackResult)
		want   []string // substrings of the reasons, in order; none: a pass
	}{
		{"within the targets", func(r *attackResult) {}, nil},
		{"slow canary", func(r *attackResult) { r.Canary.P99 = 3 * time.Second }, []string{"canary p99 3.00s"}},
		{"not measured", func(r *attackResult) { r.Canary = latency.Durations{} }, []string{"not measured"}},
		{"setup failed", func(r *attackResult) {
			r.Canary, r.BlocksPerSec, r.Error = latency.Durations{}, nil, "setup: no blocks"
		},
			[]string{"error: setup: no blocks"}},
		{"slow chain", func(r *attackResult) { r.BlocksPerSec = rate(0.6) }, []string{"0.60 blocks/s < 4.5"}},
		{"blocks not measured", func(r *attackResult) { r.BlocksPerSec = nil }, []string{"blocks/s not measured"}},
		{"memory kept", func(r *attackResult) { r.RSSAfter = 1 << 30 }, []string{"RSS after is 924 MiB above"}},
		{"memory peak", func(r *attackResult) { r.RSSPeak = 3 << 30 }, []string{"RSS peaked 2972 MiB above"}},
		{"process gone", func(r *attackResult) { r.RSSAfter = 0 }, []string{"no RSS after"}},
		{"no answer", func(r *attackResult) { r.AnswersAfter, r.AfterProblems = false, []string{"GET /health: refused"} },
			[]string{"no answer after the attack: GET /health: refused"}},
		{"behaviour", func(r *attackResult) { r.Unexpected = []string{"smuggled"} }, []string{"smuggled"}},
		{"error first", func(r *attackResult) { r.Error = "setup: boom"; r.Unexpected = []string{"x"} }, []string{"error: setup: boom", "x"}},
		{"a check ignores the canary and memory", func(r *attackResult) {
			r.Check, r.Canary.P99, r.BlocksPerSec, r.RSSAfter = true, time.Second, nil, 1<<30
		}, nil},
		{"a check fails on its behaviour", func(r *attackResult) { r.Check, r.Unexpected = true, []string{"no close"} }, []string{"no close"}},
	}
	for _, tt := range tests {
		r := good
		tt.change(&r)
		r.judge(testTargets)
		if r.Pass != (len(tt.want) == 0) || len(r.Reasons) != len(tt.want) {
			t.Errorf("%s: pass %v, reasons %q, want %q", tt.name, r.Pass, r.Reasons, tt.want)
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(r.Reasons[i], w) {
				t.Errorf("%s: reason %q, want it to say %q", tt.name, r.Reasons[i], w)
			}
		}
	}
	skipped := attackResult{Name: "x", Skipped: "node down"}
	skipped.judge(testTargets)
	if skipped.Pass || skipped.verdict() != "SKIP" {
		t.Fatalf("a skipped attack: %+v", skipped)
	}
}

func TestAbuseTable(t *testing.T) {
	results := []attackResult{
		{Name: "blake2f", Canary: latency.Durations{Count: 150, P50: 1400 * time.Microsecond, P99: 3040 * time.Millisecond, Max: 3040 * time.Millisecond},
			CanaryFailed: 2, BlocksPerSec: rate(0.51), RSSBefore: 96 << 20, RSSPeak: 100 << 20, RSSAfter: 97 << 20, AnswersAfter: true},
		{Name: "cl-te", Check: true, Canary: latency.Durations{Count: 3, P50: 400 * time.Microsecond, P99: 3 * time.Millisecond, Max: 3 * time.Millisecond}},
		{Name: "idle-conns", Skipped: "node down: refused"},
	}
	for i := range results {
		results[i].judge(testTargets)
	}
	want := "" +
		"attack      canary p50/p99/max   failed  blocks/s  RSS MiB before/peak/after  answers after  verdict\n" +
		"blake2f     1.40ms/3.04s/3.04s   2/150   0.51      96/100/97                  yes            FAIL (2)\n" +
		"cl-te       400µs/3.00ms/3.00ms  0/3     -         -                          NO             FAIL (1)\n" +
		"idle-conns  -                    -       -         -                          -              SKIP\n"
	if got := formatAbuseTable(results); got != want {
		t.Fatalf("table:\n%s\nwant:\n%s", got, want)
	}
	rep := Report{URL: "http://127.0.0.1:1", PID: 7, Targets: testTargets, Attacks: results, Failed: 2, Skipped: 1}
	s := rep.String()
	for _, w := range []string{"2 failed, 1 skipped", want, "blake2f: FAIL (2)", "  FAIL: 0.51 blocks/s < 4.5", "idle-conns: SKIP", "  skipped: node down: refused", "cl-te (check): FAIL (1)"} {
		if !strings.Contains(s, w) {
			t.Errorf("report lacks %q:\n%s", w, s)
		}
	}
	if rep.ExitCode() == 0 || (Report{Passed: 3}).ExitCode() != 0 {
		t.Fatal("the exit code must say whether every attack passed")
	}
}

func TestFmtDur(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0", 250 * time.Microsecond: "250µs", 1400 * time.Microsecond: "1.40ms",
		59 * time.Millisecond: "59ms", 3040 * time.Millisecond: "3.04s"} {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestParseGauges(t *testing.T) {
	text := "# HELP call_pool_running eth_calls running.\n# TYPE call_pool_running gauge\ncall_pool_running 3\n" +
		"call_pool_waiting{shard=\"a\"} 12\ncall_pool_waiting{shard=\"b\"} 1\nother 1e3\n"
	g, err := parseGauges(strings.NewReader(text), "call_pool_running", "call_pool_waiting", "other")
	if err != nil || g["call_pool_running"] != 3 || g["call_pool_waiting"] != 12 || g["other"] != 1000 {
		t.Fatalf("gauges %v, %v", g, err)
	}
	if _, err := parseGauges(strings.NewReader(text), "missing"); err == nil {
		t.Fatal("a missing gauge was not reported")
	}
}

// A marker is counted wherever the writes split it.
func TestCountingWriter(t *testing.T) {
	stream := []byte(strings.Repeat(`{"logIndex":"0x1"},`, 1000))
	for _, size := range []int{1, 3, 7, 10, 4096, len(stream)} {
		w := &countingWriter{marker: []byte(`"logIndex"`)}
		for p := stream; len(p) > 0; p = p[min(size, len(p)):] {
			w.Write(p[:min(size, len(p))])
		}
		if w.count != 1000 || w.n != int64(len(stream)) || !bytes.Equal(w.head, stream[:512]) {
			t.Fatalf("writes of %d: %d markers in %d bytes, want 1000 in %d", size, w.count, w.n, len(stream))
		}
	}
}

func TestFeeHistoryBody(t *testing.T) {
	for _, n := range []int{1, 100, 30_000, 250_000} {
		body := string(feeHistoryBody(1024, n))
		if !strings.Contains(body, `"params":["0x400","latest",[`) {
			t.Fatalf("body %.100s", body)
		}
		list := body[strings.LastIndex(body, "[")+1 : len(body)-3]
		var prev float64 = -1
		fields := strings.Split(list, ",")
		for _, f := range fields {
			p, err := strconv.ParseFloat(f, 64)
			if err != nil || p <= prev || p > 100 {
				t.Fatalf("%d percentiles: %q after %v", n, f, prev)
			}
			prev = p
		}
		if len(fields) != n || prev != 100 {
			t.Fatalf("%d percentiles: got %d, last %v", n, len(fields), prev)
		}
	}
}

func TestSelectAttacks(t *testing.T) {
	b := &battery{}
	all, err := b.selectAttacks("all")
	if err != nil || len(all) != len(abuseAttackNames()) {
		t.Fatalf("all: %d, %v", len(all), err)
	}
	some, err := b.selectAttacks("idle-conns, cl-te")
	if err != nil || len(some) != 2 || some[0].name != "cl-te" || some[1].name != "idle-conns" {
		t.Fatalf("a subset runs in the battery's order: %v", some)
	}
	if _, err := b.selectAttacks("cl-te,nonsense"); err == nil || !strings.Contains(err.Error(), "nonsense") {
		t.Fatalf("an unknown attack: %v", err)
	}
	names := abuseAttackNames()
	if i, j := slices.Index(names, "blake2f"), slices.Index(names, "idle-conns"); i < 0 || j != len(names)-1 {
		t.Fatalf("the connection floods run last: %v", names)
	}
	for _, a := range all {
		if (a.run == nil) == (a.prepare == nil) {
			t.Fatalf("%s: want run or prepare", a.name)
		}
	}
}

func TestAttackerIP(t *testing.T) {
	for _, tt := range []struct{ ip, target, want string }{
		{"127.0.0.2", "http://127.0.0.1:8545", "127.0.0.2"},
		{"127.0.0.2", "http://localhost:8545", ""},
		{"127.0.0.2", "http://[::1]:8545", ""},
		{"", "http://127.0.0.1:8545", ""},
	} {
		ip, err := attackerIP(tt.ip, tt.target)
		if err != nil || (ip == nil) != (tt.want == "") || ip != nil && ip.String() != tt.want {
			t.Errorf("attackerIP(%q, %q) = %v, %v; want %q", tt.ip, tt.target, ip, err, tt.want)
		}
	}
	if _, err := attackerIP("10.0.0.1", "http://127.0.0.1:8545"); err == nil {
		t.Fatal("a source address off the machine was accepted")
	}
}

func TestShares(t *testing.T) {
	if got := shares(20_000, 10_000); !slices.Equal(got, []int{10_000, 10_000}) {
		t.Fatal(got)
	}
	if got := shares(25, 10); !slices.Equal(got, []int{10, 10, 5}) {
		t.Fatal(got)
	}
	if got := shares(0, 10); len(got) != 0 {
		t.Fatal(got)
	}
}

func TestCallBody(t *testing.T) {
	body := string(callBody(nil, 7, []byte{0x60, 0x00}))
	if body != `{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"data":"0x6000"},"latest"]}` {
		t.Fatal(body)
	}
}

func TestFilterTemplate(t *testing.T) {
	tmpl := newFilterTemplate(3, 2)
	a, b := tmpl.body(nil, 0), tmpl.body(nil, 1)
	var req struct {
		Method string `json:"method"`
		Params []struct {
			FromBlock string           `json:"fromBlock"`
			Address   []common.Address `json:"address"`
			Topics    [][]common.Hash  `json:"topics"`
		} `json:"params"`
	}
	if err := json.Unmarshal(a, &req); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	f := req.Params[0]
	if req.Method != "eth_newFilter" || f.FromBlock != "latest" || len(f.Address) != 3 || len(f.Topics) != 4 || len(f.Topics[3]) != 2 {
		t.Fatalf("filter %s", a)
	}
	if bytes.Equal(a, b) {
		t.Fatal("every filter must differ")
	}
}

func TestCheckSizes(t *testing.T) {
	cfg := testAbuseConfig(t, "http://127.0.0.1:1")
	if err := cfg.checkSizes(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	cfg.Filters, cfg.Duration = -1, 0
	if err := cfg.checkSizes(); err == nil || !strings.Contains(err.Error(), "-duration, -filters") {
		t.Fatalf("a negative size and a zero time: %v", err)
	}
}
