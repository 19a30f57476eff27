package etherscan

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/explorer/index"
)

func TestParseAddress(t *testing.T) {
	a := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	for _, tt := range []struct {
		in   string
		want common.Address
		ok   bool
	}{
		{"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", a, true},
		{"0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266", a, true},
		{"0Xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", a, true},
		// Checksums are not checked, as at Etherscan.
		{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267", common.HexToAddress("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92267"), true},
		{"f39fd6e51aad88f6f4ce6ab8827279cfffb92266", common.Address{}, false},
		{"0xf39fd6e51aad88f6f4ce6ab8827279cfffb9226", common.Address{}, false},
		{"0xf39fd6e51aad88f6f4ce6ab8827279cfffb922661", common.Address{}, false},
		{"0xg39fd6e51aad88f6f4ce6ab8827279cfffb92266", common.Address{}, false},
		{"", common.Address{}, false},
	} {
		if got, ok := parseAddress([]byte(tt.in)); got != tt.want || ok != tt.ok {
			t.Errorf("%q: %s %v, want %s %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseUint(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"007", 7, true},
		{"18446744073709551615", math.MaxUint64, true},
		{"18446744073709551616", 0, false},
		{"99999999999999999999", 0, false},
		{"", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1e3", 0, false},
		{"0x10", 0, false},
		{" 1", 0, false},
	} {
		if got, ok := parseUint([]byte(tt.in)); got != tt.want || ok != tt.ok {
			t.Errorf("%q: %d %v, want %d %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseQuery(t *testing.T) {
	all := uint64(math.MaxUint64)
	for _, tt := range []struct {
		query string
		want  index.Query
		msg   string
	}{
		{"", index.Query{ToBlock: all, Ascending: true, Limit: 10_000}, ""},
		{"page=3&offset=25&sort=desc", index.Query{ToBlock: all, Skip: 50, Limit: 25}, ""},
		{"startblock=5&endblock=9", index.Query{FromBlock: 5, ToBlock: 9, Ascending: true, Limit: 10_000}, ""},
		{"endblock=latest", index.Query{ToBlock: all, Ascending: true, Limit: 10_000}, ""},
		{"page=0&offset=0", index.Query{ToBlock: all, Ascending: true, Limit: 10_000}, ""},
		{"page=100&offset=100", index.Query{ToBlock: all, Ascending: true, Skip: 9_900, Limit: 100}, ""},
		{"page=10000&offset=1", index.Query{ToBlock: all, Ascending: true, Skip: 9_999, Limit: 1}, ""},
		{"page=10001&offset=1", index.Query{}, msgWindow},
		{"page=4294967296&offset=4294967296", index.Query{}, msgWindow},
		{"page=2", index.Query{}, msgWindow},
		{"sort=ASC", index.Query{}, msgSort},
		{"startblock=-1", index.Query{}, "Error! Invalid startblock: a block number"},
		{"endblock=pending", index.Query{}, "Error! Invalid endblock: a block number or latest"},
		{"page=1.5", index.Query{}, "Error! Invalid page: a number"},
		{"offset=ten", index.Query{}, "Error! Invalid offset: a number"},
	} {
		var args fasthttp.Args
		args.Parse(tt.query)
		q, msg := parseQuery(&args)
		if msg != tt.msg || (msg == "" && q != tt.want) {
			t.Errorf("%q: %+v %q, want %+v %q", tt.query, q, msg, tt.want, tt.msg)
		}
	}
}

// TestHostileTokenName encodes a token name and symbol that a token's
// deployer chose: the answer stays valid JSON and carries them intact.
func TestHostileTokenName(t *testing.T) {
	name, symbol := "a\"b\\c\n</script>\u2028", "\xff\x00"
	body := appendTransfer(nil, &index.Transfer{Value: big.NewInt(1), GasPrice: big.NewInt(2)}, common.Hash{},
		token{name: name, symbol: symbol, decimals: "18"}, 0)
	var got map[string]string
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if got["tokenName"] != name || got["tokenSymbol"] != "\ufffd\x00" {
		t.Errorf("name %q symbol %q", got["tokenName"], got["tokenSymbol"])
	}
}
