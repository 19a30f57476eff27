package etherscan

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
	"time"

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
	small := DefaultConfig()
	small.MaxRows = 100
	for _, tt := range []struct {
		name  string
		cfg   Config
		query string
		want  index.Query
		msg   string
	}{
		{"defaults: a page of 1,000", DefaultConfig(), "", index.Query{ToBlock: all, Ascending: true, Limit: 1_000}, ""},
		{"page and offset", DefaultConfig(), "page=3&offset=25&sort=desc", index.Query{ToBlock: all, Skip: 50, Limit: 25}, ""},
		{"block range", DefaultConfig(), "startblock=5&endblock=9", index.Query{FromBlock: 5, ToBlock: 9, Ascending: true, Limit: 1_000}, ""},
		{"endblock latest", DefaultConfig(), "endblock=latest", index.Query{ToBlock: all, Ascending: true, Limit: 1_000}, ""},
		{"page and offset zero are the defaults", DefaultConfig(), "page=0&offset=0", index.Query{ToBlock: all, Ascending: true, Limit: 1_000}, ""},
		{"the default page's last page", DefaultConfig(), "page=10", index.Query{ToBlock: all, Ascending: true, Skip: 9_000, Limit: 1_000}, ""},
		{"all of Etherscan's window at once", DefaultConfig(), "offset=10000", index.Query{ToBlock: all, Ascending: true, Limit: 10_000}, ""},
		{"the window's end", DefaultConfig(), "page=100&offset=100", index.Query{ToBlock: all, Ascending: true, Skip: 9_900, Limit: 100}, ""},
		{"the window's last entry", DefaultConfig(), "page=10000&offset=1", index.Query{ToBlock: all, Ascending: true, Skip: 9_999, Limit: 1}, ""},
		{"past the window", DefaultConfig(), "page=10001&offset=1", index.Query{}, msgWindow},
		{"past the window, huge", DefaultConfig(), "page=4294967296&offset=4294967296", index.Query{}, msgWindow},
		{"past the window by default pages", DefaultConfig(), "page=11", index.Query{}, msgWindow},
		{"offset over the window", DefaultConfig(), "offset=10001", index.Query{}, msgWindow},
		{"fewer rows: the default page shrinks", small, "", index.Query{ToBlock: all, Ascending: true, Limit: 100}, ""},
		{"fewer rows: the window stays", small, "page=100&offset=100", index.Query{ToBlock: all, Ascending: true, Skip: 9_900, Limit: 100}, ""},
		{"fewer rows: more refused", small, "offset=101", index.Query{}, "Error! offset 101 is more rows than this node answers at once (100, --explorer.api.max-rows); ask for pages of at most 100 rows"},
		{"fewer rows: the window first", small, "page=2&offset=10000", index.Query{}, msgWindow},
		{"sort in capitals", DefaultConfig(), "sort=ASC", index.Query{}, msgSort},
		{"negative start", DefaultConfig(), "startblock=-1", index.Query{}, "Error! Invalid startblock: a block number"},
		{"end pending", DefaultConfig(), "endblock=pending", index.Query{}, "Error! Invalid endblock: a block number or latest"},
		{"fractional page", DefaultConfig(), "page=1.5", index.Query{}, "Error! Invalid page: a number"},
		{"offset in words", DefaultConfig(), "offset=ten", index.Query{}, "Error! Invalid offset: a number"},
	} {
		var args fasthttp.Args
		args.Parse(tt.query)
		q, msg := parseQuery(&args, tt.cfg)
		if msg != tt.msg || (msg == "" && q != tt.want) {
			t.Errorf("%s: %q: %+v %q, want %+v %q", tt.name, tt.query, q, msg, tt.want, tt.msg)
		}
	}
}

func TestConfigCheck(t *testing.T) {
	d := DefaultConfig()
	for _, tt := range []struct {
		name string
		cfg  Config
		want Config
		err  string
	}{
		{"zero: the defaults", Config{}, d, ""},
		{"given", Config{Workers: 3, Queue: 7, Wait: time.Millisecond, MaxRows: 500}, Config{Workers: 3, Queue: 7, Wait: time.Millisecond, MaxRows: 500}, ""},
		{"the window", Config{MaxRows: index.MaxWindow}, d, ""},
		{"negative workers", Config{Workers: -1}, Config{}, "--explorer.api.workers -1: want at least 1 (0: one per CPU)"},
		{"negative queue", Config{Queue: -1}, Config{}, "--explorer.api.queue -1: want at least 1 (0: the default)"},
		{"negative wait", Config{Wait: -time.Second}, Config{}, "--explorer.api.wait -1s: want a positive duration"},
		{"rows past the window", Config{MaxRows: index.MaxWindow + 1}, Config{}, "--explorer.api.max-rows 10001: want 1 to 10000 (Etherscan's result window)"},
		{"negative rows", Config{MaxRows: -5}, Config{}, "--explorer.api.max-rows -5: want 1 to 10000 (Etherscan's result window)"},
	} {
		got, err := tt.cfg.check()
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case got.Workers != tt.want.Workers || got.Queue != tt.want.Queue || got.Wait != tt.want.Wait || got.MaxRows != tt.want.MaxRows:
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
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
