package sequencer

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
	"github.com/stocknode/stocknode/node/txpool"
)

// env is an in-memory preview chain with a pool and a pending store.
type env struct {
	t     *testing.T
	chain *chain.Chain
	pool  *txpool.Pool
	store *pending.Store
	keys  []*ecdsa.PrivateKey
	// journal, when set, is the sequencer's.
	journal Journal
}

func newEnv(t *testing.T) *env {
	t.Helper()
	faucet, _, err := chain.FaucetKey("")
	if err != nil {
		t.Fatal(err)
	}
	genesis, err := chain.PreviewGenesis(crypto.PubkeyToAddress(faucet.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis, Rules: chain.Rules{MinBaseFee: chain.PreviewMinBaseFee}})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := txpool.New(c, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pool.Close()
		c.Close()
	})
	keys, err := chain.DevKeys(chain.DevAccountCount)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, chain: c, pool: pool, store: new(pending.Store), keys: keys}
}

// start runs a sequencer until the test ends.
func (e *env) start(cfg Config) { e.t.Helper(); e.startWith(cfg, testHooks{}) }

// startWith runs a sequencer with hooks until the test ends.
func (e *env) startWith(cfg Config, hooks testHooks) {
	e.t.Helper()
	if cfg.GasCeil == 0 {
		cfg.GasCeil = chain.PreviewGasLimit
	}
	seq, err := New(cfg, e.chain, e.pool, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		e.t.Fatal(err)
	}
	seq.hooks = hooks
	if e.journal != nil {
		seq.SetJournal(e.journal)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := seq.Run(ctx); err != nil {
			e.t.Errorf("sequencer: %v", err)
		}
	}()
	e.t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	e.waitFor("first snapshot", time.Second, func(s *pending.Snapshot) bool { return true })
}

func (e *env) addr(i int) common.Address { return crypto.PubkeyToAddress(e.keys[i].PublicKey) }

// tx signs a dynamic-fee transaction from dev account `from`.
func (e *env) tx(from int, nonce uint64, to *common.Address, value *big.Int, gas uint64, data []byte) *types.Transaction {
	e.t.Helper()
	tx, err := types.SignNewTx(e.keys[from], types.LatestSigner(e.chain.Config()), &types.DynamicFeeTx{
		ChainID:   e.chain.Config().ChainID,
		Nonce:     nonce,
		GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei),
		Gas:       gas,
		To:        to,
		Value:     value,
		Data:      data,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return tx
}

func (e *env) transfer(from int, nonce uint64, to common.Address, wei int64) *types.Transaction {
	return e.tx(from, nonce, &to, big.NewInt(wei), params.TxGas, nil)
}

// waitFor polls the store until cond holds for the current snapshot.
func (e *env) waitFor(what string, timeout time.Duration, cond func(*pending.Snapshot) bool) *pending.Snapshot {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if s := e.store.Load(); s != nil && cond(s) {
			return s
		}
		time.Sleep(time.Millisecond)
	}
	e.t.Fatalf("timed out after %v waiting for %s", timeout, what)
	return nil
}

func balance(t *testing.T, r interface {
	Account(common.Address) (*types.StateAccount, error)
}, addr common.Address) *big.Int {
	t.Helper()
	acct, err := r.Account(addr)
	if err != nil {
		t.Fatal(err)
	}
	if acct == nil {
		return new(big.Int)
	}
	return acct.Balance.ToBig()
}

func hasTx(txs types.Transactions, hash common.Hash) bool {
	for _, tx := range txs {
		if tx.Hash() == hash {
			return true
		}
	}
	return false
}
