package replica

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/stocknode/stocknode/node/seqlog"
)

// ErrGap is returned when the log cannot bring the replica's head forward:
// the entries that follow it are no longer (or were never) in the log.
var ErrGap = errors.New("the log does not continue from this replica's head")

// position orders the log's entries by the block they are about: 2n for
// the opening and pre-confirmations of block n, 2n+1 for its sealing.
// Accepted entries are about no block (ok false).
func position(e seqlog.Entry) (uint64, bool) {
	switch e := e.(type) {
	case seqlog.Opened:
		return 2 * e.Number, true
	case seqlog.Preconfirmed:
		return 2 * e.Number, true
	case seqlog.Sealed:
		return 2*e.Number + 1, true
	}
	return 0, false
}

// startSeq finds where a replica whose head is block head follows from:
// the sealing of its head, or the first entry after it (a new log, or the
// head's sealing dropped). The positions of the log's entries never
// decrease, so a binary search over sequences finds it in a few dozen
// reads, for a replica started from genesis, from a copy of another
// node's datadir, or from where it stopped.
func startSeq(ctx context.Context, l *seqlog.Log, head uint64) (uint64, error) {
	info, err := l.Info(ctx)
	if err != nil {
		return 0, err
	}
	if info.Entries == 0 {
		return info.LastSeq + 1, nil
	}
	at := func(seq uint64) (uint64, error) { return positionAt(ctx, l, seq, info.LastSeq) }
	want := 2*head + 1
	lo, hi := info.FirstSeq, info.LastSeq+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		pos, err := at(mid)
		if err != nil {
			return 0, err
		}
		if pos >= want {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo > info.LastSeq {
		return lo, nil // the log ends at or before the head: follow what comes
	}
	pos, err := at(lo)
	if err != nil {
		return 0, err
	}
	if pos == math.MaxUint64 {
		// Only entries about no block from lo on (a sequencer that pooled
		// transactions before opening its first block): nothing is missing.
		return lo, nil
	}
	if pos >= 2*(head+2) {
		return 0, fmt.Errorf("%w: its head is block %d, the log's earliest entry after it is about block %d (retention dropped the blocks between, or the log started later): start the replica from a copy of another node's datadir",
			ErrGap, head, pos/2)
	}
	return lo, nil
}

// positionAt is the position of the entry seq, or of the first entry after
// it that has one; MaxUint64 if none up to last does.
func positionAt(ctx context.Context, l *seqlog.Log, seq, last uint64) (uint64, error) {
	for ; seq <= last; seq++ {
		rec, err := l.Get(ctx, seq)
		if err != nil {
			return 0, err
		}
		if pos, ok := position(rec.Entry); ok {
			return pos, nil
		}
	}
	return math.MaxUint64, nil
}
