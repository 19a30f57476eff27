package abuse

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/loadtest/rpcclient"
	"github.com/stocknode/stocknode/loadtest/target"
)

// The CPU attacks: eth_calls whose init code keeps a core busy for as
// long as the gas cap allows, and a batch of them that its client
// abandons.

// callBody is an eth_call of init code (a contract creation) at latest,
// with the server's default gas (its cap).
func callBody(dst []byte, id uint64, code []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendUint(dst, id, 10)
	dst = append(dst, `,"method":"eth_call","params":[{"data":"0x`...)
	dst = hex.AppendEncode(dst, code)
	return append(dst, `"},"latest"]}`...)
}

func (b *battery) blake2fCall(salt uint64) ([]byte, error) {
	if b.cfg.Blake2fRounds > math.MaxUint32 {
		return nil, fmt.Errorf("-blake2f-rounds %d: BLAKE2F takes at most %d", b.cfg.Blake2fRounds, uint32(math.MaxUint32))
	}
	return blake2fProgram(uint32(b.cfg.Blake2fRounds), salt), nil
}

func (b *battery) modexpCall(salt uint64) ([]byte, error) {
	return modexpProgram(modexpShape{ExpLen: b.cfg.ModexpExpBytes, ModLen: b.cfg.ModexpModBytes}, salt)
}

func (b *battery) gasBurnCall(salt uint64) ([]byte, error) { return gasBurnProgram(salt), nil }

// callStats is one caller's record of its calls.
type callStats struct {
	hist           *latency.Hist
	ok, transport  int
	answeredErrors map[string]int
	firstTransport string
}

func newCallStats() *callStats {
	return &callStats{hist: latency.New(), answeredErrors: map[string]int{}}
}

func (s *callStats) merge(o *callStats) {
	s.hist.Merge(o.hist)
	s.ok += o.ok
	s.transport += o.transport
	for m, n := range o.answeredErrors {
		s.answeredErrors[m] += n
	}
	if s.firstTransport == "" {
		s.firstTransport = o.firstTransport
	}
}

// Record classifies one call's answer.
func (s *callStats) record(took time.Duration, status int, body []byte, err error) {
	s.hist.Record(took)
	switch {
	case err != nil:
		s.transport++
		if s.firstTransport == "" {
			s.firstTransport = err.Error()
		}
	case status != fasthttp.StatusOK:
		s.answeredErrors[fmt.Sprintf("HTTP %d", status)]++
	default:
		if msg, failed := rpcErrorMessage(body); failed {
			s.answeredErrors[msg]++
		} else {
			s.ok++
		}
	}
}

// rpcErrorMessage is the message of a JSON-RPC error answer.
func rpcErrorMessage(body []byte) (string, bool) {
	if !bytes.Contains(body, rpcclient.ErrorMember) {
		return "", false
	}
	var env rpcclient.Envelope
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		return rpcclient.NormalizeReject(env.Error.Message), true
	}
	if len(body) > 80 {
		body = body[:80]
	}
	return "unparsable: " + string(body), true
}

func (s *callStats) describe() string {
	sum := s.hist.Summary()
	errs := 0
	for _, n := range s.answeredErrors {
		errs += n
	}
	line := fmt.Sprintf("%d calls answered (%d results, %d errors), %d without an answer; latency p50 %s, max %s",
		s.ok+errs, s.ok, errs, s.transport, fmtDur(sum.P50), fmtDur(sum.Max))
	msgs := make([]string, 0, len(s.answeredErrors))
	for m := range s.answeredErrors {
		msgs = append(msgs, m)
	}
	slices.SortFunc(msgs, func(a, b string) int { return s.answeredErrors[b] - s.answeredErrors[a] })
	for i, m := range msgs {
		if i == 3 {
			break
		}
		line += fmt.Sprintf("; %d× %q", s.answeredErrors[m], m)
	}
	if s.firstTransport != "" {
		line += "; first unanswered: " + s.firstTransport
	}
	return line
}

func (b *battery) heavyCallsAttack(program func(salt uint64) ([]byte, error)) func(context.Context) outcome {
	return func(ctx context.Context) outcome { return b.heavyCalls(ctx, program) }
}

// heavyCalls keeps -heavy-callers eth_calls of program running for
// -duration: each caller sends its next call when the last is answered.
func (b *battery) heavyCalls(ctx context.Context, program func(salt uint64) ([]byte, error)) outcome {
	var out outcome
	if _, err := program(0); err != nil {
		out.err = err
		return out
	}
	rpc, err := b.attackerRPC(b.cfg.HeavyCallers)
	if err != nil {
		out.err = err
		return out
	}
	defer rpc.HTTP.CloseIdleConnections()
	end := time.Now().Add(b.cfg.Duration)
	stats := make([]*callStats, b.cfg.HeavyCallers)
	var wg sync.WaitGroup
	for c := range stats {
		stats[c] = newCallStats()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body []byte
			for seq := uint64(1); time.Now().Before(end) && ctx.Err() == nil; seq++ {
				code, _ := program(uint64(c)<<24 | seq)
				body = callBody(body[:0], seq, code)
				t0 := time.Now()
				status, resp, err := b.doAttack(ctx, rpc, body)
				stats[c].record(time.Since(t0), status, resp, err)
			}
		}()
	}
	wg.Wait()
	all := newCallStats()
	for _, s := range stats {
		all.merge(s)
	}
	out.detailf("%d callers for %v: %s", b.cfg.HeavyCallers, b.cfg.Duration, all.describe())
	return out
}

