package seqlog

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
)

// TestJournalPayloadOfAResumedBlock: a journal that resumes a block another
// run opened (a restart, a standby taking over) logs its
// pre-confirmations under that block's payload ID, as the opening run
// did: recovery reads a block's pre-confirmations by it, so one logged
// under another ID would be lost at the next crash.
func TestJournalPayloadOfAResumedBlock(t *testing.T) {
	l := openTest(t, Config{InMemory: true})
	h := &types.Header{Number: big.NewInt(7), ParentHash: common.Hash{6}, MixDigest: common.Hash{9}, Difficulty: new(big.Int)}
	opening := NewJournal(l)
	if err := opening.Opened(h); err != nil {
		t.Fatal(err)
	}
	if err := opening.Preconfirmed(&pending.Block{Index: 0, Header: h}, nil); err != nil {
		t.Fatal(err)
	}
	resuming := NewJournal(l) // the next run: it logs no opening
	if err := resuming.Preconfirmed(&pending.Block{Index: 1, Header: h}, nil); err != nil {
		t.Fatal(err)
	}
	want := NewPayloadID(h)
	var got []PayloadID
	for rec, err := range l.Read(context.Background(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := rec.Entry.(type) {
		case Opened:
			got = append(got, e.PayloadID)
		case Preconfirmed:
			got = append(got, e.PayloadID)
		}
	}
	if len(got) != 3 {
		t.Fatalf("read %d openings and pre-confirmations, want 3", len(got))
	}
	for i, id := range got {
		if id != want {
			t.Errorf("entry %d: payload ID %x, want the block's %x", i, id, want)
		}
	}
}
