package replica

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/seqlog"
)

// maxOutstanding bounds the acceptances a standby remembers: past it the
// oldest are forgotten (a sequencer's pool holds fewer executable ones).
const maxOutstanding = 1 << 17

// outstanding are the transactions the log says were accepted and that no
// sealed block has included yet, oldest first: a standby that takes over
// pools them again, as the sequencer that died held them. Recovery's
// Resume only sees those accepted since the last sealed block; under load
// a pool carries a backlog across blocks.
type outstanding struct {
	order []common.Hash
	txs   map[common.Hash]*types.Transaction
}

func newOutstanding() *outstanding {
	return &outstanding{txs: map[common.Hash]*types.Transaction{}}
}

// accepted records an Accepted entry's transactions.
func (o *outstanding) accepted(e seqlog.Accepted) error {
	txs, err := seqlog.DecodeTxs(e.Transactions)
	if err != nil {
		return err
	}
	for _, tx := range txs {
		h := tx.Hash()
		if _, ok := o.txs[h]; ok {
			continue
		}
		o.txs[h] = tx
		o.order = append(o.order, h)
	}
	for len(o.txs) > maxOutstanding {
		delete(o.txs, o.order[0])
		o.order = o.order[1:]
	}
	return nil
}

// sealed forgets the transactions block included, and compacts the order
// once most of it is forgotten.
func (o *outstanding) sealed(block *types.Block) {
	for _, tx := range block.Transactions() {
		delete(o.txs, tx.Hash())
	}
	if len(o.order) > 1024 && len(o.txs) < len(o.order)/4 {
		kept := o.order[:0]
		for _, h := range o.order {
			if _, ok := o.txs[h]; ok {
				kept = append(kept, h)
			}
		}
		o.order = kept
	}
}

// list returns the outstanding transactions, oldest first.
func (o *outstanding) list() types.Transactions {
	txs := make(types.Transactions, 0, len(o.txs))
	for _, h := range o.order {
		if tx, ok := o.txs[h]; ok {
			txs = append(txs, tx)
		}
	}
	return txs
}

// TrackAccepted has the follower remember the transactions the log says
// were accepted and no sealed block has included yet (Outstanding). Call
// it before Run.
func (f *Follower) TrackAccepted() { f.pending = newOutstanding() }

// Outstanding returns the transactions accepted and not yet sealed, oldest
// first, as far as the follower has read; call it while Run is stopped.
func (f *Follower) Outstanding() types.Transactions {
	if f.pending == nil {
		return nil
	}
	return f.pending.list()
}
