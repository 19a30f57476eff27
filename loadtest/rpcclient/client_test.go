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
