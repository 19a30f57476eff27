package etherscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
)

// results decodes an answer that must be status 1 with a list.
func results(t *testing.T, body []byte) []map[string]string {
	t.Helper()
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if a.Status != "1" || a.Message != "OK" {
		t.Fatalf("answer %s", body)
	}
	var out []map[string]string
	if err := json.Unmarshal(a.Result, &out); err != nil {
		t.Fatalf("result %s: %v", a.Result, err)
	}
	return out
}

func pick[T any](s []T, idx ...int) []T {
	var out []T
	for _, i := range idx {
		out = append(out, s[i])
	}
	return out
}

func TestTxlist(t *testing.T) {
	e := newEnv(t, true)
	e.history()
	a := e.Addr(0)
	want := e.wantTxs(a)
	if len(want) != 5 {
		t.Fatalf("history of a: %d transactions, want 5", len(want))
	}
	last := want[len(want)-1]["blockNumber"]
	addr := "address=" + lower(a)
	tests := []struct {
		name, query string
		want        []map[string]string
	}{
		{"all, ascending by default", addr, want},
		{"checksummed address", "address=" + a.Hex(), want},
		{"descending", addr + "&sort=desc", reversed(want)},
		{"ascending", addr + "&sort=asc", want},
		{"page 2 of 2", addr + "&page=2&offset=2", pick(want, 2, 3)},
		{"page 3 of 2, short", addr + "&page=3&offset=2", pick(want, 4)},
		{"page 2 of 2, descending", addr + "&page=2&offset=2&sort=desc", pick(want, 2, 1)},
		{"offset without page", addr + "&offset=1", pick(want, 0)},
		{"page and offset zero are the defaults", addr + "&page=0&offset=0", want},
		{"the window's edge", addr + "&page=100&offset=100", nil},
		{"start block", addr + "&startblock=" + last, inBlocks(want, last, "")},
		{"end block", addr + "&endblock=" + want[0]["blockNumber"], inBlocks(want, "", want[0]["blockNumber"])},
		{"end block latest", addr + "&startblock=0&endblock=latest", want},
		{"empty range", addr + "&startblock=" + last + "&endblock=1", nil},
		{"an API key and the chain id are accepted", addr + "&apikey=X&chainid=" + e.Chain.Config().ChainID.String(), want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.get("module=account&action=txlist&" + tt.query)
			if status != 200 {
				t.Fatalf("HTTP %d", status)
			}
			wantResults(t, body, tt.want)
		})
	}
	// The other side of a's transfer, and the contract a created.
	b := e.Addr(1)
	if got := results(t, must(e.get("module=account&action=txlist&address="+lower(b)))); !reflect.DeepEqual(got, e.wantTxs(b)) {
		t.Errorf("history of b: %v", got)
	}
	created := common.HexToAddress(want[1]["contractAddress"])
	if got := results(t, must(e.get("module=account&action=txlist&address="+lower(created)))); !reflect.DeepEqual(got, pick(want, 1)) {
		t.Errorf("history of the contract a created: %v", got)
	}
}

// inBlocks is the entries from block lo to block hi (either empty: no bound).
func inBlocks(entries []map[string]string, lo, hi string) []map[string]string {
	num := func(s string) uint64 { v, _ := strconv.ParseUint(s, 10, 64); return v }
	var out []map[string]string
	for _, e := range entries {
		n := num(e["blockNumber"])
		if (lo == "" || n >= num(lo)) && (hi == "" || n <= num(hi)) {
			out = append(out, e)
		}
	}
	return out
}

// wantResults checks an answer's results; want nil is the answer that
// found none.
func wantResults(t *testing.T, body []byte, want []map[string]string) {
	t.Helper()
	if want == nil {
		if string(body) != `{"status":"0","message":"No transactions found","result":[]}` {
			t.Fatalf("answer %s", body)
		}
		return
	}
	if got := results(t, body); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
}

func must(_ int, body []byte) []byte { return body }

