package rest

import (
	"encoding/json"
	"math/big"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/node/stocks"
)

type fakeSource struct{ view atomic.Pointer[stocks.View] }

func (f *fakeSource) View() *stocks.View { return f.view.Load() }

var (
	tokenA = common.HexToAddress("0x00000000000000000000000000000000000000a1")
	tokenB = common.HexToAddress("0x00000000000000000000000000000000000000b2")
)

func testChains() []Chain {
	return []Chain{
		{ChainID: 84538453, Name: "preview", PolicyRegistry: common.HexToAddress("0x8453000000000000000000000000000000000002"), TokenSupplyManager: common.HexToAddress("0x8453000000000000000000000000000000000100"), TokenFactory: common.HexToAddress("0xB20f000000000000000000000000000000000000")},
		{ChainID: 8453, Name: "base", PolicyRegistry: common.HexToAddress("0x01"), TokenSupplyManager: common.HexToAddress("0x02"), TokenFactory: common.HexToAddress("0x03")},
	}
}

func wei(s string) *big.Int { v, _ := new(big.Int).SetString(s, 10); return v }

func testView(number uint64, supplyA string, pausedA []uint8) *stocks.View {
	return stocks.NewView(number, common.Hash{byte(number)}, []*stocks.Token{
		{Address: tokenA, Name: "Example Robotics", Symbol: "XRBT", Decimals: 18, TotalSupply: wei(supplyA), Multiplier: wei("1000000000000000000"), PausedFeatures: pausedA, ISIN: "XS0000000018"},
		{Address: tokenB, Name: "Sample Foods", Symbol: "XSFD", Decimals: 6, TotalSupply: wei("1234567"), Multiplier: wei("1500000000000000000")},
	})
}

func newTestAPI(t testing.TB) (*API, *fakeSource) {
	t.Helper()
	src := new(fakeSource)
	api, err := New(testChains(), src)
	if err != nil {
		t.Fatal(err)
	}
	return api, src
}

// do runs one request through the handler.
func do(api *API, method, path string, headers ...string) *fasthttp.Response {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(path)
	for i := 0; i+1 < len(headers); i += 2 {
		ctx.Request.Header.Set(headers[i], headers[i+1])
	}
	api.Handler(&ctx)
	resp := new(fasthttp.Response)
	ctx.Response.CopyTo(resp)
	return resp
}

