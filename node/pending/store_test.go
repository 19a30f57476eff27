package pending

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// snapAt is a snapshot whose head is block number, published at t.
func snapAt(number uint64, t time.Time) *Snapshot {
	head := types.NewBlockWithHeader(&types.Header{Number: new(big.Int).SetUint64(number), Difficulty: new(big.Int)})
	return &Snapshot{Head: head, Pending: &Block{Header: head.Header()}, Published: t}
}

// TestStoreBefore: Before gives the last snapshot of the head before a
// block, for as long as the store retains it, and never a snapshot whose
// head is that block or later.
func TestStoreBefore(t *testing.T) {
	var s Store
	s.Retain(time.Second)
	start := time.Unix(1000, 0)
	var lastOf [6]*Snapshot // the last snapshot published with each head
	at := start
	for number := uint64(1); number <= 5; number++ {
		for range 3 { // pre-confirmations of the block after number
			snap := snapAt(number, at)
			s.Publish(snap)
			lastOf[number] = snap
			at = at.Add(50 * time.Millisecond)
		}
	}
	tests := []struct {
		block uint64
		want  *Snapshot
	}{
		{5, lastOf[4]}, // 5 is the head: the view before it
		{4, lastOf[3]},
		{2, lastOf[1]},
		{1, nil}, // nothing before block 1 was kept
		{9, lastOf[4]},
	}
	for _, tt := range tests {
		if got := s.Before(tt.block); got != tt.want {
			t.Errorf("Before(%d) = %v, want the last snapshot of head %d", tt.block, got, tt.block-1)
		}
	}
	// Two seconds on, the retention dropped everything but the newest.
	s.Publish(snapAt(6, at.Add(2*time.Second)))
	if got := s.Before(5); got != nil {
		t.Errorf("Before(5) after the retention: %v, want nil", got)
	}
	if got := s.Before(6); got != lastOf[5] {
		t.Errorf("Before(6) = %v, want the last snapshot of head 5", got)
	}
}
