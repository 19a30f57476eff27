package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// The keccak loops hash a megabyte of memory a turn until the call's gas
// (50M, --rpc.gascap) runs out, some 240 turns: go-ethereum's
// keccak256PreimageTracer and erc7562Tracer copy every preimage, and held
// 2.8 GB for one such request before the guard (node/tracing/guard.go).
var (
	// PUSH0; loop: JUMPDEST; n++; MSTORE(0, n); POP(KECCAK256(0, 1 MiB)); JUMP(loop)
	keccakDistinct = "0x5f5b600101805f52621000005f2050600156"
	// the same without the MSTORE: one preimage of zeros, again and again
	keccakSame = "0x5f5b60010162100000" + "5f2050600156"
)

// rssBound is how much more memory one trace may make the node hold.
const rssBound = 256 << 20

// A keccak loop traced under each tracer raises the node's peak memory
// by less than rssBound: what a tracer keeps is counted as it runs and the
// trace stopped once it could not fit the response (-32003). Four such
// traces at once leave blocks at their rhythm.
func TestTraceMemoryBounded(t *testing.T) {
	p := start(t, "--dev")
	url := "http://" + p.await(listeningRe, 30*time.Second)[1]
	go func() {
		for range p.lines { // the node must never block on its log
		}
	}()
	pid := p.cmd.Process.Pid
	client := &http.Client{Timeout: 2 * time.Minute}
	var table strings.Builder
	fmt.Fprintf(&table, "%-34s %-9s %9s  %s\n", "tracer", "memory", "peak rise", "answer")
	for _, tracer := range []string{
		`{}`, `{"enableMemory": true}`,
		`{"tracer": "4byteTracer"}`, `{"tracer": "callTracer"}`, `{"tracer": "erc7562Tracer"}`, `{"tracer": "flatCallTracer"}`,
		`{"tracer": "keccak256PreimageTracer"}`, `{"tracer": "noopTracer"}`, `{"tracer": "prestateTracer"}`,
		`{"tracer": "muxTracer", "tracerConfig": {"callTracer": {}, "erc7562Tracer": {}, "keccak256PreimageTracer": {}}}`,
	} {
		for _, prog := range []struct{ name, code string }{{"distinct", keccakDistinct}, {"same", keccakSame}} {
			resetPeak(t, pid)
			before := procStatus(t, pid, "VmRSS")
			answer, err := traceCall(client, url, tracer, prog.code)
			if err != nil {
				t.Fatal(err)
			}
			rise := procStatus(t, pid, "VmHWM") - before
			name := tracer
			if len(name) > 34 {
				name = name[:31] + "..."
			}
			fmt.Fprintf(&table, "%-34s %-9s %6d MiB  %s\n", name, prog.name, rise>>20, answer)
			if rise > rssBound {
				t.Errorf("%s on %s preimages: peak RSS %d MiB above before, want under %d", tracer, prog.name, rise>>20, rssBound>>20)
			}
			if prog.name == "distinct" && strings.Contains(tracer, "keccak256PreimageTracer") && !strings.HasPrefix(answer, "-32003") {
				t.Errorf("%s on distinct preimages: %s, want -32003 (response too large)", tracer, answer)
			}
		}
	}
	t.Logf("peak RSS rise of one trace of a keccak loop:\n%s", table.String())
	fourAtOnce(t, client, url, pid)
	if err := p.stop(syscall.SIGINT); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// fourAtOnce traces the keccak loops four at a time for ten seconds
// (erc7562Tracer and keccak256PreimageTracer, distinct and the same
// preimages) and measures blocks a second meanwhile, against a quiet
// spell of as long before. A machine too busy to seal 5 blocks a second
// when quiet cannot tell whether the traces slow them: then the rate is
// reported and not judged.
func fourAtOnce(t *testing.T, client *http.Client, url string, pid int) {
	const spell = 10 * time.Second
	quiet := blockRate(t, client, url, func() { time.Sleep(spell) })
	resetPeak(t, pid)
	before := procStatus(t, pid, "VmRSS")
	var (
		mu      sync.Mutex
		answers = map[string]int{}
	)
	loaded := blockRate(t, client, url, func() {
		end := time.Now().Add(spell)
		var wg sync.WaitGroup
		for _, tracer := range []string{`{"tracer": "erc7562Tracer"}`, `{"tracer": "keccak256PreimageTracer"}`} {
			for _, code := range []string{keccakDistinct, keccakSame} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for time.Now().Before(end) {
						answer, err := traceCall(client, url, tracer, code)
						if err != nil {
							t.Error(err)
							return
						}
						answer, _, _ = strings.Cut(answer, ",")
						mu.Lock()
						answers[answer]++
						mu.Unlock()
					}
				}()
			}
		}
		wg.Wait()
	})
	rise := procStatus(t, pid, "VmHWM") - before
	t.Logf("four keccak-loop traces at once for %v (answers %v): %.2f blocks/s (%.2f quiet before), peak RSS %d MiB above before",
		spell, answers, loaded, quiet, rise>>20)
	if rise > 2*rssBound {
		t.Errorf("four traces at once: peak RSS %d MiB above before, want under %d", rise>>20, 2*rssBound>>20)
	}
	switch {
	case quiet < 4.8:
		t.Logf("the machine sealed %.2f blocks/s with no trace running: too busy to judge the rate under traces", quiet)
	case loaded < 4.5:
		t.Errorf("four traces at once: %.2f blocks/s, want at least 4.5 (%.2f with none)", loaded, quiet)
	}
}

