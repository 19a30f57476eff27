package txpool_test

import (
	"crypto/ecdsa"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/txpool"
)

func (f *fixture) transfer(t *testing.T, key *ecdsa.PrivateKey, nonce uint64, ether int64) *types.Transaction {
	t.Helper()
	to := common.Address{0x01, 0x02}
	value := new(big.Int).Mul(big.NewInt(ether), big.NewInt(params.Ether))
	tx, err := types.SignNewTx(key, f.signer, &types.DynamicFeeTx{
		ChainID: f.chain.Config().ChainID, Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(10 * params.GWei),
		Gas: 21000, To: &to, Value: value,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// Submit says whether what it accepted can run now, and refuses an
// overdraft at its position as one that cannot, with the pool's words.
func TestSubmitAdmission(t *testing.T) {
	f := newFixture(t) // dev account 0 has nonce 1; each holds 10,000 ETH
	tests := []struct {
		name      string
		key       int
		before    []uint64 // nonces of 6,000 ETH transfers pooled first
		nonce     uint64
		ether     int64
		queued    bool
		next      uint64
		overdraft bool   // refused as an *OverdraftError
		err       string // refused with this text
	}{
		{name: "executable", key: 1, nonce: 0, ether: 1, next: 1},
		{name: "after the sealed nonce", key: 0, nonce: 1, ether: 1, next: 2},
		{name: "nonce gap", key: 2, nonce: 2, ether: 1, queued: true, next: 0},
		{name: "gap after pooled ones", key: 3, before: []uint64{0}, nonce: 3, ether: 1, queued: true, next: 1},
		{name: "overdraft at its position", key: 4, before: []uint64{0}, nonce: 1, ether: 6000, overdraft: true, next: 1,
			err: "insufficient funds for gas * price + value"},
		{name: "unaffordable alone", key: 5, nonce: 0, ether: 20_000, err: "insufficient funds for gas * price + value"},
		{name: "nonce too low", key: 0, nonce: 0, ether: 1, err: "nonce too low"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := f.keys[tt.key]
			for _, n := range tt.before {
				if err := f.pool.Add(f.transfer(t, key, n, 6000)); err != nil {
					t.Fatal(err)
				}
			}
			tx := f.transfer(t, key, tt.nonce, tt.ether)
			adm, err := f.pool.Submit(tx)
			var over *txpool.OverdraftError
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Submit = %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("Submit = %v, want an error containing %q", err, tt.err)
			case errors.As(err, &over) != tt.overdraft:
				t.Fatalf("Submit = %#v, overdraft %v", err, tt.overdraft)
			case tt.overdraft && over.Next != tt.next:
				t.Fatalf("overdraft's next nonce %d, want %d", over.Next, tt.next)
			case tt.err == "" && adm != (txpool.Admission{Queued: tt.queued, Next: tt.next}):
				t.Fatalf("Submit = %+v, want queued %v next %d", adm, tt.queued, tt.next)
			}
			if tt.err != "" {
				// eth_sendRawTransaction's words are the same.
				if addErr := f.pool.Add(tx); addErr == nil || addErr.Error() != err.Error() {
					t.Fatalf("Add = %v, Submit = %v", addErr, err)
				}
			}
		})
	}
}

// fakeSequencer stands for the relay to the sequencer's pool.
type fakeSequencer struct{ adm txpool.Admission }

func (s *fakeSequencer) Send(*types.Transaction) error { return nil }
func (s *fakeSequencer) Submit(*types.Transaction) (txpool.Admission, error) {
	return s.adm, nil
}

// A replica's pool takes the sequencer's word, and does not count a
// queued transaction's nonce as its sender's next.
func TestSubmitForwarded(t *testing.T) {
	f := newFixture(t)
	seq := &fakeSequencer{}
	f.pool.ForwardTo(seq)
	key := f.keys[6]
	from := crypto.PubkeyToAddress(key.PublicKey)
	seq.adm = txpool.Admission{Queued: true}
	gapped := f.transfer(t, key, 5, 1)
	if adm, err := f.pool.Submit(gapped); err != nil || adm != seq.adm {
		t.Fatalf("Submit(gapped) = %+v, %v", adm, err)
	}
	if f.pool.Get(gapped.Hash()) == nil || f.pool.Nonce(from) != 0 {
		t.Fatalf("after a queued forward: known %v, nonce %d, want known and 0", f.pool.Get(gapped.Hash()) != nil, f.pool.Nonce(from))
	}
	seq.adm = txpool.Admission{Next: 1}
	if adm, err := f.pool.Submit(f.transfer(t, key, 0, 1)); err != nil || adm != seq.adm {
		t.Fatalf("Submit = %+v, %v", adm, err)
	}
	if f.pool.Nonce(from) != 1 {
		t.Fatalf("nonce after an executable forward = %d, want 1", f.pool.Nonce(from))
	}
}
