package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNoSniff: over real sockets, every JSON API of the binary, answers
// and errors, says X-Content-Type-Options: nosniff, as its pages do: a
// browser must not take a JSON answer, which may quote a client's input,
// for a page of this origin.
func TestNoSniff(t *testing.T) {
	n := startNode(t)
	poll(t, testContext(t, 10*time.Second), "a sealed block (/health answers 200)", func() bool {
		resp, err := http.Get(n.URL + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	const rpc = "application/json"
	for _, tt := range []struct {
		name, method, path, contentType, body string
		status                                int
	}{
		{"JSON-RPC", "POST", "/", rpc, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`, 200},
		{"a JSON-RPC error", "POST", "/", rpc, `{"jsonrpc":"2.0","id":1,"method":"nope","params":[]}`, 200},
		{"a JSON-RPC batch", "POST", "/", rpc, `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}]`, 200},
		{"JSON-RPC of another type", "POST", "/", "text/plain", `{}`, 415},
		{"health", "GET", "/health", "", "", 200},
		{"the REST API", "GET", "/v1/tokenized-stocks/chains", "", "", 200},
		{"a REST error", "GET", "/v1/tokenized-stocks/total-supply/0x12", "", "", 400},
		{"the OpenAPI document", "GET", "/v1/openapi.json", "", "", 200},
		{"the faucet's status", "GET", "/api/preview/faucet/status", "", "", 200},
		{"a faucet error", "POST", "/api/preview/faucet/drip", rpc, `{}`, 400},
		{"chain-health", "GET", "/api/preview/chain-health", "", "", 200},
		{"the Etherscan API", "GET", "/api?module=account&action=balance&address=0x00000000000000000000000000000000000000aa", "", "", 200},
		{"an Etherscan error", "GET", "/api?module=nope", "", "", 200},
		{"an explorer page", "GET", "/", "", "", 200},
		{"nothing there", "GET", "/no/such/page", "", "", 404},
	} {
		req, err := http.NewRequest(tt.method, n.URL+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		if tt.contentType != "" {
			req.Header.Set("Content-Type", tt.contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("X-Content-Type-Options"); resp.StatusCode != tt.status || got != "nosniff" {
			t.Errorf("%s (%s %s): HTTP %d with X-Content-Type-Options %q, want %d nosniff", tt.name, tt.method, tt.path, resp.StatusCode, got, tt.status)
		}
	}
}