// blockRate is the blocks sealed a second while during runs.
func blockRate(t *testing.T, client *http.Client, url string, during func()) float64 {
	t.Helper()
	h0, t0 := blockNumber(t, client, url), time.Now()
	during()
	h1, t1 := blockNumber(t, client, url), time.Now()
	return float64(h1-h0) / t1.Sub(t0).Seconds()
}

func blockNumber(t *testing.T, client *http.Client, url string) uint64 {
	t.Helper()
	resp, err := post(client, url, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`)
	if err != nil {
		t.Fatal(err)
	}
	var n hexutil.Uint64
	if err := json.Unmarshal(resp.Result, &n); err != nil {
		t.Fatalf("eth_blockNumber: %s: %v", resp.Result, err)
	}
	return uint64(n)
}

// traceCall traces code (at a state override) under tracer with the
// call's whole gas, and says how it was answered: "result, N bytes" or
// the error's code and message.
func traceCall(client *http.Client, url, tracer, code string) (string, error) {
	var cfg map[string]any
	if err := json.Unmarshal([]byte(tracer), &cfg); err != nil {
		return "", err
	}
	const to = "0x00000000000000000000000000000000000c0de1"
	cfg["stateOverrides"] = map[string]any{to: map[string]any{"code": code}}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "debug_traceCall",
		"params": []any{map[string]any{"to": to, "gas": "0x2faf080"}, "latest", cfg}})
	if err != nil {
		return "", err
	}
	resp, err := post(client, url, string(body))
	switch {
	case err != nil:
		return "", fmt.Errorf("%s: %w", tracer, err)
	case resp.Error != nil:
		return fmt.Sprintf("%d %.60s", resp.Error.Code, resp.Error.Message), nil
	default:
		return fmt.Sprintf("result, %d bytes", len(resp.Result)), nil
	}
}

type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post sends one JSON-RPC request and decodes its answer.
func post(client *http.Client, url, body string) (rpcAnswer, error) {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return rpcAnswer{}, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return rpcAnswer{}, err
	}
	var a rpcAnswer
	if err := json.Unmarshal(buf.Bytes(), &a); err != nil || (a.Result == nil && a.Error == nil) {
		return rpcAnswer{}, fmt.Errorf("HTTP %d %.200s", resp.StatusCode, buf.String())
	}
	return a, nil
}

// procStatus is a memory field of /proc/PID/status (VmRSS, VmHWM) in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// resetPeak makes VmHWM the RSS of now, so that it measures what comes
// next (Linux's clear_refs 5).
func resetPeak(t *testing.T, pid int) {
	t.Helper()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak RSS: %v", err)
	}
}
