package web

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/explorer/index"
)

func big10(s string) *big.Int { v, _ := new(big.Int).SetString(s, 10); return v }

func TestUnits(t *testing.T) {
	tests := []struct {
		v        string
		decimals uint8
		want     string
	}{
		{"0", 18, "0"},
		{"1", 18, "0.000000000000000001"},
		{"1500000000000000000", 18, "1.5"},
		{"1234500000000000000000", 18, "1,234.5"},
		{"1000000000000000000000000", 18, "1,000,000"},
		{"-2500000", 6, "-2.5"},
		{"123", 0, "123"},
		{"1000000000", 9, "1"},
	}
	for _, tt := range tests {
		if got := units(big10(tt.v), tt.decimals); got != tt.want {
			t.Errorf("units(%s, %d) = %q, want %q", tt.v, tt.decimals, got, tt.want)
		}
	}
	if got := units(nil, 18); got != "0" {
		t.Errorf("units(nil) = %q", got)
	}
}

func TestFormatters(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tests := []struct{ got, want string }{
		{short(common.HexToHash("0x1234")), "0x000000…001234"},
		{clip("ab<cd", 3), "ab<…"},
		{clip("héllo", 5), "héllo"},
		{ago(1_800_000_000, now), "just now"},
		{ago(1_799_999_990, now), "10 s ago"},
		{ago(1_799_996_400, now), "1 h ago"},
		{percent(1, 3), "33.3%"},
		{percent(1, 0), "0%"},
		{duration(200 * time.Millisecond), "200 ms"},
		{duration(1500 * time.Millisecond), "1.50 s"},
		{rate(12345.6), "12,346"},
		{rate(0.5), "0.50"},
		{wad(big10("1500000000000000000000")), "1500"},
		{features([]uint8{contracts.FeatureTransfer, contracts.FeatureBurn, 9}), "transfer, burn, feature 9"},
		{features(nil), "none"},
		{policy(contracts.AlwaysAllow), "0 (always allow)"},
		{policy(contracts.AlwaysBlock), "72057594037927937 (always block)"},
		{policy(uint64(contracts.PolicyAllowlist)<<56 | 2), "72057594037927938 (allowlist #2)"},
		{policy(uint64(9)<<56 | 3), "648518346341351427 (unknown type #3)"},
		{hexClip(make([]byte, 65)), "0x" + string(make128zeros()) + "… (65 bytes)"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func make128zeros() []byte {
	b := make([]byte, 128)
	for i := range b {
		b[i] = '0'
	}
	return b
}

func TestParse(t *testing.T) {
	hash := "0x" + "ab" + string(make128zeros()[:62])
	tests := []struct {
		in          string
		number, hsh bool
		addr        bool
	}{
		{"42", true, false, false},
		{"0", true, false, false},
		{"", false, false, false},
		{"+1", false, false, false},
		{"18446744073709551616", false, false, false}, // 2^64
		{hash, false, true, false},
		{"0X" + hash[2:], false, true, false},
		{hash[:65], false, false, false},
		{"0x" + string(make128zeros()[:40]), false, false, true},
		{"0x" + string(make128zeros()[:39]) + "g", false, false, false},
		{"0x1a", true, false, false},
		{"0X1A", true, false, false},
		{"0xffffffffffffffff", true, false, false},
		{"0x1ffffffffffffffff", false, false, false}, // 17 digits
		{"0x", false, false, false},
		{"0xg", false, false, false},
	}
	if n, _ := parseNumber("0x1a"); n != 26 {
		t.Errorf("0x1a is %d", n)
	}
	for _, tt := range tests {
		_, n := parseNumber(tt.in)
		_, h := parseHash(tt.in)
		_, a := parseAddress(tt.in)
		if n != tt.number || h != tt.hsh || a != tt.addr {
			t.Errorf("%q: number %v hash %v address %v", tt.in, n, h, a)
		}
	}
}

func TestCursor(t *testing.T) {
	tests := []struct {
		in   string
		want index.Cursor
		ok   bool
	}{
		{"", index.Cursor{}, true},
		{"12-3-4", index.Cursor{Block: 12, Index: 3, Log: 4}, true},
		{"12-3", index.Cursor{}, false},
		{"12-3-4-5", index.Cursor{}, false},
		{"a-3-4", index.Cursor{}, false},
		{"1-4294967296-0", index.Cursor{}, false}, // beyond uint32
		{"-1-2", index.Cursor{}, false},
	}
	for _, tt := range tests {
		got, err := parseCursor(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseCursor(%q) = %+v, %v", tt.in, got, err)
		}
		if tt.ok && parseBack(t, cursorString(got)) != got {
			t.Errorf("%q does not survive a round trip", tt.in)
		}
	}
}

func parseBack(t *testing.T, s string) index.Cursor {
	c, err := parseCursor(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAges: whole seconds of the clock less the timestamp (as app.js
// counts), never older for a newer block, and a date beyond a day.
func TestAges(t *testing.T) {
	now := time.Unix(1_800_000_000, 900_000_000) // .9 s into the second
	for _, tt := range []struct {
		ts   uint64
		want string
	}{
		{1_800_000_005, "just now"}, // another clock, ahead
		{1_800_000_000, "just now"},
		{1_799_999_999, "1 s ago"},
		{1_799_999_941, "59 s ago"},
		{1_799_999_940, "1 min ago"},
		{1_799_996_400, "1 h ago"},
		{1_800_000_000 - 86400, "24 h ago"},
		{1_800_000_000 - 86401, "2027-01-14 07:59 UTC"},
		{1767225600, "2026-01-01 00:00 UTC"}, // the preview genesis
	} {
		if got := ago(tt.ts, now); got != tt.want {
			t.Errorf("ago(%d) = %q, want %q", tt.ts, got, tt.want)
		}
	}
	// Newer blocks (larger timestamps) never read older, at any moment.
	rank := func(s string) int64 {
		var n int64
		var unit string
		switch {
		case s == "just now":
			return 0
		case strings.HasSuffix(s, "UTC"):
			return 1 << 40
		}
		fmt.Sscanf(s, "%d %s", &n, &unit)
		return n * map[string]int64{"s": 1, "min": 60, "h": 3600}[unit]
	}
	for ms := int64(0); ms < 5000; ms += 100 {
		at := time.Unix(1_800_000_000, 0).Add(time.Duration(ms) * time.Millisecond)
		prev := int64(-1)
		for ts := uint64(1_800_000_005); ts >= 1_799_999_000; ts-- {
			r := rank(ago(ts, at))
			if r < prev {
				t.Fatalf("at %v block time %d reads %q, younger than a newer block", at, ts, ago(ts, at))
			}
			prev = r
		}
	}
}

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n    any
		want string
	}{
		{0, "0 transactions"}, {1, "1 transaction"}, {uint64(1), "1 transaction"}, {uint64(2), "2 transactions"}, {uint64(1234), "1,234 transactions"}, {-1, "0 transactions"},
	} {
		if got := plural(tt.n, "transaction", "transactions"); got != tt.want {
			t.Errorf("plural(%v) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestReadable(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want string
	}{
		{"0", "0"},
		{"12500000000000000000", "12.5"},
		{"1000000000000000000", "1"},
		{"9999989999999999999999999", "9,999,990"},
		{"9999989123456789000000000", "9,999,989.1235"},
		{"123456789000000", "0.0001235"},
		{"1", "0.000000000000000001"},
		{"-2500000000000000000", "-2.5"},
	} {
		if got := readable(big10(tt.v), 18); got != tt.want {
			t.Errorf("readable(%s) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if got := ethReadable(big10("999999998999999999999999")); got != "999,999.999 ETH" {
		t.Errorf("ethReadable = %q", got)
	}
}
