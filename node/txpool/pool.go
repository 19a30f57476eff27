// Package txpool is the node's transaction pool: go-ethereum's legacypool
// behind the small API that the RPC layer and the sequencer use, with the
// chain's own admission rules (no blob transactions, fee cap at least the
// base fee of the block being built).
package txpool

import (
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/legacypool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/node/chain"
)

// ErrBlobTxNotSupported rejects blob transactions: this chain has no
// consensus layer to carry blob sidecars.
var ErrBlobTxNotSupported = errors.New("blob transactions are not supported on this chain")

// Config tunes the pool.
type Config struct {
	// GlobalSlots is the number of executable transactions the pool holds.
	GlobalSlots uint64
	// AccountSlots is the number of executable transactions per account
	// guaranteed a place.
	AccountSlots uint64
	// AddBatch is the most transactions added to the pool at once
	// (runAdmitter): the requests that wait while one batch is added form
	// the next. 0 means DefaultAddBatch.
	AddBatch int
}

// Pool accepts transactions for the sequencer.
type Pool struct {
	chain  *chain.Chain
	pool   *gethpool.TxPool
	legacy *fenced // pool's one subpool, which the admitter adds to directly
	hooks  atomic.Pointer[hooks]
	signer types.Signer // legacypool's: a sender recovered with it is reused

	admits    chan admitReq // to runAdmitter
	addBatch  int
	closing   chan struct{} // closed by Close
	admitDone chan struct{} // closed when runAdmitter returns
	closeOnce sync.Once
}

// hooks are what the pool does besides pooling: swapped whole, so that a
// candidate (app's --ha) changes between relaying and sequencing while
// requests are in flight.
type hooks struct {
	accepted func(*types.Transaction) error // OnAccepted; nil: nobody is told
	forward  Forwarder                      // ForwardTo; nil: pooled here
	fwd      *forwarded                     // what forward took, with ForwardTo
	// inUse is read-held by each add that pools here under these hooks,
	// from when it reads them until accepted has answered: a swap waits
	// for those adds, so that no transaction is pooled under hooks whose
	// log is about to stop.
	inUse *sync.RWMutex
}

// New starts a pool that follows c's head.
func New(c *chain.Chain, cfg Config) (*Pool, error) {
	lpConfig := legacypool.DefaultConfig
	lpConfig.Journal = "" // nothing is local: every sender is an RPC client
	if cfg.GlobalSlots > 0 {
		lpConfig.GlobalSlots = cfg.GlobalSlots
	}
	if cfg.AccountSlots > 0 {
		lpConfig.AccountSlots = cfg.AccountSlots
	}
	if cfg.AddBatch < 0 {
		return nil, fmt.Errorf("transactions added at once (--txpool.addbatch) %d: must be at least 1 (0: the default %d)", cfg.AddBatch, DefaultAddBatch)
	}
	addBatch := cfg.AddBatch
	if addBatch == 0 {
		addBatch = DefaultAddBatch
	}
	signer := types.LatestSigner(c.Config())
	legacy := &fenced{LegacyPool: legacypool.New(lpConfig, c.BlockChain()), signer: signer}
	// A zero minimum tip: transactions pay at least the base fee (checked in
	// Add), the tip is the sender's choice, as on anvil.
	pool, err := gethpool.New(0, c.BlockChain(), []gethpool.SubPool{legacy})
	if err != nil {
		return nil, fmt.Errorf("start transaction pool: %w", err)
	}
	p := &Pool{chain: c, pool: pool, legacy: legacy, signer: signer, admits: make(chan admitReq, addBatch), addBatch: addBatch,
		closing: make(chan struct{}), admitDone: make(chan struct{})}
	p.hooks.Store(&hooks{inUse: new(sync.RWMutex)})
	go p.runAdmitter()
	return p, nil
}

// AddRaw decodes a signed transaction in its binary (EIP-2718) encoding and
// adds it; see Add.
func (p *Pool) AddRaw(raw []byte) (common.Hash, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return common.Hash{}, fmt.Errorf("decode transaction: %w", err)
	}
	return tx.Hash(), p.Add(tx)
}

// Add validates tx and queues it for the sequencer. Errors are go-ethereum's
// (nonce too low, insufficient funds for gas * price + value, intrinsic gas
// too low, replacement transaction underpriced, invalid sender, ...).
func (p *Pool) Add(tx *types.Transaction) error {
	_, err := p.add(tx, false)
	return err
}

