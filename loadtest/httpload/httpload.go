// Package httpload is loadtest's http mode: keep-alive connections sending
// one JSON-RPC workload (or REST pages) as fast as the server answers, or at
// an offered rate, and the throughput and latency it measured.
package httpload

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/internal/rawconn"
	"github.com/stocknode/stocknode/loadtest/pacer"
	"github.com/stocknode/stocknode/loadtest/rpcclient"
	"github.com/stocknode/stocknode/loadtest/target"
	"github.com/stocknode/stocknode/loadtest/workload"
)

// Config is an HTTP load: the endpoint, the method mix and tag, the
// connection counts to sweep and each run's length (Flags gives the
// defaults).
type Config struct {
	URL      string
	Method   string
	Tag      string
	Conns    string // comma-separated list: a sweep runs each in turn
	Duration time.Duration
	Warmup   time.Duration
	Token    string
	Pipeline int
	Timeout  time.Duration
	Rate     float64
	Paths    string // the pages workload's paths
	Bust     bool   // pages: a query parameter of its own per request
	Hashes   string // traceTransaction: a file of transaction hashes, one per line
	hashes   []string
	Blocks   string // traceBlockByNumber: comma-separated block numbers
	blocks   []string
}

// Flags registers the http mode's flags on fs and returns the Config they
// fill.
func Flags(fs *flag.FlagSet) *Config {
	c := new(Config)
	fs.StringVar(&c.URL, "url", "http://127.0.0.1:8545", "JSON-RPC HTTP endpoint")
	fs.StringVar(&c.Method, "method", kindGetBalance, "getBalance | call | callDistinct (call, each request of another address: no answer repeats) | blockNumber | getTransactionCount | getBlockByNumber | estimateGas | mix | getProof (eth_getProof of -token's balance slot of each read address) | traceTransaction (debug_traceTransaction with callTracer of each -hashes transaction in turn) | traceBlockByNumber (debug_traceBlockByNumber with callTracer of each -blocks block in turn) | rest (GETs of the Tokenized Stocks REST API: the token list, the chains, each token's total supply) | pages (GETs of -paths in turn: explorer pages, any GET)")
	fs.StringVar(&c.Tag, "tag", "latest", "block tag of the requests: latest | pending")
	fs.StringVar(&c.Conns, "c", "64", "keep-alive connections; a list (1,4,16,64,256) runs each in turn")
	fs.DurationVar(&c.Duration, "duration", 6*time.Second, "measurement time per connection count")
	fs.DurationVar(&c.Warmup, "warmup", 500*time.Millisecond, "load before the measurement starts (connections open, caches warm), not counted")
	fs.StringVar(&c.Token, "token", workload.Token.Hex(), "ERC-20 whose balanceOf the call workload reads")
	fs.IntVar(&c.Pipeline, "pipeline", 1, "requests in flight per connection (HTTP pipelining through fasthttp.PipelineClient when > 1)")
	fs.DurationVar(&c.Timeout, "timeout", 10*time.Second, "read and write timeout of one request")
	fs.StringVar(&c.Paths, "paths", "/", "with -method pages: comma-separated paths to GET in turn, e.g. /,/tokens,/block/1")
	fs.StringVar(&c.Hashes, "hashes", "", "with -method traceTransaction: a file of transaction hashes (0x-prefixed, one per line) to trace in turn")
	fs.StringVar(&c.Blocks, "blocks", "", "with -method traceBlockByNumber: comma-separated block numbers (decimal or 0x-prefixed) to trace in turn")
	fs.BoolVar(&c.Bust, "bust", false, "with -method pages: add a query parameter of its own (n=<i>) to every request, so no cache of the server's answers it twice")
	fs.Float64Var(&c.Rate, "rate", 0, "requests/s to offer in all, spread evenly over the connections (0: each connection sends its next request as soon as the last is answered); latency is still timed from each actual send, so a server that cannot keep up shows as a lower rate, not as queueing inside the generator")
	return c
}

