package txpool_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

type fixture struct {
	chain  *chain.Chain
	pool   *txpool.Pool
	keys   []*ecdsa.PrivateKey
	signer types.Signer
}

// newFixture runs a preview chain whose first block holds one transfer from
// dev account 0, so that account's nonce is 1.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	genesis, err := chain.PreviewGenesis(common.Address{0xfa})
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
	keys, err := chain.DevKeys(chain.DevAccountCount)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{chain: c, pool: pool, keys: keys, signer: types.LatestSigner(c.Config())}

	t.Cleanup(func() {
		pool.Close()
		c.Close()
	})
	stop := f.runSequencer(t, sequencer.Config{BlockTime: 50 * time.Millisecond, PreconfInterval: 50 * time.Millisecond, GasCeil: chain.PreviewGasLimit})
	if err := pool.Add(f.dynamic(t, keys[0], 0, 21000, big.NewInt(10*params.GWei), nil)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for c.BlockChain().GetReceiptsByHash(c.Head().Hash()) == nil || c.Head().GasUsed == 0 {
		if time.Now().After(deadline) {
			t.Fatal("first transfer not sealed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	if err := pool.Sync(); err != nil {
		t.Fatal(err)
	}
	return f
}

// runSequencer produces blocks from the pool until the returned stop (or
// the test's cleanup) is called.
func (f *fixture) runSequencer(t *testing.T, cfg sequencer.Config) (stop func()) {
	t.Helper()
	seq, err := sequencer.New(cfg, f.chain, f.pool, new(pending.Store), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); seq.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

func (f *fixture) dynamic(t *testing.T, key *ecdsa.PrivateKey, nonce, gas uint64, feeCap *big.Int, data []byte) *types.Transaction {
	t.Helper()
	to := common.Address{0x01, 0x02}
	tx, err := types.SignNewTx(key, f.signer, &types.DynamicFeeTx{
		ChainID: f.chain.Config().ChainID, Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: feeCap,
		Gas: gas, To: &to, Value: big.NewInt(1), Data: data,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestAddRejectsInGethsWords(t *testing.T) {
	f := newFixture(t)
	unfunded, _ := crypto.GenerateKey()
	gwei10 := big.NewInt(10 * params.GWei)
	wrongChain, err := types.SignNewTx(f.keys[2], types.LatestSignerForChainID(big.NewInt(1)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1), Nonce: 0, GasTipCap: big.NewInt(1), GasFeeCap: gwei10, Gas: 21000, To: &common.Address{1}, Value: big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	// r = s = 0 is a well-formed encoding of a signature nobody made.
	zeroR, err := f.dynamic(t, f.keys[3], 0, 21000, gwei10, nil).WithSignature(f.signer, make([]byte, 65))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		tx   *types.Transaction
		want string
	}{
		{"nonce too low", f.dynamic(t, f.keys[0], 0, 21000, gwei10, nil), "nonce too low"},
		{"insufficient funds", f.dynamic(t, unfunded, 0, 21000, gwei10, nil), "insufficient funds for gas * price + value"},
		{"intrinsic gas", f.dynamic(t, f.keys[1], 0, 20000, gwei10, nil), "intrinsic gas too low"},
		{"fee cap below base fee", f.dynamic(t, f.keys[1], 0, 21000, big.NewInt(params.GWei-1), nil), "max fee per gas less than block base fee"},
		{"wrong chain ID", wrongChain, "invalid chain id"},
		{"invalid sender", zeroR, "invalid sender"},
		{"oversized data", f.dynamic(t, f.keys[1], 0, 10_000_000, gwei10, make([]byte, 200*1024)), "oversized data"},
		{"blob", f.blobTx(t), "blob transactions are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.pool.Add(tt.tx)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Add() = %v, want an error containing %q", err, tt.want)
			}
			if f.pool.Get(tt.tx.Hash()) != nil {
				t.Fatal("rejected transaction is in the pool")
			}
		})
	}
}

func TestReplacementUnderpriced(t *testing.T) {
	f := newFixture(t)
	first := f.dynamic(t, f.keys[4], 0, 21000, big.NewInt(10*params.GWei), nil)
	if err := f.pool.Add(first); err != nil {
		t.Fatal(err)
	}
	same := f.dynamic(t, f.keys[4], 0, 22000, big.NewInt(10*params.GWei), []byte{1})
	if err := f.pool.Add(same); err == nil || !strings.Contains(err.Error(), "replacement transaction underpriced") {
		t.Fatalf("Add(replacement) = %v", err)
	}
	if got := f.pool.Get(first.Hash()); got == nil {
		t.Fatal("original transaction left the pool")
	}
	if got := f.pool.Nonce(crypto.PubkeyToAddress(f.keys[4].PublicKey)); got != 1 {
		t.Fatalf("pending nonce = %d, want 1", got)
	}
}

func TestAddRaw(t *testing.T) {
	f := newFixture(t)
	if _, err := f.pool.AddRaw([]byte{0x02, 0xc0}); err == nil || !strings.Contains(err.Error(), "decode transaction") {
		t.Fatalf("AddRaw(garbage) = %v", err)
	}
	tx := f.dynamic(t, f.keys[5], 0, 21000, big.NewInt(10*params.GWei), nil)
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	hash, err := f.pool.AddRaw(raw)
	if err != nil || hash != tx.Hash() {
		t.Fatalf("AddRaw = %s, %v", hash, err)
	}
	if f.pool.Get(hash) == nil {
		t.Fatal("accepted transaction not in the pool")
	}
}

func (f *fixture) blobTx(t *testing.T) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(f.keys[6], f.signer, &types.BlobTx{
		ChainID: uint256.MustFromBig(f.chain.Config().ChainID), Nonce: 0, GasTipCap: uint256.NewInt(1),
		GasFeeCap: uint256.NewInt(10 * params.GWei), Gas: 21000, To: common.Address{1},
		BlobFeeCap: uint256.NewInt(params.GWei), BlobHashes: []common.Hash{{0x01}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestAddCountsInPendingNonce: once Add returns, the sender's pending
// nonce counts the transaction, even when the pool takes in a new block
// (a reset) while it adds. Senders send in a row while blocks are sealed
// every few milliseconds, so adds keep racing resets; legacypool folds a
// reset and a concurrent add into one promotion pass whose nonces come
// from the new head alone, and a transaction following one still pending
// stayed queued until the next block.
func TestAddCountsInPendingNonce(t *testing.T) {
	f := newFixture(t)
	f.runSequencer(t, sequencer.Config{BlockTime: 5 * time.Millisecond, PreconfInterval: 5 * time.Millisecond, GasCeil: chain.PreviewGasLimit})
	const sends = 40
	senders := f.keys[1:]
	errs := make(chan error, len(senders))
	var wg sync.WaitGroup
	for _, key := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- f.sendInARow(t, key, sends)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// sendInARow sends n transfers from key, each at the pending nonce that
// the pool reports after the previous one was added.
func (f *fixture) sendInARow(t *testing.T, key *ecdsa.PrivateKey, n int) error {
	from := crypto.PubkeyToAddress(key.PublicKey)
	for range n {
		nonce := f.pool.Nonce(from)
		tx := f.dynamic(t, key, nonce, 21000, big.NewInt(10*params.GWei), nil)
		if err := f.pool.Add(tx); err != nil {
			return fmt.Errorf("%s: add nonce %d: %w", from, nonce, err)
		}
		if got := f.pool.Nonce(from); got != nonce+1 {
			pending, queued := f.pool.ContentFrom(from)
			return fmt.Errorf("%s: pending nonce %d right after adding nonce %d (%d pending, %d queued)", from, got, nonce, len(pending), len(queued))
		}
	}
	return nil
}

// TestForwardedPendingNonce: on a replica, the pending nonce counts a
// transaction the sequencer accepted as soon as the send returns, never
// one it refused, nor one behind a nonce gap until the gap is filled.
func TestForwardedPendingNonce(t *testing.T) {
	f := newFixture(t)
	key := f.keys[2]
	from := crypto.PubkeyToAddress(key.PublicKey)
	refused := errors.New("refused by the sequencer")
	var refuse bool
	f.pool.ForwardTo(sendFunc(func(*types.Transaction) error {
		if refuse {
			return refused
		}
		return nil
	}))
	steps := []struct {
		name   string
		nonce  uint64
		refuse bool
		state  uint64 // the nonce in the replica's pending state
		want   uint64
	}{
		{"first", 0, false, 0, 1},
		{"second in a row", 1, false, 0, 2},
		{"refused", 2, true, 0, 2},
		{"sent again, accepted", 2, false, 0, 3},
		{"behind a gap", 5, false, 0, 3},
		{"next in a row", 3, false, 0, 4},
		{"filling the gap", 4, false, 0, 6},
		{"some pre-confirmed", 6, false, 4, 7},
		{"all pre-confirmed", 7, false, 9, 9},
	}
	for _, st := range steps {
		refuse = st.refuse
		tx := f.dynamic(t, key, st.nonce, 21000, big.NewInt(10*params.GWei), nil)
		if err := f.pool.Add(tx); (err != nil) != st.refuse {
			t.Fatalf("%s: Add(nonce %d) = %v, want refused %v", st.name, st.nonce, err, st.refuse)
		}
		if got := f.pool.PendingNonce(from, st.state); got != st.want {
			t.Errorf("%s: pending nonce %d after nonce %d, want %d", st.name, got, st.nonce, st.want)
		}
		if got := f.pool.Get(tx.Hash()) != nil; got == st.refuse {
			t.Errorf("%s: Get(nonce %d) found %v", st.name, st.nonce, got)
		}
	}
}

// sendFunc is a Forwarder whose sequencer answers every transaction with
// the function's error.
type sendFunc func(*types.Transaction) error

func (f sendFunc) Send(tx *types.Transaction) error { return f(tx) }
func (f sendFunc) Submit(tx *types.Transaction) (txpool.Admission, error) {
	return txpool.Admission{}, f(tx)
}