// add is Add, and Submit when want: it then also answers the
// transaction's Admission.
func (p *Pool) add(tx *types.Transaction, want bool) (Admission, error) {
	// legacypool takes every other type a transaction decodes as.
	if tx.Type() == types.BlobTxType {
		return Admission{}, ErrBlobTxNotSupported
	}
	h := p.holdHooks()
	switch {
	case h.forward != nil && want:
		return p.forwardSubmit(h, tx)
	case h.forward != nil:
		return Admission{}, p.forwardTx(h, tx)
	}
	adm, err := p.addHere(h, tx, want)
	h.inUse.RUnlock()
	if errors.Is(err, ErrTermEnded) {
		return p.handOn(h, tx, want, err)
	}
	return adm, err
}

// addHere pools tx under the read-held hooks h, and has it logged.
func (p *Pool) addHere(h *hooks, tx *types.Transaction, want bool) (Admission, error) {
	if err := p.checkFeeCap(tx); err != nil {
		return Admission{}, err
	}
	// The signature is recovered here, on the request's goroutine, where
	// requests recover theirs in parallel; legacypool reuses it. A sender
	// that does not recover is legacypool's to refuse.
	_, _ = types.Sender(p.signer, tx)
	// Return once the transaction is promoted, so the pending nonce a
	// wallet asks for next already counts it (two sends in a row would
	// otherwise share a nonce). Concurrent adds share one batch and one
	// promotion pass (runAdmitter), never a reset's (fenced).
	adm, err := p.admit(tx, want)
	if err != nil {
		if want {
			err = p.overdraft(tx, err)
		}
		return Admission{}, err
	}
	if h.accepted != nil {
		if err := h.accepted(tx); err != nil {
			return Admission{}, fmt.Errorf("the transaction is pooled, but the sequencer's log did not take it (it may still be included): %w", err)
		}
	}
	return adm, nil
}

// ErrTermEnded, wrapped in the error of an OnAccepted function, says
// that this node stopped sequencing before it logged the transaction
// (another writer fenced it): Add then gives the transaction to the
// hooks that replace the term's (the next leader's forwarder), so that
// the send is answered by whoever sequences now, not failed.
var ErrTermEnded = errors.New("this node's term as the sequencer ended before it logged the transaction")

// termEndWait bounds how long an add whose term ended waits for the
// term's hooks to be replaced.
const termEndWait = 5 * time.Second

// handOn adds tx again under the hooks that replace h, once they are
// installed; err is the answer if they are not within termEndWait.
func (p *Pool) handOn(h *hooks, tx *types.Transaction, want bool, err error) (Admission, error) {
	deadline := time.Now().Add(termEndWait)
	for p.hooks.Load() == h {
		if time.Now().After(deadline) {
			return Admission{}, err
		}
		time.Sleep(5 * time.Millisecond)
	}
	return p.add(tx, want)
}

// OnAccepted has every transaction the pool accepts handed to f before Add
// returns (the sequencer's log records acceptances, so a crash keeps
// them); f's error is Add's. nil tells nobody.
func (p *Pool) OnAccepted(f func(*types.Transaction) error) {
	p.swapHooks(func(h *hooks) { h.accepted = f })
}

// ForwardTo has Add and Submit hand every transaction to f, whose errors
// are theirs, instead of pooling it here: a read replica forwards to the
// sequencer (node/relay), whose pool decides. Get and Nonce then answer
// for the transactions forwarded lately too. nil pools here again.
func (p *Pool) ForwardTo(f Forwarder) {
	p.swapHooks(func(h *hooks) { h.setForward(f) })
}

// SetHooks sets ForwardTo's and OnAccepted's at once, so that no add runs
// under the one without the other (a candidate's change of role, app's
// --ha), and returns once the adds under the hooks before have finished.
func (p *Pool) SetHooks(forward Forwarder, accepted func(*types.Transaction) error) {
	p.swapHooks(func(h *hooks) { h.setForward(forward); h.accepted = accepted })
}

func (h *hooks) setForward(f Forwarder) {
	h.forward, h.fwd = f, nil
	if f != nil {
		h.fwd = newForwarded()
	}
}

