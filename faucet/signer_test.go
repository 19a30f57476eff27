package faucet

import (
	"errors"
	"math/big"
	"slices"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/pending"
	nodepool "github.com/stocknode/stocknode/node/txpool"
)

// racingPool is the node's pool with a hook that runs, once, right after
// the faucet read its next nonce: another sender of the faucet's key
// strikes between the faucet's two steps. It records what Add answered.
type racingPool struct {
	*nodepool.Pool
	once sync.Once
	hook func(nonce uint64)

	mu   sync.Mutex
	errs []error
}

func (p *racingPool) Nonce(addr common.Address) uint64 {
	n := p.Pool.Nonce(addr)
	p.once.Do(func() { p.hook(n) })
	return n
}

func (p *racingPool) Add(tx *types.Transaction) error {
	err := p.Pool.Add(tx)
	p.mu.Lock()
	p.errs = append(p.errs, err)
	p.mu.Unlock()
	return err
}

// TestNonceTakenBehindTheFaucetsBack: a transaction from the faucet's key
// that takes the nonce the faucet is about to use makes the pool refuse
// the drip; the faucet reads the nonce again, sends the drip once, and
// goes on working.
func TestNonceTakenBehindTheFaucetsBack(t *testing.T) {
	tests := []struct {
		name    string
		sealed  bool  // the other transaction is mined before the drip reaches the pool
		same    bool  // the other transaction is the drip itself
		wantErr error // the pool's first answer
		retried bool
	}{
		{"pooled at the nonce", false, false, txpool.ErrReplaceUnderpriced, true},
		{"mined at the nonce", true, false, core.ErrNonceTooLow, true},
		{"the very drip pooled already", false, true, txpool.ErrAlreadyKnown, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			faucetAddr := crypto.PubkeyToAddress(e.key.PublicKey)
			to, other := freshAddress(t), freshAddress(t)
			cfg := DefaultConfig()
			var intruder *types.Transaction
			pool := &racingPool{Pool: e.Pool}
			pool.hook = func(nonce uint64) {
				intruder = e.intrude(nonce, other, tt.same, to, cfg)
				if tt.sealed {
					e.WaitFor("intruder sealed", func(s *pending.Snapshot) bool { return latestNonce(t, s, faucetAddr) > nonce })
					if err := e.Pool.Sync(); err != nil {
						t.Fatal(err)
					}
				}
			}
			f := e.newFaucet(cfg, e.backend(pool, e.key))
			e.Run(f)
			start := e.Pool.Nonce(faucetAddr)
			d := dripOK(t, f, to, "192.0.2.1")
			if !errors.Is(pool.errs[0], tt.wantErr) {
				t.Fatalf("the pool's first answer %v, want %v", pool.errs[0], tt.wantErr)
			}
			if retried := len(pool.errs) == 2; retried != tt.retried {
				t.Fatalf("pool answers %v: retried %t, want %t", pool.errs, retried, tt.retried)
			}
			tx := e.findTx(d.TxHash)
			wantNonce := start + 1
			if tt.same {
				wantNonce = start
				if tx.Hash() != intruder.Hash() {
					t.Fatalf("drip %s is not the pooled transaction %s", tx.Hash(), intruder.Hash())
				}
			}
			if tx.Nonce() != wantNonce {
				t.Errorf("drip at nonce %d, want %d", tx.Nonce(), wantNonce)
			}
			// Still working: the next drip takes the next nonce.
			next := freshAddress(t)
			dripOK(t, f, next, "192.0.2.2")
			snap := e.WaitFor("drips sealed", func(s *pending.Snapshot) bool { return latestNonce(t, s, faucetAddr) >= wantNonce+2 })
			if got := latestNonce(t, snap, faucetAddr); got != wantNonce+2 {
				t.Errorf("faucet nonce %d, want %d", got, wantNonce+2)
			}
			for _, addr := range []common.Address{to, next} {
				if b := latestBalance(t, snap, addr); b.Cmp(cfg.Amount) != 0 {
					t.Errorf("%s holds %s, want exactly one drip", addr, b)
				}
			}
		})
	}
}

// intrude pools a transaction from the faucet's key at nonce: to other
// with a tip that beats the faucet's, or (same) the drip to `to` exactly as
// the faucet would sign it.
func (e *env) intrude(nonce uint64, other common.Address, same bool, to common.Address, cfg Config) *types.Transaction {
	e.t.Helper()
	inner := &types.DynamicFeeTx{ChainID: e.Chain.Config().ChainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei), Gas: params.TxGas, To: &other, Value: big.NewInt(1)}
	if same {
		baseFee := e.Store.Load().Pending.Header.BaseFee
		inner.GasTipCap, inner.GasFeeCap = cfg.Tip, new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(2)), cfg.Tip)
		inner.To, inner.Value = &to, cfg.Amount
	}
	tx, err := types.SignNewTx(e.key, types.LatestSignerForChainID(e.Chain.Config().ChainID), inner)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.Pool.Add(tx); err != nil {
		e.t.Fatalf("intruder: %v", err)
	}
	return tx
}