// RunReport is one measurement at one connection count.
type RunReport struct {
	URL             string            `json:"url"`
	Method          string            `json:"method"`
	Tag             string            `json:"tag"`
	Conns           int               `json:"connections"`
	Pipeline        int               `json:"pipeline"`
	Rate            float64           `json:"offeredRate,omitempty"`
	Seconds         float64           `json:"seconds"`
	Requests        uint64            `json:"requests"`
	ReqPerSec       float64           `json:"requestsPerSecond"`
	OK              uint64            `json:"ok"`
	HTTPErrors      uint64            `json:"httpErrors"`
	TransportErrors uint64            `json:"transportErrors"`
	RPCErrors       uint64            `json:"rpcErrors"`
	ErrorSamples    []string          `json:"errorSamples,omitempty"`
	PerKind         map[string]uint64 `json:"requestsPerKind,omitempty"`
	Latency         latency.Durations `json:"latency"`
	Mean            time.Duration     `json:"latencyMean"`
}

// Report is one RunReport per connection count swept.
type Report struct {
	Runs []RunReport `json:"runs"`
}

func (r Report) String() string {
	var b strings.Builder
	for i, run := range r.Runs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(run.String())
	}
	return b.String()
}

func (r RunReport) String() string {
	var b strings.Builder
	pipe := ""
	if r.Pipeline > 1 {
		pipe = fmt.Sprintf(" pipeline=%d", r.Pipeline)
	}
	if r.Rate > 0 {
		pipe += fmt.Sprintf(" offered=%.0f/s", r.Rate)
	}
	fmt.Fprintf(&b, "http %s %s c=%d%s %s: %.0f req/s (%d in %.2fs)\n", r.Method, r.Tag, r.Conns, pipe, r.URL, r.ReqPerSec, r.Requests, r.Seconds)
	fmt.Fprintf(&b, "  latency %v mean=%v\n", r.Latency, r.Mean.Round(time.Microsecond))
	fmt.Fprintf(&b, "  errors: http %d, transport %d, json-rpc %d", r.HTTPErrors, r.TransportErrors, r.RPCErrors)
	for _, s := range r.ErrorSamples {
		fmt.Fprintf(&b, "\n  e.g. %s", s)
	}
	if len(r.PerKind) > 1 {
		b.WriteString("\n  requests:")
		for _, w := range mixWeights {
			fmt.Fprintf(&b, " %s=%d", w.kind, r.PerKind[w.kind])
		}
	}
	return b.String()
}

// ParseCounts reads a count or a sweep of them: "64" or "1,4,16,64,256"
// (connections here, compare's flood senders).
func ParseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: want positive counts, such as 64 or 1,4,16,64", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// Run sends cfg's requests over each connection count in turn and reports
// throughput and latency for each.
func Run(ctx context.Context, cfg Config) (Report, error) {
	var report Report
	if err := target.CheckLoopback(cfg.URL); err != nil {
		return report, err
	}
	if !validKind(cfg.Method) && cfg.Method != kindREST && cfg.Method != kindPages {
		return report, fmt.Errorf("-method %q: want getBalance, call, callDistinct, blockNumber, getTransactionCount, getBlockByNumber, estimateGas, mix, getProof, traceTransaction, traceBlockByNumber, rest or pages", cfg.Method)
	}
	var err error
	if cfg.hashes, err = readHashes(cfg); err != nil {
		return report, err
	}
	if cfg.blocks, err = parseBlocks(cfg); err != nil {
		return report, err
	}
	if cfg.Tag != "latest" && cfg.Tag != "pending" {
		return report, fmt.Errorf("-tag %q: want latest or pending", cfg.Tag)
	}
	if !common.IsHexAddress(cfg.Token) {
		return report, fmt.Errorf("-token %q is not an address", cfg.Token)
	}
	if cfg.Rate < 0 {
		return report, fmt.Errorf("-rate %v: want requests/s, or 0 for as fast as the server answers", cfg.Rate)
	}
	conns, err := ParseCounts(cfg.Conns)
	if err != nil {
		return report, fmt.Errorf("-c %w", err)
	}
	for _, c := range conns {
		if ctx.Err() != nil {
			break
		}
		run, err := runHTTPOnce(ctx, cfg, c)
		if err != nil {
			return report, err
		}
		report.Runs = append(report.Runs, run)
	}
	return report, nil
}

