package main

import (
	"context"

	"strings"

	"testing"
)

// A negative offered rate is refused before any load is sent.
func TestNegativeRateRefused(t *testing.T) {
	_, err := runHTTP(context.Background(), httpConfig{URL: "http://127.0.0.1:1", Method: kindGetBalance, Tag: "latest",
		Token: "0x2000000000000000000000000000000000000020", Conns: "1", Rate: -1})
	if err == nil || !strings.Contains(err.Error(), "-rate") {
		t.Fatalf("http -rate -1: %v", err)
	}
	_, err = runFlood(context.Background(), floodConfig{URL: "http://127.0.0.1:1", Accounts: 1, Senders: 1, Rate: -1})
	if err == nil || !strings.Contains(err.Error(), "-rate") {
		t.Fatalf("flood -rate -1: %v", err)
	}
}
