package abuse

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/loadtest/rpcclient"
)

// The tracing attacks. trace-crash sends the requests that took a node
// down with one unauthenticated debug_traceCall: a tracer without a Stop
// (keccak256PreimageTracer, alone and in a muxTracer) stopped by its
// timeout in a timer's goroutine, and by its client's hang-up in the call
// pool's. trace-memory runs traces of a loop that hashes a megabyte of
// memory a turn: go-ethereum's tracers copy every preimage, and held
// gigabytes for one request before the node bounded them.

// traceTarget is the address the traced code is put at (a state override).
const traceTarget = "0x00000000000000000000000000000000000c0de1"

// spinCode loops until its gas runs out: JUMPDEST PUSH1 0 JUMP.
const spinCode = "0x5b600056"

// keccakLoopProgram hashes a megabyte of memory a turn until its gas runs
// out; with distinct, the turn's number is stored first, so that every
// preimage differs.
//
//	n = 0
//	loop: n++; [MSTORE(0, n)]; POP(KECCAK256(0, 1 MiB)); goto loop
func keccakLoopProgram(distinct bool) []byte {
	a := newAsm()
	a.push(0)
	a.label("loop")
	a.push(1).op(vm.ADD)
	if distinct {
		a.op(vm.DUP1).push(0).op(vm.MSTORE)
	}
	a.push(1<<20).push(0).op(vm.KECCAK256, vm.POP)
	a.jump("loop")
	return a.mustBytes()
}

// traceCallBody is debug_traceCall of code at traceTarget (or, without
// code, of the init code data) with the server's gas cap, under the
// tracer options opts.
func traceCallBody(code, data []byte, opts map[string]any) ([]byte, error) {
	call := map[string]any{"gas": "0x2faf080"}
	cfg := map[string]any{}
	for k, v := range opts {
		cfg[k] = v
	}
	if code != nil {
		call["to"] = traceTarget
		cfg["stateOverrides"] = map[string]any{traceTarget: map[string]any{"code": hexutil.Bytes(code)}}
	} else {
		call["input"] = hexutil.Bytes(data)
	}
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "debug_traceCall", "params": []any{call, "latest", cfg}})
}

// traceCrash sends the requests that crashed the node and checks, after
// each, that it answers: it must answer the timeouts with go-ethereum's
// "execution timeout", and stop the trace whose client left.
func (b *battery) traceCrash(ctx context.Context) outcome {
	var out outcome
	spin := hexutil.MustDecode(spinCode)
	for _, c := range []struct {
		name string
		opts map[string]any
	}{
		{"keccak256PreimageTracer", map[string]any{"tracer": "keccak256PreimageTracer", "timeout": "1ms"}},
		{"muxTracer over it", map[string]any{"tracer": "muxTracer", "timeout": "1ms",
			"tracerConfig": map[string]any{"callTracer": map[string]any{}, "keccak256PreimageTracer": map[string]any{}}}},
	} {
		body, err := traceCallBody(spin, nil, c.opts)
		if err != nil {
			out.err = err
			return out
		}
		msg, err := b.rpcError(ctx, body)
		switch {
		case err != nil:
			out.unexpectedf("timeout 1ms under %s: no answer (%v)", c.name, err)
		case msg != "execution timeout":
			out.unexpectedf("timeout 1ms under %s: %q, want \"execution timeout\"", c.name, msg)
		default:
			out.detailf("timeout 1ms under %s: %q", c.name, msg)
		}
		b.stillServes(ctx, &out, "the timeout under "+c.name)
	}
	b.hangUpMidTrace(ctx, &out)
	return out
}

