package app

import "testing"

func TestConnBudget(t *testing.T) {
	tests := []struct {
		fds    int
		onDisk bool
		want   int
	}{
		{20_000, true, 20_000 - 512 - 256 - 16 - 16 - 128},
		{20_000, false, 20_000 - 128},
		{1_024, true, 512}, // the database would take most: half stays for the rest
		{256, false, 128},
	}
	for _, tt := range tests {
		if got := connBudget(tt.fds, tt.onDisk); got != tt.want {
			t.Errorf("connBudget(%d, %v) = %d, want %d", tt.fds, tt.onDisk, got, tt.want)
		}
	}
}
