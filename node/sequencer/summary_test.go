package sequencer

import (
	"bytes"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// One line per interval, whatever the block rate, summing what sealed in it.
func TestSealSummary(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	s := sealSummary{every: 10 * time.Second}
	start := time.Unix(1000, 0)
	for i := 0; i <= 100; i++ { // 20 s of 200 ms blocks
		block := types.NewBlockWithHeader(&types.Header{Number: big.NewInt(int64(i + 1)), GasUsed: 21000})
		s.sealed(log, block, start.Add(time.Duration(i)*200*time.Millisecond))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines over 20 s, want 2:\n%s", len(lines), out.String())
	}
	for i, want := range []string{"blocks=51 txs=0 gas=1071000 head=51", "blocks=50 txs=0 gas=1050000 head=101"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %s, want %s", i, lines[i], want)
		}
	}
	off := sealSummary{every: -1}
	out.Reset()
	off.sealed(log, types.NewBlockWithHeader(&types.Header{Number: big.NewInt(1)}), start)
	if out.Len() != 0 {
		t.Errorf("a negative interval logged %s", out.String())
	}
}
