package seqlog

import (
	"testing"
)

// TestAcceptBatches: waiting acceptances share one entry, bounded in count
// and in bytes; what does not fit starts the next batch, nothing is lost.
func TestAcceptBatches(t *testing.T) {
	big := make([]byte, maxAcceptBytes/3+1)
	tests := []struct {
		name      string
		sizes     []int
		wantBatch int
		carried   bool
	}{
		{"one", []int{100}, 1, false},
		{"several small", []int{100, 200, 300}, 3, false},
		{"bytes bound", []int{len(big), len(big), len(big), 10}, 2, true},
		{"count bound", make([]int, maxAcceptBatch+3), maxAcceptBatch, false},
	}
	for _, tt := range tests {
		a := &AcceptLog{reqs: make(chan acceptReq, len(tt.sizes))}
		for _, n := range tt.sizes[1:] {
			a.reqs <- acceptReq{raw: make([]byte, n)}
		}
		batch, carry := a.collect(acceptReq{raw: make([]byte, tt.sizes[0])})
		size := 0
		for _, req := range batch {
			size += len(req.raw)
		}
		switch {
		case len(batch) != tt.wantBatch:
			t.Errorf("%s: batch of %d, want %d", tt.name, len(batch), tt.wantBatch)
		case (carry != nil) != tt.carried:
			t.Errorf("%s: carried %v, want %v", tt.name, carry != nil, tt.carried)
		case size > maxAcceptBytes:
			t.Errorf("%s: batch of %d bytes exceeds %d", tt.name, size, maxAcceptBytes)
		case len(batch)+len(a.reqs)+boolInt(carry != nil) != len(tt.sizes):
			t.Errorf("%s: %d in the batch, %d waiting, carry %v: some of %d lost", tt.name, len(batch), len(a.reqs), carry != nil, len(tt.sizes))
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