func reversed[T any](s []T) []T {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

func TestTokentx(t *testing.T) {
	e := newEnv(t, true)
	e.history()
	a := e.Addr(0)
	want := e.wantTransfers(a, e.api.tokens)
	// Three mints to a, then two transfers from a.
	if len(want) != 5 {
		t.Fatalf("transfers of a: %d, want 5", len(want))
	}
	issuer := addrOf(chain.ExampleIssuerKey())
	known := contracts.B20Address(contracts.VariantAsset, issuer, preview.Salt(preview.Examples()[0]))
	unknown := contracts.B20Address(contracts.VariantAsset, issuer, preview.Salt(preview.Examples()[2]))
	var ofKnown []map[string]string
	for _, w := range want {
		if w["contractAddress"] == lower(known) {
			ofKnown = append(ofKnown, w)
		}
	}
	addr := "address=" + lower(a)
	tests := []struct {
		name, query string
		want        []map[string]string
	}{
		{"all", addr, want},
		{"descending, second page of two", addr + "&sort=desc&page=2&offset=2", pick(want, 2, 1)},
		{"one token", addr + "&contractaddress=" + lower(known), ofKnown},
		{"one token, descending", addr + "&contractaddress=" + known.Hex() + "&sort=desc", reversed(ofKnown)},
		{"one token, from its last block", addr + "&contractaddress=" + lower(known) + "&startblock=" + ofKnown[1]["blockNumber"], inBlocks(ofKnown, ofKnown[1]["blockNumber"], "")},
		{"a token a never had", addr + "&contractaddress=0x00000000000000000000000000000000000000aa", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body := e.get("module=account&action=tokentx&" + tt.query)
			wantResults(t, body, tt.want)
		})
	}
	// The unknown token has no name, symbol or decimals.
	for _, w := range want {
		if w["contractAddress"] == lower(unknown) && (w["tokenName"] != "" || w["tokenDecimal"] != "") {
			t.Errorf("unknown token named: %v", w)
		}
		if w["contractAddress"] == lower(known) && (w["tokenSymbol"] != "XRBT" || w["tokenDecimal"] != "18") {
			t.Errorf("known token: %v", w)
		}
	}
}

func TestBalance(t *testing.T) {
	e := newEnv(t, true)
	e.history()
	a := e.Addr(0)
	acct, err := e.Store.Load().LatestReader().Account(a)
	if err != nil {
		t.Fatal(err)
	}
	balance := acct.Balance.Dec()
	for _, tt := range []struct{ query, want string }{
		{"address=" + lower(a), `{"status":"1","message":"OK","result":"` + balance + `"}`},
		{"address=" + a.Hex() + "&tag=latest", `{"status":"1","message":"OK","result":"` + balance + `"}`},
		{"address=" + lower(a) + "&tag=pending", `{"status":"1","message":"OK","result":"` + balance + `"}`},
		{"address=0x00000000000000000000000000000000000000aa", `{"status":"1","message":"OK","result":"0"}`},
		{"address=" + lower(a) + "&tag=earliest", `{"status":"0","message":"NOTOK","result":"Error! Invalid tag: latest or pending"}`},
		{"address=0x1234", `{"status":"0","message":"NOTOK","result":"Error! Invalid address format"}`},
	} {
		if _, body := e.get("module=account&action=balance&" + tt.query); string(body) != tt.want {
			t.Errorf("%s: %s, want %s", tt.query, body, tt.want)
		}
	}
}

func TestErrors(t *testing.T) {
	e := newEnv(t, true)
	e.history()
	addr := "&address=" + lower(e.Addr(0))
	notok := func(msg string) string { return `{"status":"0","message":"NOTOK","result":"` + msg + `"}` }
	none := `{"status":"0","message":"No transactions found","result":[]}`
	tests := []struct{ query, want string }{
		{"", notok(msgModule)},
		{"module=accounts&action=txlist" + addr, notok(msgModule)},
		{"module=account", notok(msgAction)},
		{"module=account&action=txlistinternal" + addr, notok(msgAction)},
		{"module=account&action=txlist", notok(msgAddress)},
		{"module=account&action=txlist&address=0x12", notok(msgAddress)},
		{"module=account&action=txlist&address=f39fd6e51aad88f6f4ce6ab8827279cfffb92266", notok(msgAddress)},
		{"module=account&action=txlist&address=0xg39fd6e51aad88f6f4ce6ab8827279cfffb92266", notok(msgAddress)},
		{"module=account&action=tokentx", notok(msgAddress)},
		{"module=account&action=balance", notok(msgAddress)},
		{"module=account&action=txlist&page=2&offset=10000" + addr, notok(msgWindow)},
		{"module=account&action=txlist&page=101&offset=100" + addr, notok(msgWindow)},
		{"module=account&action=txlist&page=11" + addr, notok(msgWindow)},
		{"module=account&action=txlist&offset=10001" + addr, notok(msgWindow)},
		{"module=account&action=txlist&page=18446744073709551615&offset=18446744073709551615" + addr, notok(msgWindow)},
		{"module=account&action=tokentx&page=5000&offset=3" + addr, notok(msgWindow)},
		{"module=account&action=txlist&page=one" + addr, notok("Error! Invalid page: a number")},
		{"module=account&action=txlist&offset=-1" + addr, notok("Error! Invalid offset: a number")},
		{"module=account&action=txlist&startblock=x" + addr, notok("Error! Invalid startblock: a block number")},
		{"module=account&action=txlist&endblock=99999999999999999999" + addr, notok("Error! Invalid endblock: a block number or latest")},
		{"module=account&action=txlist&sort=newest" + addr, notok(msgSort)},
		{"module=account&action=tokentx&contractaddress=0x1" + addr, notok(msgContract)},
		{"module=account&action=txlist&chainid=1" + addr, notok(msgChainID + e.Chain.Config().ChainID.String())},
		{"module=account&action=txlist&address=0x00000000000000000000000000000000000000aa", none},
		{"module=account&action=tokentx&address=0x00000000000000000000000000000000000000aa", none},
		{"module=account&action=txlist&address=0x00000000000000000000000000000000000000aa&page=100&offset=100", none},
		{"module=account&action=txlist&page=2" + addr, none}, // a's five are on the first page of 1,000
	}
	for _, tt := range tests {
		status, body := e.get(tt.query)
		if status != 200 || string(body) != tt.want {
			t.Errorf("%q: HTTP %d %s\nwant %s", tt.query, status, body, tt.want)
		}
	}
}

