// Command rpccompat replays execution-apis style fixtures (.io files) against
// a JSON-RPC endpoint and compares every response with the expected one (see
// compareResponse for the rules).
//
//	rpccompat -url http://127.0.0.1:8545 -tests conformance/tests [-json] [-run REGEXP] [-v]
//	rpccompat -table stocknode=a.json,geth=b.json     # side-by-side summary of -json reports
//	rpccompat -free-port                              # print a free TCP port (for scripts)
//
// It prints one line per failing test with a short diff, then a per-method
// summary; -json prints a machine-readable report instead (with the request,
// expected and actual response of every failure). The exit status is 1 when a
// test fails, 2 on a usage or I/O error.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("rpccompat", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var (
		url         = fl.String("url", "http://127.0.0.1:8545", "JSON-RPC endpoint")
		dir         = fl.String("tests", "conformance/tests", "directory of {method}/{name}.io fixtures")
		asJSON      = fl.Bool("json", false, "print a machine-readable JSON report")
		filter      = fl.String("run", "", "only run tests whose name (method/name) matches this regexp")
		verbose     = fl.Bool("v", false, "print the request, expected and actual response of every failure")
		label       = fl.String("label", "", "a name for this run in the report")
		table       = fl.String("table", "", "print a side-by-side summary of JSON reports: label=file,label=file")
		waitBlock   = fl.Uint64("wait-block", 0, "before testing, wait until eth_blockNumber reaches this block")
		waitTx      = fl.String("wait-tx", "", "before testing, wait until eth_getTransactionByHash finds this transaction")
		waitTimeout = fl.Duration("wait-timeout", 60*time.Second, "how long to wait for -wait-block and -wait-tx")
		timeout     = fl.Duration("timeout", 10*time.Second, "timeout of one request")
		out         = fl.String("out", "", "also write the JSON report to this file")
		freePort    = fl.Bool("free-port", false, "print a free TCP port on 127.0.0.1 and exit")
	)
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *freePort {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		fmt.Fprintln(stdout, l.Addr().(*net.TCPAddr).Port)
		l.Close()
		return 0
	}
	if *table != "" {
		return printTable(*table, stdout, stderr)
	}
	var re *regexp.Regexp
	if *filter != "" {
		var err error
		if re, err = regexp.Compile(*filter); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	tests, err := loadTests(*dir, re)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	client := &rpcClient{url: *url, http: &http.Client{Timeout: *timeout}}
	if err := client.wait(*waitBlock, *waitTx, *waitTimeout); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}

	rep := report{Label: *label, URL: *url}
	for _, t := range tests {
		r := result{Test: t.name, Method: t.method, Pass: true}
		for _, ex := range t.exchanges {
			actual, err := client.post(ex.request)
			var diffs []string
			if err != nil {
				diffs = []string{err.Error()}
			} else {
				diffs = compareResponse(ex.response, actual, t.checkCode)
			}
			if len(diffs) > 0 {
				r.Pass = false
				r.Diff, r.Request, r.Expected, r.Actual = diffs, ex.request, ex.response, actual
				break
			}
		}
		rep.Results = append(rep.Results, r)
		rep.Total++
		if r.Pass {
			rep.Passed++
		}
	}
	rep.Methods = summarize(rep.Results)

	if *out != "" {
		if err := os.WriteFile(*out, encodeReport(rep), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	if *asJSON {
		stdout.Write(encodeReport(rep))
	} else {
		printText(stdout, rep, *verbose)
	}
	if rep.Passed != rep.Total {
		return 1
	}
	return 0
}

func encodeReport(rep report) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func loadTests(dir string, re *regexp.Regexp) ([]*test, error) {
	var tests []*test
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".io") {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if re != nil && !re.MatchString(strings.TrimSuffix(filepath.ToSlash(rel), ".io")) {
			return nil
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		t, err := parseTest(rel, content)
		if err != nil {
			return err
		}
		tests = append(tests, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(tests) == 0 {
		return nil, fmt.Errorf("no tests in %s", dir)
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].name < tests[j].name })
	return tests, nil
}

func printText(w io.Writer, rep report, verbose bool) {
	for _, r := range rep.Results {
		if r.Pass {
			continue
		}
		d := r.Diff
		more := ""
		if len(d) > 3 {
			more = fmt.Sprintf(" (+%d more)", len(d)-3)
			d = d[:3]
		}
		fmt.Fprintf(w, "FAIL %s: %s%s\n", r.Test, strings.Join(d, "; "), more)
		if verbose {
			fmt.Fprintf(w, "  request:  %s\n  expected: %s\n  actual:   %s\n", r.Request, r.Expected, strings.TrimSpace(r.Actual))
		}
	}
	width := len("method")
	for _, s := range rep.Methods {
		width = max(width, len(s.Method))
	}
	title := rep.URL
	if rep.Label != "" {
		title = rep.Label + " (" + rep.URL + ")"
	}
	fmt.Fprintf(w, "\n%s\n%-*s  %s\n", title, width, "method", "passed/total")
	for _, s := range rep.Methods {
		fmt.Fprintf(w, "%-*s  %d/%d\n", width, s.Method, s.Passed, s.Total)
	}
	fmt.Fprintf(w, "%-*s  %d/%d\n", width, "total", rep.Passed, rep.Total)
}

func printTable(spec string, stdout, stderr io.Writer) int {
	var reports []report
	for _, part := range strings.Split(spec, ",") {
		name, file, ok := strings.Cut(part, "=")
		if !ok {
			fmt.Fprintf(stderr, "-table: %q is not label=file\n", part)
			return 2
		}
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		var r report
		if err := json.Unmarshal(data, &r); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", file, err)
			return 2
		}
		r.Label = name
		reports = append(reports, r)
	}
	fmt.Fprint(stdout, sideBySide(reports))
	return 0
}

