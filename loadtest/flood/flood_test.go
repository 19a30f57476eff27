package flood

import (
	"context"
	"strings"
	"testing"
)

// A negative offered rate is refused before any transaction is sent.
func TestFloodNegativeRateRefused(t *testing.T) {
	_, err := Run(context.Background(), Config{URL: "http://127.0.0.1:1", Accounts: 1, Senders: 1, Rate: -1})
	if err == nil || !strings.Contains(err.Error(), "-rate") {
		t.Fatalf("flood -rate -1: %v", err)
	}
}
