package httpapi

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestParseAddress(t *testing.T) {
	const checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	want := common.HexToAddress(checksummed)
	tests := []struct {
		in, err string
	}{
		{in: checksummed},
		{in: strings.ToLower(checksummed)},
		{in: "0X" + strings.ToUpper(checksummed[2:])},
		{in: "", err: "missing"},
		{in: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA", err: "is not an address"},
		{in: "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAedff", err: "is not an address"},
		{in: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", err: "wrong EIP-55 checksum"},
	}
	for _, tt := range tests {
		got, err := ParseAddress(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != want):
			t.Errorf("ParseAddress(%q) = %s, %v; want %s", tt.in, got, err, want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseAddress(%q) error %v; want one containing %q", tt.in, err, tt.err)
		}
	}
}

func TestLowerHexAddress(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", true},
		{"0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED", true},
		{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", false}, // mixed case: ParseAddress checks it
		{"0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", false},
		{"0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea", false},
		{"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beazz", false},
	}
	for _, tt := range tests {
		addr, ok := LowerHexAddress([]byte(tt.in))
		if ok != tt.ok || (ok && addr != common.HexToAddress(tt.in)) {
			t.Errorf("LowerHexAddress(%q) = %s, %t; want ok=%t", tt.in, addr, ok, tt.ok)
		}
	}
}
