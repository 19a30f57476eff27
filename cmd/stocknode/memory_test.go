package main

import (
	"testing"
	"time"
)

func TestSurplus(t *testing.T) {
	const mib = 1 << 20
	long := time.Minute
	tests := []struct {
		name               string
		retained, baseline uint64
		sinceGC, sinceRet  time.Duration
		want               bool
	}{
		{"idle after a burst", 900 * mib, 100 * mib, long, long, true},
		{"idle, grown a little", 150 * mib, 100 * mib, long, long, false},
		{"under load: collections keep coming", 900 * mib, 100 * mib, time.Second, long, false},
		{"just returned", 900 * mib, 100 * mib, long, time.Second, false},
	}
	for _, tt := range tests {
		if got := surplus(tt.retained, tt.baseline, tt.sinceGC, tt.sinceRet); got != tt.want {
			t.Errorf("%s: surplus = %v, want %v", tt.name, got, tt.want)
		}
	}
}
