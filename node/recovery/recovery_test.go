package recovery

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/chaintest"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/seqlog"
)

// TestLevelLog: a start brings the log level with the database: a new log
// starts at the head, a log behind gets the database's later blocks, and a
// log ahead of the database or of another chain stops the node with what
// to do.
func TestLevelLog(t *testing.T) {
	e := chaintest.New(t, chaintest.Config{BlockTime: 20 * time.Millisecond})
	e.Run()
	e.WaitFor("block 6", func(s *pending.Snapshot) bool { return s.Head.NumberU64() >= 6 })
	e.Stop()
	bc := e.Chain.BlockChain()
	head := e.Chain.Head().Number.Uint64()

	ctx := context.Background()
	sealed := func(number uint64) seqlog.Sealed {
		block := bc.GetBlockByNumber(number)
		s, err := seqlog.NewSealed(block, bc.GetReceiptsByHash(block.Hash()))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	open := func(entries ...seqlog.Entry) *seqlog.Log {
		l, err := seqlog.Open(ctx, seqlog.Config{ChainID: e.ChainID.Uint64(), InMemory: true}, chaintest.Quiet())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l.Close)
		for _, entry := range entries {
			if _, err := l.Append(ctx, entry); err != nil {
				t.Fatal(err)
			}
		}
		return l
	}
	level := func(l *seqlog.Log) error {
		return Recovery{Log: l, Chain: e.Chain, LogDir: "/data/nats", Logger: chaintest.Quiet()}.LevelLog(ctx)
	}

	if err := level(open()); err != nil {
		t.Fatalf("a new log: %v", err)
	}
	behind := open(sealed(3))
	if err := level(behind); err != nil {
		t.Fatalf("a log behind: %v", err)
	}
	last, err := behind.LastOf(ctx, seqlog.KindSealed)
	if err != nil || last.Entry.(seqlog.Sealed).Number != head || last.Seq != 1+head-3 {
		t.Fatalf("after levelling a log at block 3: last sealed %+v (seq %d), %v; want block %d at seq %d", last.Entry, last.Seq, err, head, 1+head-3)
	}

	ahead := sealed(head)
	ahead.Number, ahead.Hash = head+5, common.Hash{1}
	foreign := sealed(2)
	foreign.Hash = common.Hash{2}
	for _, tt := range []struct {
		name  string
		entry seqlog.Sealed
		says  string
	}{
		{"ahead of the database", ahead, "the log is not this datadir's"},
		{"another chain", foreign, "belongs to another chain"},
	} {
		err := level(open(tt.entry))
		if err == nil || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), "move /data/nats aside") {
			t.Errorf("%s: %v, want an error saying %q and what to do", tt.name, err, tt.says)
		}
	}

	// A run that logged its last block while committing it, and died
	// before the commit ended: the block is inserted from the log, if it
	// extends the database's head.
	logged := sealed(head - 1)
	strayHeader := types.CopyHeader(bc.GetHeaderByNumber(head - 1))
	strayHeader.ParentHash = common.Hash{3}
	stray, err := seqlog.NewSealed(types.NewBlockWithHeader(strayHeader), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Chain.Rewind(head - 2); err != nil {
		t.Fatal(err)
	}
	if err := level(open(sealed(head-2), stray)); err == nil || !strings.Contains(err.Error(), "does not extend") || !strings.Contains(err.Error(), "move /data/nats aside") {
		t.Errorf("a log one block ahead on another parent: %v, want it refused with what to do", err)
	}
	if err := level(open(sealed(head-2), logged)); err != nil {
		t.Fatalf("a log one block ahead: %v", err)
	}
	if got := e.Chain.Head(); got.Number.Uint64() != head-1 || got.Hash() != logged.Hash {
		t.Fatalf("after levelling a log one block ahead: head %d %s, want the logged block %d %s", got.Number, got.Hash(), head-1, logged.Hash)
	}
}
