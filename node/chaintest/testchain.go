// Package chaintest runs a preview chain in memory for other packages'
// tests: a chain, its pool, the pending store and a sequencer sealing
// blocks, with the development keys to send from.
//
// Only tests import it: its functions fail the test rather than return
// errors.
package chaintest

import (
	"context"
	"crypto/ecdsa"
	"io"
	"log/slog"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

// DefaultBlockTime is the block time when Config leaves it zero: short,
// so that transactions land fast.
const DefaultBlockTime = 50 * time.Millisecond

// waitLimit bounds every wait: far beyond what a sound test needs even on
// a loaded machine, so reaching it means the condition never holds.
const waitLimit = 30 * time.Second

// Config is a test chain's configuration.
type Config struct {
	// BlockTime is the time from a block's opening to its sealing; zero
	// means DefaultBlockTime (a test chain always produces blocks).
	BlockTime time.Duration
	// PreconfInterval is the time between pre-confirmations; zero means
	// BlockTime.
	PreconfInterval time.Duration
	// Faucet is the address the preview genesis funds as the faucet; zero
	// means 0xfa00…, an address nobody holds the key of.
	Faucet common.Address
}

// Env is a running preview chain.
type Env struct {
	Chain   *chain.Chain
	Pool    *txpool.Pool
	Store   *pending.Store
	Keys    []*ecdsa.PrivateKey // the development accounts, funded by the genesis
	Signer  types.Signer
	ChainID *big.Int

	t      testing.TB
	seq    *sequencer.Sequencer
	nonces map[common.Address]uint64 // the next nonce of every account sent from
	stop   func()
}

// Quiet is a logger that drops everything: a test's output is its failures.
func Quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// OpenChain opens an in-memory chain on the preview genesis funding
// cfg.Faucet, closed when the test ends; nothing seals blocks on it.
func OpenChain(t testing.TB, cfg Config) *chain.Chain {
	t.Helper()
	faucet := cfg.Faucet
	if faucet == (common.Address{}) {
		faucet = common.Address{0xfa}
	}
	genesis, err := chain.PreviewGenesis(faucet)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis, Rules: chain.Rules{MinBaseFee: chain.PreviewMinBaseFee}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// New opens a chain with its pool and sequencer, and publishes its head so
// that the store has a snapshot before Run, as a node's does. Everything
// is closed when the test ends.
func New(t testing.TB, cfg Config) *Env {
	t.Helper()
	c := OpenChain(t, cfg)
	pool, err := txpool.New(c, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	keys, err := chain.DevKeys(chain.DevAccountCount)
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{Chain: c, Pool: pool, Store: new(pending.Store), Keys: keys, Signer: types.LatestSigner(c.Config()),
		ChainID: c.Config().ChainID, t: t, nonces: map[common.Address]uint64{}, stop: func() {}}
	if e.seq, err = sequencer.New(cfg.sequencer(), c, pool, e.Store, Quiet()); err != nil {
		t.Fatal(err)
	}
	if err := e.seq.PublishHead(); err != nil {
		t.Fatal(err)
	}
	return e
}

func (cfg Config) sequencer() sequencer.Config {
	s := sequencer.Config{BlockTime: cfg.BlockTime, PreconfInterval: cfg.PreconfInterval, GasCeil: chain.PreviewGasLimit}
	if s.BlockTime == 0 {
		s.BlockTime = DefaultBlockTime
	}
	if s.PreconfInterval == 0 {
		s.PreconfInterval = s.BlockTime
	}
	return s
}

// Run starts the sequencer, which tells listeners, in order, of every
// snapshot, until Stop or the end of the test. Call it once.
func (e *Env) Run(listeners ...sequencer.Listener) {
	if len(listeners) > 0 {
		e.seq.SetListener(sequencer.Listeners(listeners))
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := e.seq.Run(ctx); err != nil {
			e.t.Errorf("sequencer: %v", err)
		}
	})
	e.stop = sync.OnceFunc(func() {
		cancel()
		wg.Wait()
	})
	e.t.Cleanup(e.stop)
}

// Stop stops the sequencer and returns once it has: the chain no longer
// grows. It may be called more than once, and before Run.
func (e *Env) Stop() { e.stop() }

// Addr is the address of development account i.
func (e *Env) Addr(i int) common.Address { return crypto.PubkeyToAddress(e.Keys[i].PublicKey) }

// Sign signs a dynamic-fee transaction from development account from, with
// a tip of 1 gwei and a fee cap of 10.
func (e *Env) Sign(from int, nonce uint64, to *common.Address, value *big.Int, gas uint64, data []byte) *types.Transaction {
	e.t.Helper()
	tx, err := types.SignNewTx(e.Keys[from], e.Signer, &types.DynamicFeeTx{
		ChainID: e.ChainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei), Gas: gas, To: to, Value: value, Data: data,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return tx
}

// Send signs a transaction from development account from at its next
// nonce and pools it.
func (e *Env) Send(from int, to *common.Address, value *big.Int, gas uint64, data []byte) *types.Transaction {
	e.t.Helper()
	tx := e.Sign(from, e.nonces[e.Addr(from)], to, value, gas, data)
	e.Add(tx)
	return tx
}

// Add pools transactions signed elsewhere, in nonce order: each sender's
// next nonce follows its last, and Settle waits for them too.
func (e *Env) Add(txs ...*types.Transaction) {
	e.t.Helper()
	for _, tx := range txs {
		from, err := types.Sender(e.Signer, tx)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := e.Pool.Add(tx); err != nil {
			e.t.Fatalf("pool %s nonce %d: %v", from, tx.Nonce(), err)
		}
		e.nonces[from] = tx.Nonce() + 1
	}
}

// WaitFor polls the store until cond holds for its snapshot, and returns
// that snapshot.
func (e *Env) WaitFor(what string, cond func(*pending.Snapshot) bool) *pending.Snapshot {
	e.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		if s := e.Store.Load(); s != nil && cond(s) {
			return s
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("timed out after %v waiting for %s", waitLimit, what)
	return nil
}

// WaitSealed waits until tx is in a sealed block that the store's head has
// reached, and returns the block's number.
func (e *Env) WaitSealed(tx *types.Transaction) uint64 {
	e.t.Helper()
	var n uint64
	e.WaitFor("tx "+tx.Hash().Hex()+" sealed", func(*pending.Snapshot) bool {
		entry, found := e.Chain.BlockChain().GetCanonicalTransaction(tx.Hash())
		if found != nil {
			n = entry.BlockIndex
		}
		return found != nil
	})
	// The snapshot with that head may trail the canonical index by a moment.
	e.WaitFor("head past the tx's block", func(s *pending.Snapshot) bool { return s.Head.NumberU64() >= n })
	return n
}

// Settle waits until every transaction sent or added is in a sealed block.
func (e *Env) Settle() {
	e.t.Helper()
	e.WaitFor("every transaction sealed", func(s *pending.Snapshot) bool {
		for addr, nonce := range e.nonces {
			acct, err := s.LatestReader().Account(addr)
			if err != nil {
				e.t.Fatal(err)
			}
			if acct == nil || acct.Nonce < nonce {
				return false
			}
		}
		return true
	})
}
