package abuse

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fasthttp/websocket"
)

// TestMain lets the idle-conns attack re-execute the test binary as its
// child processes, as it re-executes loadtest.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HoldMode {
		os.Exit(RunHold(context.Background(), os.Args[2:], os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// testAbuseConfig is the flags' defaults against url, with the waits cut
// short for tests.
func testAbuseConfig(t *testing.T, url string) Config {
	t.Helper()
	fs := flag.NewFlagSet("abuse", flag.ContinueOnError)
	cfg := Flags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	cfg.URL = url
	cfg.Settle, cfg.Recover, cfg.StepTimeout = 0, 500*time.Millisecond, 2*time.Second
	cfg.CanaryInterval = 20 * time.Millisecond
	cfg.Duration = 300 * time.Millisecond
	return *cfg
}

// fakeNode is a stand-in for stocknode: JSON-RPC with a few methods, a
// block number that advances five times a second, /health, /metrics with
// Call pool gauges, and a WebSocket that closes 1007 on invalid UTF-8 and
// (the library's own doing) 1009 without a reason on a message over 1 MiB.
type fakeNode struct {
	url, metrics string
	start        time.Time
	running      atomic.Int64 // call_pool_running
	batches      atomic.Int64
	answer       []byte // eth_feeHistory's result
	// tracesCrash makes debug_traceCall end its connection unanswered, as
	// a node that died of it did; otherwise a trace with a timeout of
	// 1ms answers "execution timeout", and others -32003.
	tracesCrash bool
	traces      atomic.Int64
}

func newFakeNode(t *testing.T) *fakeNode {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := &fakeNode{start: time.Now(), url: "http://" + ln.Addr().String(), metrics: "http://" + ln.Addr().String() + "/metrics",
		answer: []byte(`"` + strings.Repeat("a", 1<<20) + `"`)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /", n.rpc)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `{"head":1}`) })
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "call_pool_running %d\ncall_pool_waiting 0\n", n.running.Load())
	})
	mux.HandleFunc("GET /ws", n.ws)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return n
}

func (n *fakeNode) rpc(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if bytes.HasPrefix(body, []byte("[")) { // a batch: worked on until its client leaves
		n.batches.Add(1)
		<-r.Context().Done()
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &req)
	result := []byte(`"0x1"`)
	switch req.Method {
	case "eth_blockNumber":
		result = fmt.Appendf(nil, `"0x%x"`, time.Since(n.start)/(200*time.Millisecond))
	case "eth_feeHistory":
		result = n.answer
	case "eth_getBalance", "eth_call":
	case "debug_traceCall":
		n.traceCall(w, req.ID, body)
		return
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, req.ID)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
}

func (n *fakeNode) traceCall(w http.ResponseWriter, id json.RawMessage, body []byte) {
	n.traces.Add(1)
	switch {
	case n.tracesCrash:
		if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
			c.Close()
		}
	case bytes.Contains(body, []byte(`"timeout":"1ms"`)):
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"execution timeout"}}`, id)
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32003,"message":"trace larger than the 25000000 bytes left in the response"}}`, id)
	}
}

func (n *fakeNode) ws(w http.ResponseWriter, r *http.Request) {
	c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer c.Close()
	c.SetReadLimit(1 << 20)
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		if !utf8.Valid(msg) {
			c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseInvalidFramePayloadData, "invalid UTF-8"), time.Now().Add(time.Second))
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(msg, &req)
		c.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":"0x1"}`, req.ID))
	}
}

func runAbuseTest(t *testing.T, cfg Config) Report {
	t.Helper()
	rep, err := Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Fatalf("the report is not JSON: %v", err)
	}
	return rep
}

func findResult(t *testing.T, rep Report, name string) attackResult {
	t.Helper()
	for _, r := range rep.Attacks {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no %s in %s", name, rep)
	return attackResult{}
}

func hasLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// The harness around two WebSocket checks: canary, answers after (HTTP and
// WebSocket), verdicts both ways.
func TestAbuseWebSocketChecks(t *testing.T) {
	node := newFakeNode(t)
	cfg := testAbuseConfig(t, node.url)
	cfg.Attacks = "ws-utf8,ws-oversize"
	cfg.WSOversizeBytes = 2 << 20
	rep := runAbuseTest(t, cfg)
	utf := findResult(t, rep, "ws-utf8")
	if !utf.Pass || !utf.AnswersAfter || utf.Canary.Count == 0 || !hasLine(utf.Details, `close 1007 "invalid UTF-8"`) {
		t.Fatalf("ws-utf8 against a node that closes with 1007:\n%s", utf.notes())
	}
	big := findResult(t, rep, "ws-oversize")
	if big.Pass || !hasLine(big.Reasons, "gives no reason") || !hasLine(big.Details, "close 1009") {
		t.Fatalf("ws-oversize against a node that closes 1009 with no reason:\n%s", big.notes())
	}
	if rep.Passed != 1 || rep.Failed != 1 || !strings.Contains(rep.String(), "ws-oversize (check): FAIL (1)") {
		t.Fatalf("report:\n%s", rep)
	}
}

// A node that is not there: every attack is skipped, quickly.
func TestAbuseNodeDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	cfg := testAbuseConfig(t, url)
	cfg.Attacks = "cl-te,blake2f"
	rep := runAbuseTest(t, cfg)
	if rep.Skipped != 2 || !strings.HasPrefix(rep.Attacks[1].Skipped, "node down") || rep.ExitCode() == 0 {
		t.Fatalf("report:\n%s", rep)
	}
}