// dialRaw dials addr with raw reads and writes and lazy deadlines
// (rawconn), the node's own: the generator shares the machine's cores with
// the server it measures, and each microsecond it spends on a request is one
// the server cannot. Against the node's getBalance, the generator's CPU per
// request fell from 11.5-12.1 µs to 9.4-10.1 µs (PERFORMANCE.md, "Both
// generators in one run, a lighter loadtest").
func dialRaw(addr string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		return nil, err
	}
	return rawconn.Wrap(c.(*net.TCPConn)), nil
}

// doer is fasthttp.HostClient or fasthttp.PipelineClient.
type doer interface {
	Do(req *fasthttp.Request, resp *fasthttp.Response) error
}

// workerStats is one worker's record; workers never share one.
type workerStats struct {
	hist                              *latency.Hist
	ok, httpErr, transportErr, rpcErr uint64
	perKind                           map[string]uint64
	samples                           []string
	last                              time.Time
}

func (w *workerStats) sample(s string) {
	if len(w.samples) < 3 {
		w.samples = append(w.samples, s)
	}
}

func runHTTPOnce(ctx context.Context, cfg Config, conns int) (RunReport, error) {
	addr, uri, host, err := target.HostAndPath(cfg.URL)
	if err != nil {
		return RunReport{}, err
	}
	pipeline := max(1, cfg.Pipeline)
	var client doer
	if pipeline > 1 {
		client = &fasthttp.PipelineClient{Addr: addr, MaxConns: conns, MaxPendingRequests: conns * pipeline,
			ReadTimeout: cfg.Timeout, WriteTimeout: cfg.Timeout, NoDefaultUserAgentHeader: true, Dial: dialRaw}
	} else {
		client = &fasthttp.HostClient{Addr: addr, MaxConns: conns, MaxIdemponentCallAttempts: 1,
			ReadTimeout: cfg.Timeout, WriteTimeout: cfg.Timeout, NoDefaultUserAgentHeader: true, Dial: dialRaw}
	}
	defer func() {
		if hc, ok := client.(*fasthttp.HostClient); ok {
			hc.CloseIdleConnections()
		}
	}()
	var paths []string
	switch cfg.Method {
	case kindREST:
		base := uri
		if base[len(base)-1] != '/' {
			base += "/"
		}
		if paths, err = restPaths(client, host, base, 10*time.Second); err != nil {
			return RunReport{}, err
		}
	case kindPages:
		if paths, err = pagePaths(cfg.Paths); err != nil {
			return RunReport{}, err
		}
	}
	workers := conns * pipeline
	start := time.Now()
	measureFrom := start.Add(cfg.Warmup)
	end := measureFrom.Add(cfg.Duration)
	stats := make([]*workerStats, workers)
	token := common.HexToAddress(cfg.Token)
	var wg sync.WaitGroup
	for w := range workers {
		st := &workerStats{hist: latency.New(), perKind: map[string]uint64{}}
		stats[w] = st
		wg.Add(1)
		go func() {
			defer wg.Done()
			gen := newBodyGen(cfg.Method, cfg.Tag, token, w, cfg.hashes, cfg.blocks)
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.Header.SetMethod(fasthttp.MethodPost)
			req.SetRequestURI(uri)
			req.Header.SetHost(host)
			req.Header.SetContentType("application/json")
			buf := make([]byte, 0, 512)
			var kind string
			var t0 time.Time
			do := func() error { return client.Do(req, resp) }
			lean := pipeline == 1 && paths == nil // JSON-RPC, one request at a time
			if lean {
				pc := newPostConn(addr, uri, host, cfg.Timeout)
				defer pc.close()
				do = func() error { return pc.do(buf, resp, t0) }
			}
			pace := pacer.New(cfg.Rate, workers, w, start)
			if paths != nil {
				req.Header.SetMethod(fasthttp.MethodGet)
				req.Header.SetContentTypeBytes(nil)
			}
			for i := w; ctx.Err() == nil; i++ {
				if paths != nil {
					kind = cfg.Method
					req.SetRequestURI(paths[i%len(paths)])
					if cfg.Bust {
						req.URI().QueryArgs().SetUint("n", i)
					}
				} else {
					buf, kind = gen.next(buf[:0])
					if !lean {
						req.SetBody(buf)
					}
				}
				pace.Wait()
				t0 = time.Now()
				if !t0.Before(end) {
					return
				}
				err := do()
				t1 := time.Now()
				if t0.Before(measureFrom) {
					continue
				}
				st.last = t1
				st.hist.Record(t1.Sub(t0))
				st.perKind[kind]++
				switch {
				case err != nil:
					st.transportErr++
					st.sample("transport: " + err.Error())
				case resp.StatusCode() != fasthttp.StatusOK:
					st.httpErr++
					st.sample(fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode(), resp.Body()))
				case paths == nil && rpcclient.IsErrorAnswer(resp.Body()):
					st.rpcErr++
					st.sample(fmt.Sprintf("%s: %.200s", kind, resp.Body()))
				default:
					st.ok++
				}
			}
		}()
	}
	wg.Wait()
	run := RunReport{URL: cfg.URL, Method: cfg.Method, Tag: cfg.Tag, Conns: conns, Pipeline: pipeline, Rate: cfg.Rate, PerKind: map[string]uint64{}}
	total := latency.New()
	last := measureFrom
	seen := map[string]bool{}
	for _, st := range stats {
		total.Merge(st.hist)
		run.OK += st.ok
		run.HTTPErrors += st.httpErr
		run.TransportErrors += st.transportErr
		run.RPCErrors += st.rpcErr
		for k, n := range st.perKind {
			run.PerKind[k] += n
		}
		for _, s := range st.samples {
			if !seen[s] && len(run.ErrorSamples) < 5 {
				seen[s] = true
				run.ErrorSamples = append(run.ErrorSamples, s)
			}
		}
		if st.last.After(last) {
			last = st.last
		}
	}
	run.Requests = total.N
	run.Seconds = last.Sub(measureFrom).Seconds()
	if run.Seconds > 0 {
		run.ReqPerSec = float64(run.Requests) / run.Seconds
	}
	run.Latency = total.Summary()
	run.Mean = total.Mean()
	return run, nil
}

