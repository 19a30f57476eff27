package main

import (
	"slices"
	"strings"
	"testing"
)

// Each round starts one server later than the one before, keeping the
// servers' relative order; round 1 keeps the given order.
func TestRoundOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, round int
		want     []int
	}{
		{"no servers", 0, 1, []int{}},
		{"one server", 1, 1, []int{0}},
		{"one server, round 2", 1, 2, []int{0}},
		{"round 1 keeps the given order", 3, 1, []int{0, 1, 2}},
		{"round 2 starts at the second", 3, 2, []int{1, 2, 0}},
		{"round 3 starts at the third", 3, 3, []int{2, 0, 1}},
		{"round 4 wraps to the given order", 3, 4, []int{0, 1, 2}},
		{"stocknode and base, round 1", 2, 1, []int{0, 1}},
		{"stocknode and base, round 2", 2, 2, []int{1, 0}},
		{"with a baseline and anchors, round 2", 4, 2, []int{1, 2, 3, 0}},
		{"round 0 is treated as the last of a cycle", 3, 0, []int{2, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := roundOrder(tc.n, tc.round); !slices.Equal(got, tc.want) {
				t.Errorf("roundOrder(%d, %d) = %v, want %v", tc.n, tc.round, got, tc.want)
			}
		})
	}
}

// With -baseline and the default two rounds, stocknode and stocknode-base
// each run first in one round when stocknode leads -servers.
func TestRoundOrderBaselineFirstOnce(t *testing.T) {
	for _, servers := range []string{"stocknode", "stocknode,geth,anvil", "stocknode,anvil"} {
		names := strings.Split(withBaseline(servers, "bin/base"), ",")
		var firsts []string
		for round := 1; round <= 2; round++ {
			firsts = append(firsts, names[roundOrder(len(names), round)[0]])
		}
		if want := []string{"stocknode", baseName}; !slices.Equal(firsts, want) {
			t.Errorf("-servers %s: first servers of rounds 1 and 2 %v, want %v", servers, firsts, want)
		}
	}
}

// The flood reads stocknode's pre-confirmations on /preconf, where its
// sends are not held back; anvil has one view.
func TestFloodURL(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"stocknode", "http://127.0.0.1:1/preconf"},
		{baseName, "http://127.0.0.1:1/preconf"},
		{"anvil", "http://127.0.0.1:1"},
	} {
		if got := floodURL(tc.name, "http://127.0.0.1:1"); got != tc.want {
			t.Errorf("floodURL(%s) = %s, want %s", tc.name, got, tc.want)
		}
	}
}
