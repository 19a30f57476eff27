// Package recovery brings a sequencer back from its log at a start, after a
// clean stop or a crash: it levels the log with the database, resumes the
// block the previous run was building with the transactions its
// pre-confirmations executed, and gives the pool again those accepted but
// not yet pre-confirmed. A pre-confirmation is a promise kept across
// crashes because of what this package does.
package recovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/seqlog"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

// maxLogCatchUp bounds the sealed blocks a start appends to a log that is
// behind the database (normally one: a crash between the commit and the
// append); more means the log is not this datadir's.
const maxLogCatchUp = 1024

// Recovery is what a start recovers from: the log and the database.
type Recovery struct {
	Log   *seqlog.Log
	Chain *chain.Chain
	// LogDir is where the log lives, named in the errors that tell an
	// operator to move it aside.
	LogDir string
	Logger *slog.Logger
}

// LevelLog checks that the log's last sealed block is the database's block
// of that number, and appends the database's later blocks to the log. A new
// log starts at the database's head. A log one sealed block ahead is the
// crash of a run that logged a block while committing it (the sequencer's
// pipelined seal): the block is inserted from the log, as a replica
// inserts it.
func (r Recovery) LevelLog(ctx context.Context) error {
	l := r.Log
	last, err := l.LastOf(ctx, seqlog.KindSealed)
	if errors.Is(err, seqlog.ErrEmpty) {
		return nil
	}
	if err != nil {
		return err
	}
	sealed := last.Entry.(seqlog.Sealed)
	head := r.Chain.Head().Number.Uint64()
	bc := r.Chain.BlockChain()
	switch {
	case sealed.Number == head+1:
		return r.insertLogged(sealed)
	case sealed.Number > head:
		return fmt.Errorf("sequencer log: it holds sealed block %d, the database only up to %d: the log is not this datadir's (use the datadir it was written from, or move %s aside to start a new log)",
			sealed.Number, head, r.LogDir)
	case bc.GetCanonicalHash(sealed.Number) != sealed.Hash:
		return fmt.Errorf("sequencer log: its sealed block %d is %s, the database's %s: the log belongs to another chain (move %s aside to start a new log)",
			sealed.Number, sealed.Hash, bc.GetCanonicalHash(sealed.Number), r.LogDir)
	case head-sealed.Number > maxLogCatchUp:
		return fmt.Errorf("sequencer log: it ends at block %d, %d blocks behind the database's head %d: not this datadir's log (move %s aside to start a new log)",
			sealed.Number, head-sealed.Number, head, r.LogDir)
	}
	for number := sealed.Number + 1; number <= head; number++ {
		block := bc.GetBlockByNumber(number)
		entry, err := seqlog.NewSealed(block, bc.GetReceiptsByHash(block.Hash()))
		if err != nil {
			return err
		}
		if _, err := l.Append(ctx, entry); err != nil {
			return fmt.Errorf("sequencer log: append block %d the database holds: %w", number, err)
		}
		r.Logger.Info("Appended a sealed block the log lacked (the previous run stopped between commit and log)", "number", number)
	}
	return nil
}

// Resume finds, after the log's last sealed block, the block the
// previous run opened on the database's head and the transactions its
// pre-confirmations executed, and has the sequencer resume it: a
// pre-confirmation survives a crash. A block opened again (a run that
// stopped before pre-confirming anything, or a rebuilt one) supersedes the
// earlier opening. It returns, for the pool (Repool), the resumed block's
// transactions and then those accepted since the last sealed block.
func (r Recovery) Resume(ctx context.Context, seq *sequencer.Sequencer) (types.Transactions, error) {
	t, err := r.readTail(ctx)
	if err != nil || t.opened == nil {
		return t.accepted, err
	}
	seq.Resume(t.opened.Header(), t.txs, t.ticks)
	// The pool held them until the block sealed, as it holds any
	// pending block's: without them a sender's later transactions
	// would wait behind a nonce gap for the seal, not be executed
	// at the first tick.
	return append(t.txs[:len(t.txs):len(t.txs)], t.accepted...), nil // a copy: Resume keeps txs
}

