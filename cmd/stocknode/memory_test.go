package main

import (
	"testing"
	"time"
)

func TestSurplus(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name           string
		live, retained uint64
		since          time.Duration
		want           bool
	}{
		{"steady: twice the live heap", 100 * mib, 200 * mib, time.Hour, false},
		{"steady with slack", 100 * mib, 450 * mib, time.Hour, false},
		{"after a burst", 100 * mib, 3000 * mib, time.Hour, true},
		{"after a burst, just returned", 100 * mib, 3000 * mib, time.Second, false},
	}
	for _, tt := range tests {
		if got := surplus(tt.live, tt.retained, tt.since); got != tt.want {
			t.Errorf("%s: surplus = %v, want %v", tt.name, got, tt.want)
		}
	}
}