// swapHooks installs changed hooks and waits for the adds that pool under
// the old ones. One goroutine swaps at a time.
func (p *Pool) swapHooks(change func(*hooks)) {
	old := p.hooks.Load()
	h := *old
	h.inUse = new(sync.RWMutex)
	change(&h)
	p.hooks.Store(&h)
	// Waiting for the adds under the old hooks is the point: the write
	// lock is taken only once they released theirs.
	old.inUse.Lock()
	defer old.inUse.Unlock()
}

// holdHooks returns the hooks an add runs under, read-held unless they
// forward (a forwarded add pools nothing here, and may wait long for the
// sequencer): the caller releases them with inUse.RUnlock.
func (p *Pool) holdHooks() *hooks {
	for {
		h := p.hooks.Load()
		if h.forward != nil {
			return h
		}
		h.inUse.RLock()
		if p.hooks.Load() == h {
			return h
		}
		h.inUse.RUnlock()
	}
}

// Clear drops every pooled transaction: a sequencer that lost the lead
// (app's --ha) drops what it never logged, and the log's new writer has
// what it did log.
func (p *Pool) Clear() { p.pool.Clear() }

func (p *Pool) forwardTx(h *hooks, tx *types.Transaction) error {
	from, err := p.sender(tx)
	if err != nil {
		return err
	}
	if err := h.forward.Send(tx); err != nil {
		return err
	}
	h.fwd.add(from, tx)
	return nil
}

// checkFeeCap rejects a transaction that cannot pay the base fee of the block
// being built. legacypool would queue it until the base fee falls; with a
// base fee floor it might never, so the sender hears about it now.
func (p *Pool) checkFeeCap(tx *types.Transaction) error {
	head := p.chain.Head()
	baseFee := p.chain.Engine().CalcBaseFee(p.chain.Config(), head)
	if tx.GasFeeCap().Cmp(baseFee) >= 0 {
		return nil
	}
	from, err := p.sender(tx)
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: address %v, maxFeePerGas: %s, baseFee: %s", core.ErrFeeCapTooLow, from.Hex(), tx.GasFeeCap(), baseFee)
}

// Get returns a pooled (or lately forwarded) transaction, or nil.
func (p *Pool) Get(hash common.Hash) *types.Transaction {
	if fwd := p.hooks.Load().fwd; fwd != nil {
		if tx := fwd.get(hash); tx != nil {
			return tx
		}
	}
	return p.pool.Get(hash)
}

// Nonce returns the next nonce of addr with every pooled executable (or
// lately forwarded) transaction applied. A replica's pool holds none of
// the pre-confirmed transactions its forwarded ones follow: ask it
// PendingNonce.
func (p *Pool) Nonce(addr common.Address) uint64 { return p.PendingNonce(addr, 0) }

// PendingNonce returns the next nonce of addr, whose nonce in the pending
// state is stateNonce, with every pooled executable (or lately forwarded
// and executable) transaction applied: eth_getTransactionCount's pending
// nonce.
func (p *Pool) PendingNonce(addr common.Address, stateNonce uint64) uint64 {
	n := max(stateNonce, p.pool.PoolNonce(addr))
	if fwd := p.hooks.Load().fwd; fwd != nil {
		n = fwd.next(addr, n)
	}
	return n
}

// Stats returns the number of executable and queued transactions.
func (p *Pool) Stats() (pending, queued int) { return p.pool.Stats() }

// Executable returns the transactions that can run on top of the head,
// grouped by sender and sorted by nonce, that pay at least baseFee.
func (p *Pool) Executable(baseFee *big.Int) map[common.Address][]*gethpool.LazyTransaction {
	filter := gethpool.PendingFilter{}
	if baseFee != nil {
		filter.BaseFee = uint256.MustFromBig(baseFee)
	}
	txs, _ := p.pool.Pending(filter)
	return txs
}

// SubscribeNewTransactions delivers the transactions the pool accepts.
func (p *Pool) SubscribeNewTransactions(ch chan<- core.NewTxsEvent) event.Subscription {
	return p.pool.SubscribeTransactions(ch, false)
}

// Sync waits until the pool has caught up with the chain head; tests use it.
func (p *Pool) Sync() error { return p.pool.Sync() }

// Close stops the pool; adds waiting or arriving then fail with ErrClosed.
// Calls after the first return nil.
func (p *Pool) Close() error {
	var err error
	p.closeOnce.Do(func() {
		close(p.closing)
		<-p.admitDone
		err = p.pool.Close()
	})
	return err
}