// hangUpMidTrace sends a trace that runs for seconds (MODEXP calls, under
// keccak256PreimageTracer) and closes its connection half a second
// later: the call pool's monitor stops the trace.
func (b *battery) hangUpMidTrace(ctx context.Context, out *outcome) {
	program, err := b.modexpCall(1 << 41)
	if err != nil {
		out.err = err
		return
	}
	body, err := traceCallBody(nil, program, map[string]any{"tracer": "keccak256PreimageTracer", "timeout": "1m"})
	if err != nil {
		out.err = err
		return
	}
	answer, err := b.sendAndAbandon(ctx, body, 500*time.Millisecond)
	if err != nil {
		out.unexpectedf("hang-up mid-trace: %v", err)
		return
	}
	left := time.Now()
	out.detailf("a trace of MODEXP calls under keccak256PreimageTracer, its client gone after 500ms: %s", answer)
	if b.cfg.Metrics != "" {
		b.watchStop(ctx, left, out)
	}
	b.stillServes(ctx, out, "the hang-up")
}

// watchStop checks that the call pool is idle within two seconds of the
// Client's hang-up: the trace would run on for seconds.
func (b *battery) watchStop(ctx context.Context, left time.Time, out *outcome) {
	client := b.freshClient()
	for time.Since(left) < 2*time.Second {
		g, err := readGauges(ctx, client, b.cfg.Metrics, "call_pool_running")
		if err != nil {
			out.detailf("call pool not read: %v", err)
			return
		}
		if g["call_pool_running"] == 0 {
			out.detailf("the trace stopped %s after its client left", fmtDur(time.Since(left)))
			return
		}
		if !sleepCtx(ctx, 50*time.Millisecond) {
			return
		}
	}
	out.unexpectedf("the trace still ran 2s after its client left")
}

// stillServes checks that the node's process lives on and answers GET
// /health and eth_blockNumber, after what.
func (b *battery) stillServes(ctx context.Context, out *outcome, what string) {
	problems := []string{}
	if err := b.alive(); err != nil {
		problems = append(problems, err.Error())
	} else {
		if err := b.health(ctx); err != nil {
			problems = append(problems, err.Error())
		}
		if err := b.freshBlockNumber(ctx); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		out.unexpectedf("after %s: %s", what, strings.Join(problems, "; "))
	}
}

// Error posts body on a new connection and returns the error message
// it was answered with ("" for a result).
func (b *battery) rpcError(ctx context.Context, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.cfg.URL, strings.NewReader(string(body)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.freshClient().Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var env rpcclient.Envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return "", fmt.Errorf("HTTP %d: %w", resp.StatusCode, err)
	}
	if env.Error != nil {
		return env.Error.Message, nil
	}
	return "", nil
}

// freshBlockNumber asks for eth_blockNumber on a new connection.
func (b *battery) freshBlockNumber(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.cfg.URL,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
	if err != nil {
		return fmt.Errorf("eth_blockNumber: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.freshClient().Do(req)
	if err != nil {
		return fmt.Errorf("eth_blockNumber: %w", err)
	}
	defer resp.Body.Close()
	var env rpcclient.Envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Error != nil || len(env.Result) == 0 {
		return fmt.Errorf("eth_blockNumber: HTTP %d, %v %v", resp.StatusCode, err, env.Error)
	}
	return nil
}

// traceMemory keeps four keccak-loop traces running for -duration:
// erc7562Tracer and keccak256PreimageTracer, each over distinct preimages
// and over one preimage again and again.
func (b *battery) traceMemory(ctx context.Context) outcome {
	var out outcome
	var bodies [][]byte
	var names []string
	for _, tracer := range []string{"erc7562Tracer", "keccak256PreimageTracer"} {
		for _, distinct := range []bool{true, false} {
			body, err := traceCallBody(keccakLoopProgram(distinct), nil, map[string]any{"tracer": tracer})
			if err != nil {
				out.err = err
				return out
			}
			bodies = append(bodies, body)
			names = append(names, fmt.Sprintf("%s (%s preimages)", tracer, map[bool]string{true: "distinct", false: "equal"}[distinct]))
		}
	}
	rs := b.repeatEach(ctx, bodies, nil)
	for i, r := range rs {
		out.detailf("%s, repeated for %v: %s", names[i], b.cfg.Duration, describeStreams(r, ""))
	}
	return out
}