func TestMethodNotAllowed(t *testing.T) {
	e := newEnv(t, false)
	for _, method := range []string{"POST", "PUT", "DELETE"} {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(method)
		ctx.Request.SetRequestURI(Path + "?module=account&action=balance&address=0x00000000000000000000000000000000000000aa")
		e.api.Handler(&ctx)
		if status, allow := ctx.Response.StatusCode(), string(ctx.Response.Header.Peek("Allow")); status != 405 || allow != "GET, HEAD" {
			t.Errorf("%s: HTTP %d, Allow %q", method, status, allow)
		}
	}
}

// TestCatchingUp asks for a history while the index trails the chain by
// more than maxLag blocks: the answer says so rather than leave out the
// newest transactions.
func TestCatchingUp(t *testing.T) {
	e := newEnv(t, false)
	e.WaitFor("blocks", func(*pending.Snapshot) bool { return e.Chain.Head().Number.Uint64() > 2*maxLag })
	e.Stop()
	head := e.Chain.Head().Number.Uint64()
	_, body := e.get("module=account&action=txlist&address=" + lower(e.Addr(0)))
	want := fmt.Sprintf(`{"status":"0","message":"NOTOK","result":"Error! The address index is catching up with the chain (block 0 of %d); retry shortly"}`, head)
	if string(body) != want {
		t.Errorf("%s\nwant %s", body, want)
	}
}

// TestFieldOrder is the golden check of Etherscan's field order.
func TestFieldOrder(t *testing.T) {
	e := newEnv(t, true)
	e.history()
	a := lower(e.Addr(0))
	for _, tt := range []struct {
		action string
		fields string
	}{
		{"txlist", "blockNumber timeStamp hash nonce blockHash transactionIndex from to value gas gasPrice isError txreceipt_status input contractAddress cumulativeGasUsed gasUsed confirmations methodId functionName"},
		{"tokentx", "blockNumber timeStamp hash nonce blockHash from contractAddress to value tokenName tokenSymbol tokenDecimal transactionIndex gas gasPrice gasUsed cumulativeGasUsed input confirmations"},
	} {
		_, body := e.get("module=account&action=" + tt.action + "&address=" + a)
		if !bytes.HasPrefix(body, []byte(`{"status":"1","message":"OK","result":[{`)) {
			t.Fatalf("%s: %s", tt.action, body)
		}
		var entries []json.RawMessage
		if err := json.Unmarshal(body[len(`{"status":"1","message":"OK","result":`):len(body)-1], &entries); err != nil {
			t.Fatal(err)
		}
		for _, entry := range entries {
			if got := strings.Join(keys(t, entry), " "); got != tt.fields {
				t.Errorf("%s fields:\n%s\nwant\n%s", tt.action, got, tt.fields)
			}
		}
	}
}

// keys lists an object's keys in order, checking every value is a string.
func keys(t *testing.T, obj []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: not an object", obj)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		v, err := dec.Token()
		if _, ok := v.(string); err != nil || !ok {
			t.Fatalf("%s: %v is not a string", k, v)
		}
		out = append(out, k.(string))
	}
	return out
}