// Heavy calls are counted; an abandoned batch whose work goes on (the
// gauge says 2 running) is reported as such.
func TestAbuseCalls(t *testing.T) {
	node := newFakeNode(t)
	cfg := testAbuseConfig(t, node.url)
	cfg.Metrics = node.metrics
	cfg.Attacks = "gas-burn,abandoned-batch"
	cfg.HeavyCallers, cfg.BatchCalls = 2, 3
	cfg.BatchAbandon, cfg.BatchWatch = 200*time.Millisecond, 500*time.Millisecond
	node.running.Store(2)
	rep := runAbuseTest(t, cfg)
	burn := findResult(t, rep, "gas-burn")
	if !hasLine(burn.Details, "2 callers for 300ms") || !hasLine(burn.Details, "results, 0 errors") {
		t.Fatalf("gas-burn:\n%s", burn.notes())
	}
	batch := findResult(t, rep, "abandoned-batch")
	if node.batches.Load() != 1 || !hasLine(batch.Unexpected, "still runs 2 calls") || !hasLine(batch.Details, "still running 2 calls") {
		t.Fatalf("abandoned-batch (%d batches seen):\n%s", node.batches.Load(), batch.notes())
	}
}

// Large answers are streamed and measured.
func TestAbuseFeeHistory(t *testing.T) {
	node := newFakeNode(t)
	cfg := testAbuseConfig(t, node.url)
	cfg.Attacks = "fee-history"
	cfg.FeeHistoryRequests, cfg.FeeHistoryPercentiles = 2, 100
	rep := runAbuseTest(t, cfg)
	fh := findResult(t, rep, "fee-history")
	if !hasLine(fh.Details, "largest 1.0 MB") || !hasLine(fh.Details, "0 refused or failed") {
		t.Fatalf("fee-history:\n%s", fh.notes())
	}
}

// rawServer serves each connection with handle, on a goroutine of its own.
func rawServer(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

func testBattery(t *testing.T, url string) *battery {
	t.Helper()
	b, err := newBattery(testAbuseConfig(t, url), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readHead reads a request's header block.
func readHead(br *bufio.Reader) (string, error) {
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		head.WriteString(line)
		if err != nil || line == "\r\n" {
			return head.String(), err
		}
	}
}

func TestCLTE(t *testing.T) {
	refuses := rawServer(t, func(c net.Conn) {
		head, _ := readHead(bufio.NewReader(c))
		if strings.Contains(head, "Content-Length") && strings.Contains(head, "Transfer-Encoding") {
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		}
	})
	// Go's request parser reads the chunked body and leaves the rest for
	// the next request: a server built on it alone is smuggled into.
	smuggles := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body, _ := io.ReadAll(req.Body)
			id := "front"
			if bytes.Contains(body, []byte("smuggled")) {
				id = "smuggled"
			}
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n{\"id\":%q}", len(id)+9, id)
		}
	})
	if out := testBattery(t, refuses).clTE(context.Background()); out.err != nil || len(out.unexpected) != 0 {
		t.Fatalf("a server that refuses: %+v", out)
	}
	out := testBattery(t, smuggles).clTE(context.Background())
	if out.err != nil || !hasLine(out.unexpected, "ran as a second request") || !hasLine(out.unexpected, "HTTP 200 (want 400)") ||
		!hasLine(out.unexpected, "stayed open") {
		t.Fatalf("a server that is smuggled into: %+v", out)
	}
}

func TestBadRequestEcho(t *testing.T) {
	server := func(echo bool) string {
		return rawServer(t, func(c net.Conn) {
			head, _ := readHead(bufio.NewReader(c))
			body := "bad request"
			if echo {
				body += ": " + head
			}
			fmt.Fprintf(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
		})
	}
	if out := testBattery(t, server(false)).badRequestEcho(context.Background()); len(out.unexpected) != 0 || len(out.details) != 4 {
		t.Fatalf("a server that does not echo: %+v", out)
	}
	// It echoes the header block: three of the four requests carry the marker there.
	if out := testBattery(t, server(true)).badRequestEcho(context.Background()); len(out.unexpected) != 3 || !hasLine(out.unexpected, "echoes the request") {
		t.Fatalf("a server that echoes: %+v", out)
	}
}

func TestSlowloris(t *testing.T) {
	sheds := rawServer(t, func(c net.Conn) {
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond)) // a header timeout
		io.Copy(io.Discard, c)
	})
	waits := rawServer(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	run := func(url string) outcome {
		b := testBattery(t, url)
		b.cfg.SlowlorisConns, b.cfg.SlowlorisInterval, b.cfg.SlowlorisHold = 20, 50*time.Millisecond, time.Second
		return b.slowloris(context.Background())
	}
	if out := run(sheds); len(out.unexpected) != 0 || !hasLine(out.details, "opened 20 of 20") || !hasLine(out.details, "20 shed") {
		t.Fatalf("a server with a header timeout: %+v", out)
	}
	if out := run(waits); !hasLine(out.unexpected, "20 of 20 slow connections still open") {
		t.Fatalf("a server without one: %+v", out)
	}
}

// idle-conns re-executes the test binary (see TestMain) as its children.
func TestIdleConns(t *testing.T) {
	node := newFakeNode(t)
	b := testBattery(t, node.url)
	b.cfg.IdleConns, b.cfg.IdlePerProcess, b.cfg.IdleDialFor = 40, 15, 10*time.Second
	out := b.idleConns(context.Background())
	if out.err != nil || len(out.unexpected) != 0 || !hasLine(out.details, "3 processes opened 40 of 40") ||
		!hasLine(out.details, "a new client got GET /health answered") || !hasLine(out.details, "40 still open") {
		t.Fatalf("idle-conns: %+v", out)
	}
}
