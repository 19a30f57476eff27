package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// rpcResponse is one JSON-RPC response object.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// httpPost posts body with the given content type and returns the status
// and the response body.
func httpPost(t *testing.T, client *http.Client, url, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST %.80q: %v", body, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %.80q: reading the response: %v", body, err)
	}
	return resp.StatusCode, out
}

// Bad input over HTTP, end to end: every malformed request gets the JSON-RPC
// or HTTP error geth gives, and the node keeps producing and answering.
func TestBadInputOverHTTP(t *testing.T) {
	n := startNode(t)
	client := &http.Client{Timeout: 30 * time.Second}
	const addr = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"

	// call posts a JSON body and expects HTTP 200 with one response object.
	call := func(t *testing.T, body string) rpcResponse {
		t.Helper()
		status, out := httpPost(t, client, n.URL, "application/json", []byte(body))
		if status != http.StatusOK {
			t.Fatalf("POST %.200s: HTTP %d %.200s", body, status, out)
		}
		var resp rpcResponse
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("POST %.200s: response %.300s is not one JSON-RPC object: %v", body, out, err)
		}
		if resp.JSONRPC != "2.0" {
			t.Errorf("response %.300s lacks \"jsonrpc\":\"2.0\"", out)
		}
		return resp
	}
	// wantError expects an error with the code, a message containing msg,
	// and the id (raw JSON).
	wantError := func(t *testing.T, body string, code int, msg, id string) {
		t.Helper()
		resp := call(t, body)
		switch {
		case resp.Error == nil:
			t.Errorf("POST %.200s: result %.200s, want error %d %q", body, resp.Result, code, msg)
		case resp.Error.Code != code || !strings.Contains(resp.Error.Message, msg):
			t.Errorf("POST %.200s: error %d %q, want %d containing %q", body, resp.Error.Code, resp.Error.Message, code, msg)
		case string(resp.ID) != id:
			t.Errorf("POST %.200s: id %s, want %s", body, resp.ID, id)
		case resp.Result != nil:
			t.Errorf("POST %.200s: both error and result", body)
		}
	}
	req := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	}

	t.Run("malformed JSON", func(t *testing.T) {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"`,
			`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[}`,
			`{"jsonrpc":"2.0","id":1,"method":'eth_blockNumber'}`,
			`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}}`,
			`[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},`,
			"\x00\xff",
			`nul`,
		} {
			wantError(t, body, -32700, "parse error", "null")
		}
	})

	t.Run("not a request", func(t *testing.T) {
		wantError(t, `{"jsonrpc":"2.0","id":1,"method":7}`, -32600, "invalid request", "1")
		wantError(t, `{"jsonrpc":"2.0","id":1}`, -32600, "invalid request", "1")
		wantError(t, `{"jsonrpc":"1.0","id":1,"method":"eth_blockNumber"}`, -32600, "invalid request", "1")
		wantError(t, `{"jsonrpc":"2.0","id":{"a":1},"method":"eth_blockNumber"}`, -32600, "invalid request", "null")
		wantError(t, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":"0x1"}`, -32600, "invalid request", "1")
		wantError(t, `"eth_blockNumber"`, -32600, "invalid request", "null")
		wantError(t, `[]`, -32600, "empty batch", "null")
	})

	t.Run("unknown method", func(t *testing.T) {
		wantError(t, `{"jsonrpc":"2.0","id":"abc","method":"eth_noSuchMethod","params":[]}`, -32601,
			"the method eth_noSuchMethod does not exist/is not available", `"abc"`)
		wantError(t, `{"jsonrpc":"2.0","id":3,"method":"debug_setHead","params":[]}`, -32601, "does not exist", "3")
	})

	t.Run("wrong types", func(t *testing.T) {
		wantError(t, req("eth_getBalance", `[123, "latest"]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_getBalance", `[true, "latest"]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_getBalance", fmt.Sprintf(`[%q, 5]`, addr)), -32602, "invalid argument 1", "7")
		wantError(t, req("eth_getBalance", `{"address":"`+addr+`"}`), -32602, "non-array args", "7")
		wantError(t, req("eth_getBlockByNumber", `["latest", "yes"]`), -32602, "invalid argument 1", "7")
		wantError(t, req("eth_getBlockByNumber", `[{"x":1}, false]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_call", `["0x00", "latest"]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_call", `[{"to":"`+addr+`","value":1}, "latest"]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_getBalance", `[]`), -32602, "missing value for required argument 0", "7")
		wantError(t, req("eth_getBalance", fmt.Sprintf(`[%q, "latest", 1, 2, 3]`, addr)), -32602, "too many arguments", "7")
		wantError(t, req("eth_getFilterChanges", `[12]`), -32602, "invalid argument 0", "7")
	})

	t.Run("bad hex", func(t *testing.T) {
		wantError(t, req("eth_getBalance", `["0xZZ39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "latest"]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_getBalance", `["0x1234", "latest"]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_getBalance", `["f39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "latest"]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_getBalance", fmt.Sprintf(`[%q, "0xg"]`, addr)), -32602, "invalid argument 1", "7")
		wantError(t, req("eth_getBalance", fmt.Sprintf(`[%q, "0x"]`, addr)), -32602, "invalid argument 1", "7")
		wantError(t, req("eth_getBalance", fmt.Sprintf(`[%q, "0x10000000000000000"]`, addr)), -32602, "invalid argument 1", "7")
		wantError(t, req("eth_getBlockByHash", `["0x1234", false]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_sendRawTransaction", `["0xzz"]`), -32602, "invalid argument 0", "7")
		wantError(t, req("eth_getStorageAt", fmt.Sprintf(`[%q, "0xq", "latest"]`, addr)), -32602, "invalid argument 1", "7")
	})

	t.Run("odd-length data", func(t *testing.T) {
		wantError(t, req("eth_call", `[{"to":"`+addr+`","data":"0x123"}, "latest"]`), -32602, "odd length", "7")
		wantError(t, req("eth_call", `[{"to":"`+addr+`","input":"0xabc"}, "latest"]`), -32602, "odd length", "7")
		wantError(t, req("eth_estimateGas", `[{"to":"`+addr+`","data":"0x1"}]`), -32602, "odd length", "7")
		wantError(t, req("web3_sha3", `["0x123"]`), -32602, "odd length", "7")
		wantError(t, req("eth_sendRawTransaction", `["0x123"]`), -32602, "odd length", "7")
	})

	t.Run("leading zeros in a quantity", func(t *testing.T) {
		wantError(t, req("eth_getBlockByNumber", `["0x01", false]`), -32602, "leading zero", "7")
		wantError(t, req("eth_getBalance", fmt.Sprintf(`[%q, "0x00"]`, addr)), -32602, "leading zero", "7")
		wantError(t, req("eth_call", `[{"to":"`+addr+`","gas":"0x0100"}, "latest"]`), -32602, "leading zero", "7")
		wantError(t, req("eth_getTransactionByBlockNumberAndIndex", `["latest", "0x00"]`), -32602, "leading zero", "7")
		// 0x0 itself is minimal.
		if resp := call(t, req("eth_getBlockByNumber", `["0x0", false]`)); resp.Error != nil || len(resp.Result) < 10 {
			t.Errorf("eth_getBlockByNumber(0x0) = %s, %+v", resp.Result, resp.Error)
		}
	})

	t.Run("unknown block", func(t *testing.T) {
		unknown := "0x" + strings.Repeat("ab", 32)
		wantError(t, req("eth_getBalance", fmt.Sprintf(`[%q, {"blockHash":%q}]`, addr, unknown)), -32000, "header for hash not found", "7")
		wantError(t, req("eth_call", fmt.Sprintf(`[{"to":%q}, {"blockHash":%q}]`, addr, unknown)), -32000, "header for hash not found", "7")
		wantError(t, req("eth_getBalance", fmt.Sprintf(`[%q, "0xffffffff"]`, addr)), -32000, "header not found", "7")
		for _, body := range []string{
			req("eth_getBlockByHash", fmt.Sprintf(`[%q, false]`, unknown)),
			req("eth_getBlockByNumber", `["0xffffffff", false]`),
			req("eth_getTransactionByHash", fmt.Sprintf(`[%q]`, unknown)),
			req("eth_getTransactionReceipt", fmt.Sprintf(`[%q]`, unknown)),
		} {
			if resp := call(t, body); resp.Error != nil || string(resp.Result) != "null" {
				t.Errorf("POST %s: result %s error %+v, want null", body, resp.Result, resp.Error)
			}
		}
	})

	t.Run("notification gets no response", func(t *testing.T) {
		status, out := httpPost(t, client, n.URL, "application/json", []byte(`{"jsonrpc":"2.0","method":"eth_blockNumber","params":[]}`))
		if status != http.StatusOK || len(bytes.TrimSpace(out)) != 0 {
			t.Errorf("notification answered HTTP %d %q, want 200 and an empty body", status, out)
		}
	})

	t.Run("content type", func(t *testing.T) {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", ""} {
			if status, out := httpPost(t, client, n.URL, ct, body); status != http.StatusUnsupportedMediaType {
				t.Errorf("Content-Type %q: HTTP %d %q, want 415", ct, status, out)
			}
		}
		if status, out := httpPost(t, client, n.URL, "application/json; charset=utf-8", body); status != http.StatusOK || !bytes.Contains(out, []byte(`"result"`)) {
			t.Errorf("Content-Type with charset: HTTP %d %q, want 200 and a result", status, out)
		}
	})

	t.Run("6 MiB body is refused with 413", func(t *testing.T) {
		u, err := url.Parse(n.URL)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		// The server answers by Content-Length before reading the body; a
		// client writing 6 MiB first could see a reset instead of the answer.
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", u.Host, 6<<20)
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil {
			t.Fatalf("reading the status line: %v", err)
		}
		if !strings.HasPrefix(line, "HTTP/1.1 413") {
			t.Fatalf("status line %q, want HTTP/1.1 413", line)
		}
		// Just under the 5 MiB limit is served.
		big := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]`), bytes.Repeat([]byte(" "), 5<<20-200)...)
		big = append(big, '}')
		if status, out := httpPost(t, client, n.URL, "application/json", big); status != http.StatusOK || !bytes.Contains(out, []byte(`"result"`)) {
			t.Errorf("a body just under 5 MiB: HTTP %d %.200q", status, out)
		}
	})

	t.Run("batches", func(t *testing.T) {
		elems := make([]string, 2000)
		for i := range elems {
			elems[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_chainId","params":[]}`, i+1)
		}
		status, out := httpPost(t, client, n.URL, "application/json", []byte("["+strings.Join(elems, ",")+"]"))
		var resps []rpcResponse
		if err := json.Unmarshal(out, &resps); status != http.StatusOK || err != nil {
			t.Fatalf("2,000-request batch: HTTP %d %.300s (%v)", status, out, err)
		}
		if len(resps) != 1 || resps[0].Error == nil || resps[0].Error.Code != -32600 || resps[0].Error.Message != "batch too large" {
			t.Fatalf("2,000-request batch answered %.300s, want one error -32600 \"batch too large\"", out)
		}
		if string(resps[0].ID) != "1" {
			t.Errorf("batch too large addressed to id %s, want the first request's id 1 (as geth)", resps[0].ID)
		}

		// The limit itself, 1,000, is served in full and in order.
		status, out = httpPost(t, client, n.URL, "application/json", []byte("["+strings.Join(elems[:1000], ",")+"]"))
		resps = nil
		if err := json.Unmarshal(out, &resps); status != http.StatusOK || err != nil || len(resps) != 1000 {
			t.Fatalf("1,000-request batch: HTTP %d, %d responses (%v)", status, len(resps), err)
		}
		for i, r := range resps {
			if string(r.ID) != fmt.Sprint(i+1) || r.Error != nil || string(r.Result) != fmt.Sprintf(`"0x%x"`, chainID) {
				t.Fatalf("response %d: id %s result %s error %+v", i, r.ID, r.Result, r.Error)
			}
		}

		// A mixed batch: each element answered on its own, in order.
		mixed := `[` + req("eth_chainId", `[]`) + `,{"jsonrpc":"2.0","id":8,"method":"eth_nope"},` +
			`{"jsonrpc":"2.0","id":9,"method":"eth_getBlockByNumber","params":["0x01",false]},` +
			`{"jsonrpc":"2.0","method":"eth_blockNumber"},` + `{"jsonrpc":"2.0","id":10}]`
		status, out = httpPost(t, client, n.URL, "application/json", []byte(mixed))
		resps = nil
		if err := json.Unmarshal(out, &resps); status != http.StatusOK || err != nil || len(resps) != 4 {
			t.Fatalf("mixed batch: HTTP %d %s (%v), want 4 responses (the notification gets none)", status, out, err)
		}
		want := []struct {
			id   string
			code int
		}{{"7", 0}, {"8", -32601}, {"9", -32602}, {"10", -32600}}
		for i, w := range want {
			r := resps[i]
			code := 0
			if r.Error != nil {
				code = r.Error.Code
			}
			if string(r.ID) != w.id || code != w.code {
				t.Errorf("mixed batch response %d: id %s code %d, want id %s code %d", i, r.ID, code, w.id, w.code)
			}
		}
	})

	t.Run("deep nesting", func(t *testing.T) {
		deep := strings.Repeat("[", 100_000)
		for _, body := range []string{
			deep,
			deep + strings.Repeat("]", 100_000),
			`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":` + deep + strings.Repeat("]", 100_000) + `}`,
			strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000),
			`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":` + deep,
		} {
			status, out := httpPost(t, client, n.URL, "application/json", []byte(body))
			var resp rpcResponse
			if err := json.Unmarshal(out, &resp); status != http.StatusOK || err != nil {
				t.Errorf("%.40s... (%d bytes): HTTP %d %.200q (%v), want one error object", body, len(body), status, out, err)
				continue
			}
			if resp.Error == nil || resp.Error.Code != -32700 || string(resp.ID) != "null" {
				t.Errorf("%.40s... (%d bytes): %.200s, want -32700 with id null", body, len(body), out)
			}
		}
	})

	t.Run("still serving", func(t *testing.T) {
		blockNumber := func() uint64 {
			resp := call(t, req("eth_blockNumber", `[]`))
			var hex string
			if resp.Error != nil || json.Unmarshal(resp.Result, &hex) != nil {
				t.Fatalf("eth_blockNumber: %s %+v", resp.Result, resp.Error)
			}
			var v uint64
			if _, err := fmt.Sscanf(hex, "0x%x", &v); err != nil {
				t.Fatalf("eth_blockNumber %q: %v", hex, err)
			}
			return v
		}
		first := blockNumber()
		deadline := time.Now().Add(10 * time.Second)
		prev := first
		for prev < first+3 {
			if time.Now().After(deadline) {
				t.Fatalf("eth_blockNumber stuck at %d after the bad input (started at %d)", prev, first)
			}
			time.Sleep(50 * time.Millisecond)
			now := blockNumber()
			if now < prev {
				t.Fatalf("eth_blockNumber went back from %d to %d", prev, now)
			}
			prev = now
		}
	})
}
