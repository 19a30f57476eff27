package replica

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/chaintest"
	"github.com/stocknode/stocknode/node/seqlog"
)

// openLog opens an embedded in-memory log holding entries, closed at the
// end of the test.
func openLog(t *testing.T, entries ...seqlog.Entry) *seqlog.Log {
	t.Helper()
	l, err := seqlog.Open(context.Background(), seqlog.Config{ChainID: chain.PreviewChainID, InMemory: true}, chaintest.Quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	for i, e := range entries {
		if seq, err := l.Append(context.Background(), e); err != nil || seq != uint64(i+1) {
			t.Fatalf("append entry %d (%v): sequence %d, %v", i+1, e.Kind(), seq, err)
		}
	}
	return l
}

// Only the block numbers matter to startSeq: the entries carry nothing else.
func opened(n uint64) seqlog.Entry          { return seqlog.Opened{Number: n} }
func preconfirmed(n, i uint64) seqlog.Entry { return seqlog.Preconfirmed{Number: n, Index: i} }
func sealed(n uint64) seqlog.Entry          { return seqlog.Sealed{Number: n} }
func accepted() seqlog.Entry                { return seqlog.Accepted{Transactions: [][]byte{{1}}} }
func block(n uint64, ticks int) []seqlog.Entry {
	es := []seqlog.Entry{opened(n)}
	for i := range ticks {
		es = append(es, preconfirmed(n, uint64(i)))
	}
	return es
}

func concat(parts ...[]seqlog.Entry) []seqlog.Entry {
	var out []seqlog.Entry
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

type startCase struct {
	head uint64
	want uint64 // 0: ErrGap
}

func checkStarts(t *testing.T, l *seqlog.Log, cases []startCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(fmt.Sprintf("head %d", c.head), func(t *testing.T) {
			got, err := startSeq(context.Background(), l, c.head)
			switch {
			case c.want == 0 && !errors.Is(err, ErrGap):
				t.Fatalf("startSeq = %d, %v; want ErrGap", got, err)
			case c.want != 0 && err != nil:
				t.Fatalf("startSeq: %v; want %d", err, c.want)
			case c.want != 0 && got > c.want:
				t.Fatalf("startSeq = %d, want %d: the replica would skip entries it needs", got, c.want)
			}
			// Starting earlier is harmless only across entries the
			// follower does not replay.
			for seq := got; c.want != 0 && seq < c.want; seq++ {
				rec, err := l.Get(context.Background(), seq)
				if err != nil {
					t.Fatal(err)
				}
				if rec.Entry.Kind() != seqlog.KindAccepted {
					t.Fatalf("startSeq = %d, want %d: entry %d between is %v", got, c.want, seq, rec.Entry.Kind())
				}
			}
		})
	}
}

// TestStartSeq: a replica follows from its head's sealing (which it then
// skips, as it holds the block), or from the first entry after its head
// when the log lacks that sealing: never from a later entry, which would
// skip a block it needs, and across runs of Accepted entries (about no
// block) and blocks the sequencer opened twice.
func TestStartSeq(t *testing.T) {
	entries := concat(
		block(1, 1),                // 1 2
		[]seqlog.Entry{accepted()}, // 3
		[]seqlog.Entry{preconfirmed(1, 1), sealed(1)}, // 4 5
		block(2, 1), // 6 7: opened, then rebuilt:
		block(2, 1), // 8 9
		[]seqlog.Entry{accepted(), accepted(), accepted(), sealed(2), accepted(), accepted()}, // 10..15
		block(3, 1), []seqlog.Entry{sealed(3)}, // 16 17 18
		block(4, 1), // 19 20
	)
	l := openLog(t, entries...)
	checkStarts(t, l, []startCase{
		{head: 0, want: 1},
		{head: 1, want: 5},
		{head: 2, want: 13},
		{head: 3, want: 18},
		// Beyond the log's end: what comes next.
		{head: 4, want: 21},
		{head: 9, want: 21},
	})
}

// TestStartSeqLogStartsLater: a log whose first entry is about a block
// after the replica's next one cannot bring the replica forward.
func TestStartSeqLogStartsLater(t *testing.T) {
	t.Run("opened first", func(t *testing.T) {
		l := openLog(t, concat(block(5, 2), []seqlog.Entry{sealed(5)}, block(6, 1))...) // 1..6
		checkStarts(t, l, []startCase{
			{head: 0}, {head: 3},
			{head: 4, want: 1},
			{head: 5, want: 4},
			{head: 6, want: 7},
		})
	})
	t.Run("sealed first", func(t *testing.T) {
		// Retention dropped block 5's opening: its sealing is enough for a
		// replica at block 4.
		l := openLog(t, concat([]seqlog.Entry{accepted(), sealed(5)}, block(6, 1))...) // 1..4
		checkStarts(t, l, []startCase{
			{head: 0}, {head: 3},
			{head: 4, want: 1},
			{head: 6, want: 5},
		})
	})
}

// TestStartSeqNothingAboutBlocks: a log empty, or holding only Accepted
// entries (a sequencer that has pooled transactions and not yet opened
// its first block), has nothing the replica is missing: it follows what
// comes.
func TestStartSeqNothingAboutBlocks(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		checkStarts(t, openLog(t), []startCase{{head: 0, want: 1}, {head: 7, want: 1}})
	})
	t.Run("accepted only", func(t *testing.T) {
		checkStarts(t, openLog(t, accepted(), accepted()), []startCase{{head: 0, want: 1}})
	})
	t.Run("accepted after the last sealing", func(t *testing.T) {
		l := openLog(t, concat(block(1, 1), []seqlog.Entry{sealed(1), accepted(), accepted()})...) // 1..5
		checkStarts(t, l, []startCase{{head: 1, want: 3}, {head: 2, want: 4}})
	})
}
