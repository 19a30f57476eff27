package abuse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/internal/procstat"
	"github.com/stocknode/stocknode/loadtest/rpcclient"
	"github.com/stocknode/stocknode/loadtest/workload"
	"github.com/stocknode/stocknode/loadtest/wsprobe"
)

// measurement runs the probes that watch the node during one attack: the
// canary, the block rate and the node's memory. Each has its own
// connection from the canary's address (not the attacker's), as a normal
// user of the node would.
type measurement struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	canary canaryStats
	blocks blockMeter
	rss    rssPeak
}

// measured is what the probes saw.
type measured struct {
	canary       latency.Durations
	canaryFailed int
	canaryErrors []string
	blocksPerSec *float64
	rssPeak      int64
}

func (b *battery) startMeasuring(ctx context.Context) (*measurement, error) {
	canaryRPC, err := rpcclient.New(b.cfg.URL, 1)
	if err != nil {
		return nil, err
	}
	blockRPC, err := rpcclient.New(b.cfg.URL, 1)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	m := &measurement{cancel: cancel, canary: canaryStats{hist: latency.New()}}
	m.wg.Add(3)
	go func() {
		defer m.wg.Done()
		defer canaryRPC.HTTP.CloseIdleConnections()
		m.canary.run(ctx, canaryRPC, b.cfg.CanaryInterval, b.cfg.CanaryTimeout)
	}()
	go func() {
		defer m.wg.Done()
		defer blockRPC.HTTP.CloseIdleConnections()
		m.blocks.run(ctx, blockRPC, 250*time.Millisecond, b.cfg.StepTimeout)
	}()
	go func() {
		defer m.wg.Done()
		m.rss.run(ctx, b.cfg.PID, 100*time.Millisecond)
	}()
	return m, nil
}

// stop ends the probes and returns what they saw.
func (m *measurement) stop() measured {
	m.cancel()
	m.wg.Wait()
	out := measured{canary: m.canary.hist.Summary(), canaryFailed: m.canary.failed, canaryErrors: m.canary.errors, rssPeak: m.rss.peak}
	if r, ok := m.blocks.rate(); ok {
		out.blocksPerSec = &r
	}
	return out
}

// canaryStats is the canary's record: one eth_getBalance of a development
// account at latest per interval, over one keep-alive connection. A request
// that fails or times out is a failed sample whose latency is the timeout.
type canaryStats struct {
	hist   *latency.Hist
	failed int
	errors []string // the first few distinct failures
}

