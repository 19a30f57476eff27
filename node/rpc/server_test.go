package rpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The envelope: parse errors, invalid requests, unknown methods,
// notifications and batches, with geth's codes and messages.
func TestEnvelope(t *testing.T) {
	n := newTestNode(t, 0, 0)
	tests := []struct {
		name, body string
		want       string // substring of the response; "" = empty response
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{"not an object", `42`, `"code":-32600`},
		{"missing method", `{"jsonrpc":"2.0","id":1}`, `"code":-32600`},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}`, `"code":-32600`},
		{"unknown method", `{"jsonrpc":"2.0","id":"x","method":"eth_nope","params":[]}`, `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"the method eth_nope does not exist/is not available"}}`},
		{"id echoed verbatim", `{"jsonrpc":"2.0","id":1.50,"method":"eth_chainId"}`, `"id":1.50,"result":"0x509f455"`},
		{"params object", `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":{"a":1}}`, `"code":-32602,"message":"non-array args"`},
		{"notification", `{"jsonrpc":"2.0","method":"eth_chainId"}`, ``},
		{"empty batch", `[]`, `"code":-32600,"message":"empty batch"`},
		{"batch of notifications", `[{"jsonrpc":"2.0","method":"eth_chainId"}]`, ``},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"net_version"}]`,
			`[{"jsonrpc":"2.0","id":1,"result":"0x509f455"},{"jsonrpc":"2.0","id":2,"result":"84538453"}]`},
		{"batch with a bad element", `[1,{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]`, `"code":-32600`},
		{"deep nesting", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, `"code":-32700`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := n.raw(tt.body)
			if tt.want == "" {
				if got != "" {
					t.Fatalf("got %q, want no response", got)
				}
				return
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want it to contain %q", got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("response %q is not valid JSON", got)
			}
		})
	}
}

func TestBatchLimits(t *testing.T) {
	n := newTestNode(t, 0, 0)
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 1001; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"eth_chainId"}`, i)
	}
	b.WriteString("]")
	if got := n.raw(b.String()); got != `[{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"batch too large"}}]` {
		t.Fatalf("1001 requests: %s", got)
	}

	n.srv.cfg.BatchResponseLimit = 200
	var resp []rpcResponse
	if err := json.Unmarshal([]byte(n.raw(`[`+strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"},`, 9)+`{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"}]`)), &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp) != 10 || resp[0].Error != nil || resp[9].Error == nil || resp[9].Error.Code != -32003 {
		t.Fatalf("batch over the response limit: %+v", resp)
	}
}

// Bad parameters get -32602 with a message that names the argument and what
// is wrong, in geth's words.
func TestInvalidParams(t *testing.T) {
	n := newTestNode(t, 0, 0)
	addr := n.addr(0).Hex()
	tests := []struct {
		method string
		params string
		want   string
	}{
		{"eth_getBalance", `[]`, "missing value for required argument 0"},
		{"eth_getBalance", `["` + addr + `","latest",1]`, "too many arguments, want at most 2"},
		{"eth_getBalance", `["0x` + strings.Repeat("12", 19) + `","latest"]`, "invalid argument 0: hex string has length 38, want 40 for common.Address"},
		{"eth_getBalance", `["0x123","latest"]`, "invalid argument 0: hex string of odd length"},
		{"eth_getBalance", `["` + addr[2:] + `","latest"]`, "invalid argument 0"},
		{"eth_getBalance", `[1,"latest"]`, "invalid argument 0: json: cannot unmarshal non-string"},
		{"eth_getBalance", `["` + addr + `","0x01"]`, "invalid argument 1: hex number with leading zero digits"},
		{"eth_getBalance", `["` + addr + `","0xzz"]`, "invalid argument 1"},
		{"eth_getBalance", `["` + addr + `","newest"]`, "invalid argument 1"},
		{"eth_call", `[{"to":"` + addr + `","data":"0x123"},"latest"]`, "invalid argument 0"},
		{"eth_call", `[{"to":"` + addr + `","data":"0x12","input":"0x34"},"latest"]`, `both "data" and "input" are set`},
		{"eth_getStorageAt", `["` + addr + `","0x` + strings.Repeat("00", 33) + `","latest"]`, "invalid argument 1"},
		{"eth_getBlockByNumber", `["latest","yes"]`, "invalid argument 1"},
		{"eth_sendRawTransaction", `["0x0"]`, "invalid argument 0: hex string of odd length"},
		{"eth_getLogs", `[{"fromBlock":"0x1","blockHash":"0x` + strings.Repeat("11", 32) + `"}]`, "cannot specify both BlockHash and FromBlock/ToBlock"},
		{"eth_feeHistory", `["0x2","latest",[50,10]]`, "invalid reward percentile"},
	}
	for _, tt := range tests {
		t.Run(tt.method+tt.params, func(t *testing.T) {
			var resp rpcResponse
			out := n.raw(`{"jsonrpc":"2.0","id":7,"method":"` + tt.method + `","params":` + tt.params + `}`)
			if err := json.Unmarshal([]byte(out), &resp); err != nil {
				t.Fatalf("%q: %v", out, err)
			}
			if resp.Error == nil || resp.Error.Code != -32602 || !strings.Contains(resp.Error.Message, tt.want) {
				t.Fatalf("got %s, want -32602 containing %q", out, tt.want)
			}
		})
	}
	// The node still answers afterwards.
	var id string
	n.result(&id, "eth_chainId")
	if id != "0x509f455" {
		t.Fatalf("chainId = %s", id)
	}
}

func TestMisc(t *testing.T) {
	n := newTestNode(t, 0, 0)
	tests := []struct {
		method string
		params []any
		want   string
	}{
		{"web3_clientVersion", nil, `"stocknode/v0.1.0"`},
		{"web3_sha3", []any{"0x68656c6c6f"}, `"0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8"`},
		{"net_version", nil, `"84538453"`},
		{"net_listening", nil, `true`},
		{"net_peerCount", nil, `"0x0"`},
		{"eth_chainId", nil, `"0x509f455"`},
		{"eth_syncing", nil, `false`},
		{"eth_accounts", nil, `[]`},
		{"eth_blockNumber", nil, `"0x0"`},
		{"eth_maxPriorityFeePerGas", nil, `"0x3b9aca00"`},
		{"eth_gasPrice", nil, `"0x77359400"`}, // 1 gwei tip + 1 gwei base fee floor
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			resp := n.call(tt.method, tt.params...)
			if resp.Error != nil || string(resp.Result) != tt.want {
				t.Fatalf("got %s / %+v, want %s", resp.Result, resp.Error, tt.want)
			}
		})
	}
}

// waitFor polls cond every few milliseconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
