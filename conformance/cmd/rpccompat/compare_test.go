package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestParseTest(t *testing.T) {
	content := "// first comment\n// second\n\n>> {\"id\":1}\n<< {\"id\":1,\"result\":\"0x1\"}\n>> {\"id\":2}\r\n<< {\"id\":2,\"result\":null}\n"
	tt, err := parseTest(filepath.Join("eth_call", "call-revert-code.io"), []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	if tt.name != "eth_call/call-revert-code" || tt.method != "eth_call" || !tt.checkCode {
		t.Errorf("name %q method %q checkCode %v", tt.name, tt.method, tt.checkCode)
	}
	if tt.comment != "first comment\nsecond\n" {
		t.Errorf("comment %q", tt.comment)
	}
	if len(tt.exchanges) != 2 || tt.exchanges[1].request != `{"id":2}` || tt.exchanges[1].response != `{"id":2,"result":null}` {
		t.Errorf("exchanges %+v", tt.exchanges)
	}

	plain, err := parseTest("eth_call/call-revert.io", []byte(">> {}\n<< {}\n"))
	if err != nil || plain.checkCode {
		t.Errorf("call-revert.io: checkCode %v, err %v", plain != nil && plain.checkCode, err)
	}
	for name, bad := range map[string]string{
		"no request":             "// only a comment\n",
		"response first":         "<< {}\n>> {}\n",
		"request without answer": ">> {}\n",
		"two requests":           ">> {}\n>> {}\n<< {}\n",
		"stray line":             ">> {}\nhello\n<< {}\n",
	} {
		if _, err := parseTest("m/x.io", []byte(bad)); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

func TestCompareResults(t *testing.T) {
	cases := []struct {
		name             string
		expected, actual string
		pass             bool
		diffHas          string
	}{
		{"equal", `{"jsonrpc":"2.0","id":1,"result":"0x1"}`, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`, true, ""},
		{"key order irrelevant", `{"jsonrpc":"2.0","id":1,"result":{"a":"0x1","b":[1,2]}}`, `{"result":{"b":[1,2],"a":"0x1"},"id":1,"jsonrpc":"2.0"}`, true, ""},
		{"whitespace irrelevant", `{"id":1,"result":{"a":"0x1"}}`, "{ \"id\" : 1 ,\n \"result\" : { \"a\" : \"0x1\" } }\n", true, ""},
		{"strings exact: leading zero", `{"id":1,"result":"0x1"}`, `{"id":1,"result":"0x01"}`, false, `result: want "0x1", got "0x01"`},
		{"strings exact: case", `{"id":1,"result":"0xabcdef"}`, `{"id":1,"result":"0xABCDEF"}`, false, "result: want"},
		{"number vs string", `{"id":1,"result":1}`, `{"id":1,"result":"1"}`, false, "result: want 1"},
		{"integer value", `{"id":1,"result":100}`, `{"id":1,"result":100}`, true, ""},
		{"integer mismatch", `{"id":1,"result":100}`, `{"id":1,"result":101}`, false, "want 100, got 101"},
		{"big integers exact", `{"id":1,"result":12345678901234567890123}`, `{"id":1,"result":12345678901234567890124}`, false, "want 12345678901234567890123"},
		{"float same value", `{"id":1,"result":[0.5,0.0014120333333333334]}`, `{"id":1,"result":[5e-1,0.00141203333333333340]}`, true, ""},
		{"float different", `{"id":1,"result":[0.5]}`, `{"id":1,"result":[0.25]}`, false, "result[0]: want 0.5, got 0.25"},
		{"id mismatch", `{"id":1,"result":"0x1"}`, `{"id":2,"result":"0x1"}`, false, "id: want 1, got 2"},
		{"missing field", `{"id":1,"result":{"a":"0x1","b":"0x2"}}`, `{"id":1,"result":{"a":"0x1"}}`, false, `result.b: missing (want "0x2")`},
		{"unexpected field", `{"id":1,"result":{"a":"0x1"}}`, `{"id":1,"result":{"a":"0x1","totalDifficulty":"0x0"}}`, false, "result.totalDifficulty: unexpected field"},
		{"null vs missing", `{"id":1,"result":{"to":null}}`, `{"id":1,"result":{}}`, false, "result.to: missing (want null)"},
		{"null result", `{"id":1,"result":null}`, `{"id":1,"result":null}`, true, ""},
		{"null vs object", `{"id":1,"result":null}`, `{"id":1,"result":{}}`, false, "result: want null"},
		{"array length", `{"id":1,"result":["0x1","0x2"]}`, `{"id":1,"result":["0x1"]}`, false, "result: want 2 elements, got 1"},
		{"array order matters", `{"id":1,"result":["0x1","0x2"]}`, `{"id":1,"result":["0x2","0x1"]}`, false, "result[0]"},
		{"nested path", `{"id":1,"result":{"logs":[{"topics":["0xaa"]}]}}`, `{"id":1,"result":{"logs":[{"topics":["0xbb"]}]}}`, false, "result.logs[0].topics[0]"},
		{"bool", `{"id":1,"result":false}`, `{"id":1,"result":true}`, false, "want false, got true"},
		{"unexpected error", `{"id":1,"result":"0x1"}`, `{"id":1,"error":{"code":-32000,"message":"boom"}}`, false, "unexpected error"},
		{"invalid JSON", `{"id":1,"result":"0x1"}`, `{"id":1,`, false, "invalid JSON response"},
		{"trailing data", `{"id":1,"result":"0x1"}`, `{"id":1,"result":"0x1"} {}`, false, "invalid JSON response"},
		{"not an object", `{"id":1,"result":"0x1"}`, `[{"id":1,"result":"0x1"}]`, false, "not a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diffs := compareResponse(c.expected, c.actual, false)
			if pass := len(diffs) == 0; pass != c.pass {
				t.Fatalf("pass = %v, want %v (diffs %q)", pass, c.pass, diffs)
			}
			if c.diffHas != "" && !strings.Contains(strings.Join(diffs, "\n"), c.diffHas) {
				t.Errorf("diffs %q do not mention %q", diffs, c.diffHas)
			}
		})
	}
}

func TestCompareErrors(t *testing.T) {
	revert := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"execution reverted","data":"0x08c379a0"}}`
	cases := []struct {
		name      string
		expected  string
		actual    string
		checkCode bool
		pass      bool
		diffHas   string
	}{
		{"presence: any error passes", revert, `{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"other text"}}`, false, true, ""},
		{"presence: error without code passes", revert, `{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`, false, true, ""},
		{"presence: result fails", revert, `{"jsonrpc":"2.0","id":1,"result":"0x"}`, false, false, `expected an error, got result "0x"`},
		{"presence: null error fails", revert, `{"jsonrpc":"2.0","id":1,"error":null,"result":"0x"}`, false, false, "expected an error"},
		{"code: same code and data", revert, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"execution reverted: boom","data":"0x08c379a0"}}`, true, true, ""},
		{"code: message is not compared", revert, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"anything","data":"0x08c379a0"}}`, true, true, ""},
		{"code: other code", revert, `{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0x08c379a0"}}`, true, false, "error.code: want -32000, got 3"},
		{"code: other data", revert, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"execution reverted","data":"0x"}}`, true, false, "error.data"},
		{"code: missing data", revert, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"execution reverted"}}`, true, false, "error.data: missing"},
		{"code: no data expected", `{"id":1,"error":{"code":-32602,"message":"x"}}`, `{"id":1,"error":{"code":-32602,"message":"y","data":"z"}}`, true, true, ""},
		{"code: error not an object", revert, `{"jsonrpc":"2.0","id":1,"error":"reverted"}`, true, false, "not an object"},
		{"code: result fails", revert, `{"jsonrpc":"2.0","id":1,"result":"0x"}`, true, false, "expected an error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diffs := compareResponse(c.expected, c.actual, c.checkCode)
			if pass := len(diffs) == 0; pass != c.pass {
				t.Fatalf("pass = %v, want %v (diffs %q)", pass, c.pass, diffs)
			}
			if c.diffHas != "" && !strings.Contains(strings.Join(diffs, "\n"), c.diffHas) {
				t.Errorf("diffs %q do not mention %q", diffs, c.diffHas)
			}
		})
	}
}

func TestSummaryAndTable(t *testing.T) {
	results := []result{
		{Method: "eth_call", Pass: true}, {Method: "eth_call", Pass: false},
		{Method: "eth_blockNumber", Pass: true},
	}
	got := summarize(results)
	want := []summary{{"eth_blockNumber", 1, 1}, {"eth_call", 1, 2}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("summary %+v, want %+v", got, want)
	}
	table := sideBySide([]report{
		{Label: "stocknode", Passed: 2, Total: 3, Methods: got},
		{Label: "geth", Passed: 1, Total: 1, Methods: []summary{{"eth_call", 1, 1}}},
	})
	for _, line := range []string{"eth_blockNumber", "eth_call", "total"} {
		if !strings.Contains(table, line) {
			t.Errorf("table lacks %q:\n%s", line, table)
		}
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "1/1") || !strings.HasSuffix(lines[1], "-") ||
		!strings.Contains(lines[2], "1/2*") || !strings.Contains(lines[3], "2/3*") {
		t.Errorf("unexpected table:\n%s", table)
	}
}

// TestRun replays a fixture directory against a fake node.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("eth_blockNumber/simple.io", ">> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":[]}\n<< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"0x14\"}\n")
	write("eth_chainId/wrong.io", ">> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_chainId\",\"params\":[]}\n<< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"0x2\"}\n")
	write("eth_call/revert-code.io", ">> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_call\",\"params\":[]}\n<< {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"execution reverted\"}}\n")
	write("eth_call/revert.io", ">> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_call\",\"params\":[]}\n<< {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"execution reverted\"}}\n")
	write("README.md", "not a fixture")

	var (
		mu       sync.Mutex
		requests []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		requests = append(requests, string(body))
		mu.Unlock()
		var req struct {
			Method string `json:"method"`
		}
		json.Unmarshal(body, &req)
		switch req.Method {
		case "eth_blockNumber":
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x14"}`)
		case "eth_chainId":
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`)
		case "eth_call":
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted"}}`)
		case "eth_getTransactionByHash":
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		}
	}))
	defer srv.Close()

	var stdout, stderr bytes.Buffer
	code := run([]string{"-url", srv.URL, "-tests", dir, "-json", "-label", "fake", "-wait-block", "20", "-wait-tx", "0x01"}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit status %d, want 1 (stderr %s)", code, stderr.String())
	}
	var rep report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("-json output: %v\n%s", err, stdout.String())
	}
	if rep.Label != "fake" || rep.Passed != 2 || rep.Total != 4 {
		t.Fatalf("report: label %q, %d/%d passed, want 2/4", rep.Label, rep.Passed, rep.Total)
	}
	failed := map[string]result{}
	for _, r := range rep.Results {
		if !r.Pass {
			failed[r.Test] = r
		}
	}
	if _, ok := failed["eth_chainId/wrong"]; !ok {
		t.Error("eth_chainId/wrong passed")
	}
	if r, ok := failed["eth_call/revert-code"]; !ok || r.Request == "" || r.Expected == "" || !strings.Contains(r.Actual, `"code":3`) {
		t.Errorf("eth_call/revert-code: %+v", r)
	}
	// The request is sent as written in the fixture.
	found := false
	mu.Lock()
	for _, r := range requests {
		found = found || r == `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
	}
	mu.Unlock()
	if !found {
		t.Errorf("fixture request not sent verbatim: %q", requests)
	}

	// Text output: one FAIL line per failing test, then the summary.
	stdout.Reset()
	if code := run([]string{"-url", srv.URL, "-tests", dir, "-run", "^eth_(blockNumber|chainId)/"}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit status %d, want 1", code)
	}
	out := stdout.String()
	if strings.Count(out, "FAIL ") != 1 || !strings.Contains(out, `FAIL eth_chainId/wrong: result: want "0x2", got "0x1"`) || !regexp.MustCompile(`(?m)^total\s+1/2$`).MatchString(out) {
		t.Errorf("text output:\n%s", out)
	}
	if code := run([]string{"-url", srv.URL, "-tests", dir, "-run", "^eth_blockNumber/"}, io.Discard, io.Discard); code != 0 {
		t.Errorf("all passing: exit status %d, want 0", code)
	}
}

// TestFixturesParse checks that every committed fixture is well formed and
// that the expected responses are JSON-RPC responses.
func TestFixturesParse(t *testing.T) {
	tests, err := loadTests(filepath.Join("..", "..", "tests"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) < 100 {
		t.Errorf("only %d fixtures", len(tests))
	}
	for _, tt := range tests {
		for _, ex := range tt.exchanges {
			var req struct {
				Method string `json:"method"`
			}
			if err := json.Unmarshal([]byte(ex.request), &req); err != nil || req.Method != tt.method {
				t.Errorf("%s: request method %q (err %v), want the directory name", tt.name, req.Method, err)
			}
			if diffs := compareResponse(ex.response, ex.response, true); len(diffs) > 0 {
				t.Errorf("%s: the expected response does not match itself: %v", tt.name, diffs)
			}
		}
	}
}