type rpcClient struct {
	url  string
	http *http.Client
}

// post sends body as-is and returns the response body.
func (c *rpcClient) post(body string) (string, error) {
	resp, err := c.http.Post(c.url, "application/json", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK && len(bytes.TrimSpace(data)) == 0 {
		return "", fmt.Errorf("HTTP %s", resp.Status)
	}
	return string(data), nil
}

// call returns the result of method(params) or an error.
func (c *rpcClient) call(method string, params ...any) (json.RawMessage, error) {
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := c.post(string(body))
	if err != nil {
		return nil, err
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(resp), &out); err != nil {
		return nil, err
	}
	if len(out.Error) > 0 && string(out.Error) != "null" {
		return nil, fmt.Errorf("%s: %s", method, out.Error)
	}
	return out.Result, nil
}

// wait polls until the node has block `block` and finds transaction tx.
func (c *rpcClient) wait(block uint64, tx string, timeout time.Duration) error {
	if block == 0 && tx == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last string
	for {
		ready := true
		if block > 0 {
			res, err := c.call("eth_blockNumber")
			var n hexNumber
			if err == nil {
				err = json.Unmarshal(res, &n)
			}
			if err != nil || uint64(n) < block {
				ready, last = false, fmt.Sprintf("eth_blockNumber: %s %v", res, err)
			}
		}
		if ready && tx != "" {
			res, err := c.call("eth_getTransactionByHash", tx)
			if err != nil || len(res) == 0 || string(res) == "null" {
				ready, last = false, fmt.Sprintf("eth_getTransactionByHash(%s): %s %v", tx, res, err)
			}
		}
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: node not ready after %v (last: %s)", c.url, timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

type hexNumber uint64

func (h *hexNumber) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	var v uint64
	if _, err := fmt.Sscanf(s, "0x%x", &v); err != nil {
		return fmt.Errorf("not a quantity: %q", s)
	}
	*h = hexNumber(v)
	return nil
}