func (c *canaryStats) run(ctx context.Context, rpc *rpcclient.Client, every, timeout time.Duration) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["` + workload.DevAddress(0).Hex() + `","latest"]}`)
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		t0 := time.Now()
		_, err := postTimeout(rpc, body, timeout)
		took := time.Since(t0)
		if err != nil {
			c.failed++
			took = timeout
			c.noteError(err)
		}
		c.hist.Record(took)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

func (c *canaryStats) noteError(err error) {
	msg := err.Error()
	if len(msg) > 160 {
		msg = msg[:160]
	}
	for _, e := range c.errors {
		if e == msg {
			return
		}
	}
	if len(c.errors) < 3 {
		c.errors = append(c.errors, msg)
	}
}

// postTimeout is Client.post bounded by timeout (connecting included); a
// JSON-RPC error answer is an error too.
func postTimeout(c *rpcclient.Client, body []byte, timeout time.Duration) ([]byte, error) {
	b, err := c.PostWithin(body, timeout)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(b, rpcclient.ResultMember) || bytes.Contains(b, rpcclient.ErrorMember) {
		return nil, fmt.Errorf("no result: %.120s", b)
	}
	return b, nil
}

// blockMeter polls eth_blockNumber; the rate is from the first and last
// answers, each dated at the middle of its round trip.
type blockMeter struct {
	samples []blockSample
}

type blockSample struct {
	at     time.Time
	number uint64
}

func (m *blockMeter) run(ctx context.Context, rpc *rpcclient.Client, every, timeout time.Duration) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		t0 := time.Now()
		resp, err := postTimeout(rpc, body, timeout)
		if n, ok := parseBlockNumber(resp); err == nil && ok {
			m.samples = append(m.samples, blockSample{at: t0.Add(time.Since(t0) / 2), number: n})
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

func parseBlockNumber(resp []byte) (uint64, bool) {
	var env rpcclient.Envelope
	var n hexutil.Uint64
	if resp == nil || json.Unmarshal(resp, &env) != nil || env.Result == nil || json.Unmarshal(env.Result, &n) != nil {
		return 0, false
	}
	return uint64(n), true
}

// rate is blocks per second between the first and the last sample; it
// needs samples at least a second apart.
func (m *blockMeter) rate() (float64, bool) {
	if len(m.samples) < 2 {
		return 0, false
	}
	first, last := m.samples[0], m.samples[len(m.samples)-1]
	span := last.at.Sub(first.at).Seconds()
	if span < 1 {
		return 0, false
	}
	r := float64(last.number-first.number) / span
	return math.Round(r*100) / 100, true
}

// rssPeak follows the node's resident memory.
type rssPeak struct {
	peak int64
}

func (p *rssPeak) run(ctx context.Context, pid int, every time.Duration) {
	if pid <= 0 {
		return
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		if rss, err := procstat.RSS(pid); err == nil {
			p.peak = max(p.peak, rss)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// answersAfter checks, each on a new connection, that the node serves
// GET /health, eth_getBalance and a WebSocket eth_blockNumber; it returns
// what failed.
func (b *battery) answersAfter(ctx context.Context) []string {
	var problems []string
	if err := b.health(ctx); err != nil {
		problems = append(problems, err.Error())
	}
	if err := b.freshBalance(ctx); err != nil {
		problems = append(problems, err.Error())
	}
	if err := b.wsBlockNumber(); err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}

// freshClient is a net/http client that opens a new connection per
// request from the default source address: what a new user does.
func (b *battery) freshClient() *http.Client {
	return &http.Client{Timeout: b.cfg.StepTimeout, Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}
}

func (b *battery) health(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(b.cfg.URL, "/")+"/health", nil)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	resp, err := b.freshClient().Do(req)
	if err != nil {
		return fmt.Errorf("GET /health: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /health: HTTP %d", resp.StatusCode)
	}
	return nil
}

func (b *battery) freshBalance(ctx context.Context) error {
	body := `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["` + workload.DevAddress(0).Hex() + `","latest"]}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.cfg.URL, strings.NewReader(body))
	if err != nil {
		return fmt.Errorf("eth_getBalance: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.freshClient().Do(req)
	if err != nil {
		return fmt.Errorf("eth_getBalance: %w", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(data, rpcclient.ResultMember) {
		return fmt.Errorf("eth_getBalance: HTTP %d: %.120s", resp.StatusCode, data)
	}
	return nil
}

// wsBlockNumber opens a WebSocket and asks for eth_blockNumber over it.
func (b *battery) wsBlockNumber() error {
	c, err := wsprobe.Dial(b.cfg.WSURL, b.cfg.StepTimeout)
	if err != nil {
		return fmt.Errorf("WebSocket: %w", err)
	}
	defer c.Close()
	if err := c.Write(wsprobe.OpText, []byte(`{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`)); err != nil {
		return fmt.Errorf("WebSocket: %w", err)
	}
	for {
		msg, _, err := c.Next()
		if err != nil {
			return fmt.Errorf("WebSocket eth_blockNumber: %w", err)
		}
		if bytes.Contains(msg, []byte(`"id":7`)) {
			if !bytes.Contains(msg, rpcclient.ResultMember) {
				return fmt.Errorf("WebSocket eth_blockNumber: %.120s", msg)
			}
			return nil
		}
	}
}

// nodeUp waits (up to the recovery time) until the node's process exists
// and GET /health answers 200.
func (b *battery) nodeUp(ctx context.Context) error {
	deadline := time.Now().Add(b.cfg.Recover)
	for {
		err := b.alive()
		if err == nil {
			err = b.health(ctx)
		}
		if err == nil || errors.Is(err, errNodeGone) || !time.Now().Before(deadline) || ctx.Err() != nil {
			return err
		}
		sleepCtx(ctx, 500*time.Millisecond)
	}
}

var errNodeGone = errors.New("the node's process is gone")

// waitQuiet waits (up to the recovery time) until the node's call pool is
// idle, so that an attack is not measured on the leftovers of the last
// one (an abandoned batch may run on for minutes). It says what was left
// when the node did not get quiet; without -metrics it cannot tell.
func (b *battery) waitQuiet(ctx context.Context) string {
	if b.cfg.Metrics == "" {
		return ""
	}
	client := b.freshClient()
	deadline := time.Now().Add(b.cfg.Recover)
	for {
		g, err := readGauges(ctx, client, b.cfg.Metrics, "call_pool_running", "call_pool_waiting")
		if err != nil {
			return "call pool not read before the attack: " + err.Error()
		}
		running, waiting := g["call_pool_running"], g["call_pool_waiting"]
		if running+waiting == 0 {
			return ""
		}
		if !time.Now().Before(deadline) || !sleepCtx(ctx, 500*time.Millisecond) {
			return fmt.Sprintf("started with the node still running %.0f calls (%.0f waiting) left from before", running, waiting)
		}
	}
}

// alive reports whether the node's process still exists (when -pid is given).
func (b *battery) alive() error {
	if b.cfg.PID <= 0 {
		return nil
	}
	if _, err := procstat.RSS(b.cfg.PID); err != nil {
		return fmt.Errorf("%w (pid %d: %v)", errNodeGone, b.cfg.PID, err)
	}
	return nil
}

// readGauges reads Prometheus text from url and returns the named
// samples' values (the first sample of each name, labels ignored).
func readGauges(ctx context.Context, client *http.Client, url string, names ...string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: HTTP %d", resp.StatusCode)
	}
	return parseGauges(resp.Body, names...)
}

// parseGauges parses Prometheus text (expfmt) and returns the named
// samples' values: the first sample of each name, labels ignored.
func parseGauges(r io.Reader, names ...string) (map[string]float64, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	out := map[string]float64{}
	for _, n := range names {
		f, ok := families[n]
		if !ok || len(f.GetMetric()) == 0 {
			return out, fmt.Errorf("metrics: no %s", n)
		}
		m := f.GetMetric()[0]
		switch {
		case m.Gauge != nil:
			out[n] = m.GetGauge().GetValue()
		case m.Counter != nil:
			out[n] = m.GetCounter().GetValue()
		case m.Untyped != nil:
			out[n] = m.GetUntyped().GetValue()
		default:
			return out, fmt.Errorf("metrics: %s is not a gauge, counter or untyped sample", n)
		}
	}
	return out, nil
}

// sleepCtx sleeps for d or until ctx ends; false when ctx ended.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// attackerDialer dials from the attacker's source address, so that the
// node can tell the attack from the canary (127.0.0.1) as it could tell
// two clients on the internet apart.
func (b *battery) attackerDialer(timeout time.Duration) *net.Dialer {
	d := &net.Dialer{Timeout: timeout}
	if b.attackerIP != nil {
		d.LocalAddr = &net.TCPAddr{IP: b.attackerIP}
	}
	return d
}

// attackerRPC is a Client whose connections come from the attacker's
// address.
func (b *battery) attackerRPC(conns int) (*rpcclient.Client, error) {
	c, err := rpcclient.New(b.cfg.URL, conns)
	if err != nil {
		return nil, err
	}
	c.HTTP.ReadTimeout, c.HTTP.WriteTimeout = b.cfg.RequestTimeout, b.cfg.RequestTimeout
	c.HTTP.DialTimeout = func(addr string, timeout time.Duration) (net.Conn, error) {
		return b.attackerDialer(timeout).Dial("tcp", addr)
	}
	return c, nil
}

// attackerHTTP is a net/http client from the attacker's address for the
// requests whose answers are too large to hold: they are streamed.
func (b *battery) attackerHTTP(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         b.attackerDialer(b.cfg.StepTimeout).DialContext,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		DisableCompression:  true,
	}}
}