// TestPlan prices drips: twice the pending base fee plus the tip, the
// gas the recipient needs, and errEmpty when the faucet cannot pay.
func TestPlan(t *testing.T) {
	e := newEnv(t)
	snap := e.Store.Load()
	baseFee := snap.Pending.Header.BaseFee
	tip := DefaultConfig().Tip
	s := newSigner(e.Pool, e.key, e.Chain.Config().ChainID, tip, 100_000)
	poor, _ := crypto.GenerateKey()
	acct, err := snap.PendingReader().Account(crypto.PubkeyToAddress(e.key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	all := acct.Balance.ToBig()
	fee := new(big.Int).Mul(new(big.Int).Add(new(big.Int).Lsh(baseFee, 1), tip), new(big.Int).SetUint64(params.TxGas))
	tests := []struct {
		name   string
		signer *signer
		to     common.Address
		amount *big.Int
		gas    uint64
		empty  bool
	}{
		{"transfer", s, freshAddress(t), big.NewInt(params.Ether), params.TxGas, false},
		{"contract", s, common.HexToAddress("0xB20f000000000000000000000000000000000000"), big.NewInt(1), 100_000, false},
		{"everything but the fee", s, freshAddress(t), new(big.Int).Sub(all, fee), params.TxGas, false},
		{"one wei too many", s, freshAddress(t), new(big.Int).Sub(all, new(big.Int).Sub(fee, big.NewInt(1))), 0, true},
		{"unfunded key", newSigner(e.Pool, poor, e.Chain.Config().ChainID, tip, 100_000), freshAddress(t), big.NewInt(1), 0, true},
	}
	for _, tt := range tests {
		p, err := tt.signer.plan(snap, tt.to, tt.amount)
		if tt.empty {
			if !errors.Is(err, errEmpty) {
				t.Errorf("%s: %v, want errEmpty", tt.name, err)
			}
			continue
		}
		wantCap := new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(2)), tip)
		if err != nil || p.gas != tt.gas || p.feeCap.Cmp(wantCap) != 0 || p.tipCap.Cmp(tip) != 0 {
			t.Errorf("%s: %+v, %v; want gas %d fee cap %s", tt.name, p, err, tt.gas, wantCap)
		}
	}
}

// seqPool is a pool that counts its transactions in nonce order, as the
// node's pool does once Add returned; drop evicts a transaction unmined.
type seqPool struct {
	counted uint64 // next nonce Nonce reports
	pooled  map[uint64]*types.Transaction
}

func (p *seqPool) Add(tx *types.Transaction) error {
	if old := p.pooled[tx.Nonce()]; old != nil {
		if old.Hash() == tx.Hash() {
			return txpool.ErrAlreadyKnown
		}
		return txpool.ErrReplaceUnderpriced
	}
	if tx.Nonce() < p.counted {
		return core.ErrNonceTooLow
	}
	p.pooled[tx.Nonce()] = tx
	for p.pooled[p.counted] != nil {
		p.counted++
	}
	return nil
}

func (p *seqPool) Nonce(common.Address) uint64 { return p.counted }

func (p *seqPool) drop(nonce uint64) {
	delete(p.pooled, nonce)
	p.counted = min(p.counted, nonce)
}

// TestNextNonce: each drip takes the pool's next nonce, so a gap the pool
// opens by dropping a drip is refilled, even when a later drip is still
// pooled.
func TestNextNonce(t *testing.T) {
	key, _ := crypto.GenerateKey()
	tr := transfer{to: common.Address{1}, amount: big.NewInt(1), gas: params.TxGas, feeCap: big.NewInt(2 * params.GWei), tipCap: big.NewInt(1)}
	tests := []struct {
		name string
		drop []uint64 // nonces evicted unmined before the third drip
		want []uint64 // nonces of three drips
	}{
		{"in a row", nil, []uint64{0, 1, 2}},
		{"the last drip dropped", []uint64{1}, []uint64{0, 1, 1}},
		{"an earlier drip dropped", []uint64{0}, []uint64{0, 1, 0}},
	}
	for _, tt := range tests {
		p := &seqPool{pooled: map[uint64]*types.Transaction{}}
		s := newSigner(p, key, big.NewInt(1), big.NewInt(1), 100_000)
		var got []uint64
		for i := range 3 {
			if i == 2 {
				for _, n := range tt.drop {
					p.drop(n)
				}
			}
			tr.amount = big.NewInt(int64(i + 1)) // distinct transactions
			tx, err := s.send(tr)
			if err != nil {
				t.Fatalf("%s: drip %d: %v", tt.name, i, err)
			}
			got = append(got, tx.Nonce())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: nonces %v, want %v", tt.name, got, tt.want)
		}
	}
}
