package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A test is one .io file: comment lines ("// ..."), then request (">> ")
// and expected response ("<< ") lines. Files with several request/response
// pairs are replayed pair by pair.
type test struct {
	name      string // "eth_getBalance/get-balance-latest"
	method    string // the directory: "eth_getBalance"
	checkCode bool   // the file name ends in "-code.io"
	comment   string
	exchanges []exchange
}

type exchange struct {
	request  string
	response string
}

// parseTest parses the content of the .io file at path (relative to the
// tests directory).
func parseTest(path string, content []byte) (*test, error) {
	rel := filepath.ToSlash(path)
	t := &test{
		name:      strings.TrimSuffix(rel, ".io"),
		method:    filepath.Base(filepath.Dir(path)),
		checkCode: strings.HasSuffix(rel, "-code.io"),
	}
	var pending *string
	for i, line := range strings.Split(string(content), "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "//"):
			t.comment += strings.TrimSpace(strings.TrimPrefix(line, "//")) + "\n"
		case strings.HasPrefix(line, ">>"):
			if pending != nil {
				return nil, fmt.Errorf("%s:%d: request without a response before it", path, i+1)
			}
			req := strings.TrimSpace(strings.TrimPrefix(line, ">>"))
			pending = &req
		case strings.HasPrefix(line, "<<"):
			if pending == nil {
				return nil, fmt.Errorf("%s:%d: response without a request", path, i+1)
			}
			t.exchanges = append(t.exchanges, exchange{request: *pending, response: strings.TrimSpace(strings.TrimPrefix(line, "<<"))})
			pending = nil
		default:
			return nil, fmt.Errorf("%s:%d: line is neither a comment, a request nor a response", path, i+1)
		}
	}
	if pending != nil {
		return nil, fmt.Errorf("%s: request without a response", path)
	}
	if len(t.exchanges) == 0 {
		return nil, fmt.Errorf("%s: no request", path)
	}
	return t, nil
}

// decode parses JSON keeping numbers as json.Number.
func decode(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// compareResponse compares an actual response with the expected one and
// returns the differences (none: the test passes).
//
// A successful expected response must equal the actual one as JSON: key order
// is irrelevant, strings must be equal, numbers must be equal in value
// (integers exactly, numbers with a fraction or exponent as float64).
//
// An expected error is matched by presence: the actual response must carry an
// "error" member (as hive's rpc-compat simulator does). When checkCode is set
// (the fixture's name ends in "-code.io"), the error's code must be equal too,
// and so must its data when the expected error has data.
func compareResponse(expected, actual string, checkCode bool) []string {
	exp, err := decode(expected)
	if err != nil {
		return []string{"fixture: invalid expected response: " + err.Error()}
	}
	act, err := decode(actual)
	if err != nil {
		return []string{"invalid JSON response: " + err.Error() + ": " + abbreviate(actual, 200)}
	}
	expObj, ok := exp.(map[string]any)
	if !ok {
		return []string{"fixture: expected response is not an object"}
	}
	actObj, ok := act.(map[string]any)
	if !ok {
		return []string{"response is not a JSON object: " + abbreviate(actual, 200)}
	}
	if expErr, isErr := expObj["error"]; isErr {
		actErr, hasErr := actObj["error"]
		if !hasErr || actErr == nil {
			if res, ok := actObj["result"]; ok {
				return []string{"expected an error, got result " + abbreviate(render(res), 200)}
			}
			return []string{"expected an error, got " + abbreviate(actual, 200)}
		}
		if !checkCode {
			return nil
		}
		var diffs []string
		e, _ := expErr.(map[string]any)
		a, _ := actErr.(map[string]any)
		if a == nil {
			return []string{"error is not an object: " + abbreviate(render(actErr), 200)}
		}
		for _, key := range []string{"code", "data"} {
			want, ok := e[key]
			if !ok {
				continue
			}
			got, ok := a[key]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("error.%s: missing, want %s", key, render(want)))
				continue
			}
			diffs = append(diffs, diff("error."+key, want, got)...)
		}
		return diffs
	}
	if actErr, hasErr := actObj["error"]; hasErr {
		return []string{"unexpected error " + abbreviate(render(actErr), 300)}
	}
	return diff("", exp, act)
}

