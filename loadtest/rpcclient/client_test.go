package rpcclient

import (
	"testing"
)

func TestNormalizeReject(t *testing.T) {
	for in, want := range map[string]string{
		"nonce too low: next nonce 5, tx nonce 3": "nonce too low",
		"txpool is full": "txpool is full",
		"insufficient funds for gas * price + value: balance 0, tx 1": "insufficient funds for gas * price + value",
	} {
		if got := NormalizeReject(in); got != want {
			t.Errorf("normalizeReject(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsErrorAnswer(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":"0x1"}`, false},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"type":"CALL","error":"out of gas"}}`, false},
		{`{"id":1,"error":{"code":-32000,"message":"no \"result\""},"jsonrpc":"2.0"}`, true},
		{`{"jsonrpc":"2.0","id":1}`, true},
		{``, true},
	}
	for _, tt := range tests {
		if got := IsErrorAnswer([]byte(tt.body)); got != tt.want {
			t.Errorf("IsErrorAnswer(%s) = %v, want %v", tt.body, got, tt.want)
		}
	}
}