// doAttack posts body and returns the answer, within -request-timeout and
// ctx: a call cut short by the attack's end is abandoned, as a client that
// gives up would.
func (b *battery) doAttack(ctx context.Context, rpc *rpcclient.Client, body []byte) (int, []byte, error) {
	deadline := time.Now().Add(b.cfg.RequestTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	return rpc.Exchange(body, deadline)
}

// abandonedBatch sends one batch of -batch-calls BLAKE2F calls, closes the
// connection -batch-abandon later, and watches the node's call pool: its
// work for a client that is gone must stop.
func (b *battery) abandonedBatch(ctx context.Context) outcome {
	var out outcome
	body := []byte{'['}
	for i := range b.cfg.BatchCalls {
		code, err := b.blake2fCall(1<<40 | uint64(i))
		if err != nil {
			out.err = err
			return out
		}
		if i > 0 {
			body = append(body, ',')
		}
		body = callBody(body, uint64(i), code)
	}
	body = append(body, ']')
	answer, err := b.sendAndAbandon(ctx, body, b.cfg.BatchAbandon)
	if err != nil {
		out.err = err
		return out
	}
	left := time.Now()
	out.detailf("a batch of %d BLAKE2F calls (%s), abandoned after %v: %s", b.cfg.BatchCalls, byteSize(int64(len(body))), b.cfg.BatchAbandon, answer)
	if b.cfg.Metrics == "" {
		out.detailf("no -metrics: the node's call pool was not watched")
		sleepCtx(ctx, b.cfg.BatchWatch)
		return out
	}
	b.watchPool(ctx, left, &out)
	return out
}

// sendAndAbandon sends body as one request from the attacker's address
// and closes the connection after wait; it says what the node answered
// meanwhile, if anything.
func (b *battery) sendAndAbandon(ctx context.Context, body []byte, wait time.Duration) (string, error) {
	addr, uri, host, err := target.HostAndPath(b.cfg.URL)
	if err != nil {
		return "", err
	}
	conn, err := b.attackerDialer(b.cfg.StepTimeout).DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", uri, host, len(body))
	conn.SetWriteDeadline(time.Now().Add(b.cfg.StepTimeout))
	if _, err := conn.Write(append([]byte(head), body...)); err != nil {
		return "", fmt.Errorf("send the batch: %w", err)
	}
	sent := time.Now()
	conn.SetReadDeadline(sent.Add(wait))
	first := make([]byte, 200)
	n, err := io.ReadAtLeast(conn, first, 1)
	if n > 0 {
		line, _, _ := strings.Cut(string(first[:n]), "\r\n")
		return fmt.Sprintf("the node answered after %s (%q)", fmtDur(time.Since(sent)), line), nil
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return "no answer by then", nil
	}
	return fmt.Sprintf("the connection ended after %s (%v)", fmtDur(time.Since(sent)), err), nil
}

// watchPool samples the call pool's gauges every second from the moment
// the client left: the pool must be idle -batch-watch later. When it is
// not, it watches as long again to say when it was.
func (b *battery) watchPool(ctx context.Context, left time.Time, out *outcome) {
	client := b.freshClient()
	busy := func() (running, waiting float64, err error) {
		g, err := readGauges(ctx, client, b.cfg.Metrics, "call_pool_running", "call_pool_waiting")
		return g["call_pool_running"], g["call_pool_waiting"], err
	}
	var idleAt time.Duration = -1
	check := left.Add(b.cfg.BatchWatch)
	reported := false
	for end := left.Add(2 * b.cfg.BatchWatch); time.Now().Before(end); {
		if !sleepCtx(ctx, time.Second) {
			return
		}
		running, waiting, err := busy()
		if err != nil {
			out.err = err
			return
		}
		if running+waiting == 0 && idleAt < 0 {
			idleAt = time.Since(left)
		}
		if !reported && !time.Now().Before(check) {
			reported = true
			out.detailf("%s after the client left: call_pool_running %.0f, call_pool_waiting %.0f", fmtDur(time.Since(left)), running, waiting)
			if running+waiting > 0 {
				out.unexpectedf("the node still runs %.0f calls and has %.0f waiting %v after their client left", running, waiting, b.cfg.BatchWatch)
			} else {
				return
			}
		}
	}
	if idleAt >= 0 {
		out.detailf("the call pool was idle %s after the client left", fmtDur(idleAt))
	} else {
		out.detailf("the call pool was still busy %v after the client left", 2*b.cfg.BatchWatch)
	}
}