// diff lists the differences between want and got, by JSON path.
func diff(path string, want, got any) []string {
	at := path
	if at == "" {
		at = "response"
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want object, got %s", at, abbreviate(render(got), 120))}
		}
		var out []string
		for _, k := range sortedKeys(w) {
			gv, ok := g[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s: missing (want %s)", join(path, k), abbreviate(render(w[k]), 120)))
				continue
			}
			out = append(out, diff(join(path, k), w[k], gv)...)
		}
		for _, k := range sortedKeys(g) {
			if _, ok := w[k]; !ok {
				out = append(out, fmt.Sprintf("%s: unexpected field (got %s)", join(path, k), abbreviate(render(g[k]), 120)))
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want array, got %s", at, abbreviate(render(got), 120))}
		}
		var out []string
		if len(w) != len(g) {
			out = append(out, fmt.Sprintf("%s: want %d elements, got %d", at, len(w), len(g)))
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	case json.Number:
		g, ok := got.(json.Number)
		if !ok || !numbersEqual(w, g) {
			return []string{fmt.Sprintf("%s: want %s, got %s", at, w, abbreviate(render(got), 120))}
		}
		return nil
	default: // string, bool, nil
		if !equalScalar(want, got) {
			return []string{fmt.Sprintf("%s: want %s, got %s", at, abbreviate(render(want), 120), abbreviate(render(got), 120))}
		}
		return nil
	}
}

func equalScalar(a, b any) bool {
	switch a := a.(type) {
	case string:
		b, ok := b.(string)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case nil:
		return b == nil
	}
	return false
}

// numbersEqual compares JSON numbers by value: integers exactly, anything
// with a fraction or an exponent as float64.
func numbersEqual(a, b json.Number) bool {
	if isInteger(a) && isInteger(b) {
		x, ok1 := new(big.Int).SetString(string(a), 10)
		y, ok2 := new(big.Int).SetString(string(b), 10)
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	x, err1 := strconv.ParseFloat(string(a), 64)
	y, err2 := strconv.ParseFloat(string(b), 64)
	return err1 == nil && err2 == nil && x == y
}

func isInteger(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func render(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(buf.String(), "\n")
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("...(%d bytes)", len(s))
}

// summary counts passes per method.
type summary struct {
	Method string `json:"method"`
	Passed int    `json:"passed"`
	Total  int    `json:"total"`
}

func summarize(results []result) []summary {
	by := map[string]*summary{}
	for _, r := range results {
		s := by[r.Method]
		if s == nil {
			s = &summary{Method: r.Method}
			by[r.Method] = s
		}
		s.Total++
		if r.Pass {
			s.Passed++
		}
	}
	out := make([]summary, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Method < out[j].Method })
	return out
}

// result is the outcome of one test.
type result struct {
	Test     string   `json:"test"`
	Method   string   `json:"method"`
	Pass     bool     `json:"pass"`
	Diff     []string `json:"diff,omitempty"`
	Request  string   `json:"request,omitempty"`
	Expected string   `json:"expected,omitempty"`
	Actual   string   `json:"actual,omitempty"`
}

// report is the machine-readable output (-json).
type report struct {
	Label   string    `json:"label,omitempty"`
	URL     string    `json:"url"`
	Passed  int       `json:"passed"`
	Total   int       `json:"total"`
	Methods []summary `json:"methods"`
	Results []result  `json:"results"`
}

// sideBySide renders per-method pass counts of several reports in columns.
func sideBySide(reports []report) string {
	methods := map[string]bool{}
	counts := make([]map[string]summary, len(reports))
	for i, r := range reports {
		counts[i] = map[string]summary{}
		for _, s := range r.Methods {
			methods[s.Method] = true
			counts[i][s.Method] = s
		}
	}
	names := make([]string, 0, len(methods))
	width := len("method")
	for m := range methods {
		names = append(names, m)
		width = max(width, len(m))
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", width, "method")
	for _, r := range reports {
		fmt.Fprintf(&b, "  %12s", r.Label)
	}
	b.WriteString("\n")
	cell := func(s summary, ok bool) string {
		if !ok {
			return "-"
		}
		mark := " "
		if s.Passed != s.Total {
			mark = "*"
		}
		return fmt.Sprintf("%d/%d%s", s.Passed, s.Total, mark)
	}
	for _, m := range names {
		fmt.Fprintf(&b, "%-*s", width, m)
		for i := range reports {
			s, ok := counts[i][m]
			fmt.Fprintf(&b, "  %12s", cell(s, ok))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%-*s", width, "total")
	for _, r := range reports {
		fmt.Fprintf(&b, "  %12s", cell(summary{Passed: r.Passed, Total: r.Total}, true))
	}
	b.WriteString("\n")
	return b.String()
}