func TestAnswers(t *testing.T) {
	api, src := newTestAPI(t)
	src.view.Store(testView(7, "2500000000000000000000", nil))
	tests := []struct {
		name, method, path string
		status             int
		body               string // exact, when set
		contains           string
		allow              string
	}{
		{name: "chains sorted by id", method: "GET", path: pathChains, status: 200,
			body: `{"chains":[{"chain_id":"8453","chain":"base","policy_registry_address":"0x0000000000000000000000000000000000000001","token_supply_manager_address":"0x0000000000000000000000000000000000000002","token_factory_address":"0x0000000000000000000000000000000000000003"},{"chain_id":"84538453","chain":"preview","policy_registry_address":"0x8453000000000000000000000000000000000002","token_supply_manager_address":"0x8453000000000000000000000000000000000100","token_factory_address":"0xB20f000000000000000000000000000000000000"}]}`},
		{name: "tokens", method: "GET", path: pathTokens, status: 200,
			body: `{"tokens":[{"contract_address":"0x00000000000000000000000000000000000000A1","symbol":"XRBT","name":"Example Robotics","decimals":18,"icon_url":"","total_supply":2500,"isin":"XS0000000018","multiplier":1,"paused_features":[]},{"contract_address":"0x00000000000000000000000000000000000000b2","symbol":"XSFD","name":"Sample Foods","decimals":6,"icon_url":"","total_supply":1.234567,"isin":"","multiplier":1.5,"paused_features":[]}]}`},
		{name: "supply", method: "GET", path: pathSupply + tokenB.Hex(), status: 200, body: `1.234567`},
		{name: "supply lower case", method: "GET", path: pathSupply + strings.ToLower(tokenA.Hex()), status: 200, body: `2500`},
		{name: "supply head", method: "HEAD", path: pathSupply + tokenB.Hex(), status: 200},
		{name: "supply bad address", method: "GET", path: pathSupply + "0x1234", status: 400, contains: `{"code":3,"message":"contract_address: \"0x1234\" is not an address`},
		{name: "supply bad checksum", method: "GET", path: pathSupply + "0xb20F000000000000000000000000000000000000", status: 400, contains: `wrong EIP-55 checksum`},
		{name: "supply not a token", method: "GET", path: pathSupply + "0x00000000000000000000000000000000000000c3", status: 404, contains: `{"code":5,"message":"no tokenized stock at`},
		{name: "supply nested path", method: "GET", path: pathSupply + tokenB.Hex() + "/x", status: 404, body: `{"code":5,"message":"Not Found","details":[]}`},
		{name: "unknown path", method: "GET", path: "/v1/tokenized-stocks/nope", status: 404, body: `{"code":5,"message":"Not Found","details":[]}`},
		{name: "trailing slash", method: "GET", path: "/v1/tokenized-stocks/", status: 404, body: `{"code":5,"message":"Not Found","details":[]}`},
		{name: "post chains", method: "POST", path: pathChains, status: 501, body: `{"code":12,"message":"Method Not Allowed","details":[]}`, allow: "GET, HEAD"},
		{name: "delete tokens", method: "DELETE", path: pathTokens, status: 501, allow: "GET, HEAD"},
		{name: "openapi", method: "GET", path: pathOpenAPI, status: 200, contains: `"operationId": "listChainContractAddresses"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(api, tt.method, tt.path)
			if resp.StatusCode() != tt.status {
				t.Fatalf("status %d, want %d (body %s)", resp.StatusCode(), tt.status, resp.Body())
			}
			if ct := string(resp.Header.ContentType()); tt.method != "HEAD" && ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			if tt.body != "" && string(resp.Body()) != tt.body {
				t.Errorf("body\n%s\nwant\n%s", resp.Body(), tt.body)
			}
			if tt.contains != "" && !strings.Contains(string(resp.Body()), tt.contains) {
				t.Errorf("body %s lacks %s", resp.Body(), tt.contains)
			}
			if got := string(resp.Header.Peek("Allow")); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			if tt.status >= 400 {
				var st struct {
					Code    *int    `json:"code"`
					Message *string `json:"message"`
					Details []any   `json:"details"`
				}
				if err := json.Unmarshal(resp.Body(), &st); err != nil || st.Code == nil || st.Message == nil || st.Details == nil {
					t.Errorf("error body %s is not the status object (%v)", resp.Body(), err)
				}
			}
		})
	}
}

func TestCatchingUp(t *testing.T) {
	api, _ := newTestAPI(t)
	for _, path := range []string{pathTokens, pathSupply + tokenA.Hex()} {
		resp := do(api, "GET", path)
		if resp.StatusCode() != 503 || string(resp.Header.Peek("Retry-After")) != "1" || !strings.Contains(string(resp.Body()), `"code":14`) {
			t.Errorf("%s before the first view: %d %s", path, resp.StatusCode(), resp.Body())
		}
	}
	if resp := do(api, "GET", pathChains); resp.StatusCode() != 200 {
		t.Errorf("chains need no view, got %d", resp.StatusCode())
	}
}

func TestETagFollowsTheView(t *testing.T) {
	api, src := newTestAPI(t)
	src.view.Store(testView(1, "1000000000000000000", nil))
	first := do(api, "GET", pathTokens)
	etag := string(first.Header.Peek("ETag"))
	if etag == "" || string(first.Header.Peek("Cache-Control")) != cacheTokens {
		t.Fatalf("headers: %s", first.Header.String())
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		if resp := do(api, "GET", pathTokens, "If-None-Match", inm); resp.StatusCode() != 304 || len(resp.Body()) != 0 {
			t.Errorf("If-None-Match %s: %d %q", inm, resp.StatusCode(), resp.Body())
		}
	}
	// A new head where nothing changed keeps the validator...
	same := testView(2, "1000000000000000000", nil)
	same.Tokens = src.View().Tokens
	src.view.Store(same)
	if resp := do(api, "GET", pathTokens, "If-None-Match", etag); resp.StatusCode() != 304 {
		t.Errorf("unchanged tokens on a new head: %d", resp.StatusCode())
	}
	// ...a mint and a pause change it.
	src.view.Store(testView(3, "3000000000000000000", []uint8{0, 2}))
	resp := do(api, "GET", pathTokens, "If-None-Match", etag)
	if resp.StatusCode() != 200 || !strings.Contains(string(resp.Body()), `"total_supply":3,`) || !strings.Contains(string(resp.Body()), `"paused_features":[0,2]`) {
		t.Errorf("after a change: %d %s", resp.StatusCode(), resp.Body())
	}
	if string(resp.Header.Peek("ETag")) == etag {
		t.Error("ETag did not change with the body")
	}
}

func TestFloatNotation(t *testing.T) {
	for _, tt := range []struct {
		supply   string
		decimals uint8
		want     string
	}{
		{"0", 18, "0"},
		{"1", 18, "1e-18"},
		{"123456789000000000000000000000000000000000", 18, "1.23456789e+23"},
		{"100000000000000000000000", 0, "1e+23"},
		{"12345", 2, "123.45"},
	} {
		view := stocks.NewView(1, common.Hash{}, []*stocks.Token{{Address: tokenA, Decimals: tt.decimals, TotalSupply: wei(tt.supply), Multiplier: new(big.Int)}})
		ev := encodeView(view, nil)
		if got := string(ev.supplies[tokenA].body); got != tt.want {
			t.Errorf("%s/10^%d = %s, want %s", tt.supply, tt.decimals, got, tt.want)
		}
		var f float64
		if err := json.Unmarshal(ev.supplies[tokenA].body, &f); err != nil {
			t.Errorf("%s is not JSON: %v", ev.supplies[tokenA].body, err)
		}
	}
}

func TestDuplicateChain(t *testing.T) {
	chains := append(testChains(), Chain{ChainID: 8453, Name: "again"})
	if _, err := New(chains, new(fakeSource)); err == nil || !strings.Contains(err.Error(), "chain 8453") {
		t.Fatalf("duplicate chain: %v", err)
	}
}