// Accepted returns the transactions the log says were accepted since its
// last sealed block, for the pool (Repool): what Resume returns besides
// the resumed block's, for a sequencer that continues the block another
// way (sequencer.ContinueReplayed).
func (r Recovery) Accepted(ctx context.Context) (types.Transactions, error) {
	t, err := r.readTail(ctx)
	return t.accepted, err
}

// tail is what the log holds after its last sealed block.
type tail struct {
	opened   *seqlog.Opened // the block opened on the database's head, if any
	txs      types.Transactions
	ticks    int
	accepted types.Transactions
}

// readTail reads the log from its last sealed block on.
func (r Recovery) readTail(ctx context.Context) (tail, error) {
	var t tail
	l := r.Log
	from := uint64(1)
	if last, err := l.LastOf(ctx, seqlog.KindSealed); err == nil {
		from = last.Seq + 1
	} else if !errors.Is(err, seqlog.ErrEmpty) {
		return t, err
	}
	info, err := l.Info(ctx)
	if err != nil {
		return t, err
	}
	if from > info.LastSeq {
		return t, nil // nothing after the last sealed block
	}
	from = max(from, info.FirstSeq) // a log whose sealed blocks aged out
	head := r.Chain.Head()
	for rec, err := range l.Read(ctx, from) {
		if err != nil {
			return t, fmt.Errorf("sequencer log: read the block being built: %w", err)
		}
		switch e := rec.Entry.(type) {
		case seqlog.Opened:
			if e.Number == head.Number.Uint64()+1 && e.ParentHash == head.Hash() {
				t.opened, t.txs, t.ticks = &e, nil, 0
			}
		case seqlog.Preconfirmed:
			if t.opened == nil || e.PayloadID != t.opened.PayloadID {
				continue
			}
			more, err := seqlog.DecodeTxs(e.Transactions)
			if err != nil {
				return t, fmt.Errorf("sequencer log: entry %d: %w", rec.Seq, err)
			}
			t.txs, t.ticks = append(t.txs, more...), int(e.Index)+1
		case seqlog.Accepted:
			more, err := seqlog.DecodeTxs(e.Transactions)
			if err != nil {
				return t, fmt.Errorf("sequencer log: entry %d: %w", rec.Seq, err)
			}
			t.accepted = append(t.accepted, more...)
		}
	}
	return t, nil
}

// Repool gives the pool again the resumed block's transactions and those
// the log says were accepted since the last sealed block: those a sealed
// block holds, or that are pooled already, are refused (nonce too low,
// already known) and that is fine; the others were accepted but not yet
// pre-confirmed when the previous run stopped.
func Repool(pool *txpool.Pool, txs types.Transactions, logger *slog.Logger) {
	kept := 0
	for _, tx := range txs {
		if pool.Add(tx) == nil {
			kept++
		}
	}
	if kept > 0 {
		logger.Info("Pooled again the transactions the log says were pre-confirmed or accepted since the last sealed block", "txs", kept)
	}
}

// insertLogged inserts sealed, the log's last sealed block, on the
// database's head: validated by executing it, as a replica does.
func (r Recovery) insertLogged(sealed seqlog.Sealed) error {
	block, err := sealed.DecodeBlock()
	if err != nil {
		return fmt.Errorf("sequencer log: %w", err)
	}
	if head := r.Chain.Head(); block.ParentHash() != head.Hash() {
		return fmt.Errorf("sequencer log: its sealed block %d does not extend the database's head %d %s: the log belongs to another chain (move %s aside to start a new log)",
			sealed.Number, head.Number, head.Hash(), r.LogDir)
	}
	if err := r.Chain.Append(block); err != nil {
		return fmt.Errorf("sequencer log: insert sealed block %d, which the database lacks: %w", sealed.Number, err)
	}
	r.Logger.Info("Inserted the sealed block the database lacked (the previous run stopped while committing it)", "number", sealed.Number, "hash", sealed.Hash)
	return nil
}
