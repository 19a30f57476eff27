package sequencer

import (
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// DefaultLogSummary is how often an idle or busy sequencer says what it
// sealed: at 5 blocks a second a line per block would be 18,000 lines an
// hour at idle. Each block is a debug line (--verbosity 4).
const DefaultLogSummary = 10 * time.Second

// sealSummary counts the blocks sealed since its last line.
type sealSummary struct {
	every  time.Duration // 0: no summary
	since  time.Time
	blocks int
	txs    int
	gas    uint64
}

// sealed counts block, sealed at now, and logs the summary when every has
// passed since the last one.
func (s *sealSummary) sealed(log *slog.Logger, block *types.Block, now time.Time) {
	if s.every <= 0 {
		return
	}
	if s.since.IsZero() {
		s.since = now
	}
	s.blocks++
	s.txs += len(block.Transactions())
	s.gas += block.GasUsed()
	if now.Sub(s.since) < s.every {
		return
	}
	log.Info("Sealed blocks", "blocks", s.blocks, "txs", s.txs, "gas", s.gas, "head", block.NumberU64(), "hash", block.Hash(),
		"over", now.Sub(s.since).Round(time.Millisecond))
	*s = sealSummary{every: s.every, since: now}
}
