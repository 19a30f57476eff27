package txpool

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
)

// Admission says whether a transaction the pool accepted can run now.
type Admission struct {
	// Queued: the pool holds the transaction, but it cannot run until the
	// nonces before it arrive (legacypool's queue).
	Queued bool
	// Next is the sender's next nonce with its executable pooled
	// transactions applied: the one the pool waits for when Queued.
	Next uint64
}

// OverdraftError is the pool's refusal of a transaction whose sender can
// pay for it alone, but not after its pooled transactions before it: it
// cannot run at the position its nonce gives it. Its text is the pool's,
// so that eth_sendRawTransaction reads the same either way.
type OverdraftError struct {
	Err  error
	Next uint64 // the sender's next nonce, as Admission.Next
}

func (e *OverdraftError) Error() string { return e.Err.Error() }
func (e *OverdraftError) Unwrap() error { return e.Err }

// Forwarder is where a read replica's pool hands its transactions
// (ForwardTo): the sequencer's pool, which decides.
type Forwarder interface {
	// Send is Add on the sequencer.
	Send(tx *types.Transaction) error
	// Submit is Submit on the sequencer.
	Submit(tx *types.Transaction) (Admission, error)
}

// Submit adds tx as Add does, with Add's errors, and says whether it can
// run now. eth_sendRawTransactionSync asks, to answer at once for a
// transaction that would otherwise keep its client waiting in vain; an
// overdraft is then an *OverdraftError. The admission is read in the add's
// own promotion pass (fenced.addThen): a transaction sealed since reads
// as not queued.
func (p *Pool) Submit(tx *types.Transaction) (Admission, error) { return p.add(tx, true) }

// overdraft turns the pool's insufficient-funds error into an
// *OverdraftError when the head's balance pays for tx alone: the funds
// went to the sender's transactions pooled before it.
func (p *Pool) overdraft(tx *types.Transaction, err error) error {
	if !errors.Is(err, core.ErrInsufficientFunds) {
		return err
	}
	from, serr := p.sender(tx)
	if serr != nil {
		return err
	}
	reader, rerr := p.chain.StateReader(p.chain.Head().Root)
	if rerr != nil {
		return err
	}
	acct, aerr := reader.Account(from)
	if aerr != nil || acct == nil || acct.Balance.ToBig().Cmp(tx.Cost()) < 0 {
		return err
	}
	return &OverdraftError{Err: err, Next: p.Nonce(from)}
}

func (p *Pool) forwardSubmit(h *hooks, tx *types.Transaction) (Admission, error) {
	from, err := p.sender(tx)
	if err != nil {
		return Admission{}, err
	}
	adm, err := h.forward.Submit(tx)
	if err != nil {
		return Admission{}, err
	}
	// A queued one is behind a gap: PendingNonce counts it only once the
	// gap is filled.
	h.fwd.add(from, tx)
	return adm, nil
}

func (p *Pool) sender(tx *types.Transaction) (common.Address, error) {
	from, err := types.Sender(types.LatestSigner(p.chain.Config()), tx)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %v", gethpool.ErrInvalidSender, err)
	}
	return from, nil
}