// readHashes reads the -hashes file of the traceTransaction workload.
func readHashes(cfg Config) ([]string, error) {
	if cfg.Method != kindTraceTx {
		return nil, nil
	}
	if cfg.Hashes == "" {
		return nil, errors.New("-method traceTransaction needs -hashes FILE: the transactions to trace, one hash per line")
	}
	data, err := os.ReadFile(cfg.Hashes)
	if err != nil {
		return nil, fmt.Errorf("-hashes: %w", err)
	}
	var hashes []string
	for _, line := range strings.Fields(string(data)) {
		if len(line) != 66 || !strings.HasPrefix(line, "0x") {
			return nil, fmt.Errorf("-hashes %s: %q is not a 0x-prefixed 32-byte hash", cfg.Hashes, line)
		}
		hashes = append(hashes, strings.ToLower(line))
	}
	if len(hashes) == 0 {
		return nil, fmt.Errorf("-hashes %s: no hashes", cfg.Hashes)
	}
	return hashes, nil
}

// parseBlocks reads the -blocks list of the traceBlockByNumber workload
// into 0x-prefixed quantities.
func parseBlocks(cfg Config) ([]string, error) {
	if cfg.Method != kindTraceBlock {
		return nil, nil
	}
	var blocks []string
	for _, field := range strings.Split(cfg.Blocks, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			continue
		}
		n, err := strconv.ParseUint(field, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("-blocks: %q is not a block number", field)
		}
		blocks = append(blocks, "0x"+strconv.FormatUint(n, 16))
	}
	if len(blocks) == 0 {
		return nil, errors.New("-method traceBlockByNumber needs -blocks N[,N...]: the blocks to trace")
	}
	return blocks, nil
}
