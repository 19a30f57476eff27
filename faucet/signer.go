package faucet

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/pending"
)

// Pool is where drips go: the node's transaction pool.
type Pool interface {
	// Add validates tx and returns once Nonce counts it (or rejected).
	Add(tx *types.Transaction) error
	// Nonce is addr's next nonce with every pooled executable transaction
	// applied.
	Nonce(addr common.Address) uint64
}

// errEmpty is a faucet that cannot pay for one more drip.
var errEmpty = errors.New("the faucet's balance is too low")

// signer sends the faucet's transfers from its one account.
type signer struct {
	pool        Pool
	key         *ecdsa.PrivateKey
	from        common.Address
	sig         types.Signer
	chainID     *big.Int
	tip         *big.Int
	contractGas uint64

	// mu makes nonce choice and pool admission one step, so concurrent
	// drips never share a nonce and never leave a gap.
	mu sync.Mutex
}

func newSigner(pool Pool, key *ecdsa.PrivateKey, chainID *big.Int, tip *big.Int, contractGas uint64) *signer {
	return &signer{
		pool: pool, key: key, from: crypto.PubkeyToAddress(key.PublicKey),
		sig: types.LatestSignerForChainID(chainID), chainID: chainID, tip: tip, contractGas: contractGas,
	}
}

// transfer is one drip's transaction, short of its nonce.
type transfer struct {
	to             common.Address
	amount         *big.Int
	gas            uint64
	feeCap, tipCap *big.Int
}

// plan prices a transfer of amount to `to` on the pending state: a fee
// cap of twice the pending block's base fee (headroom for a few blocks of
// rising fees) plus the tip, and the gas the recipient needs. It fails
// with errEmpty when the faucet cannot pay for it.
func (s *signer) plan(snap *pending.Snapshot, to common.Address, amount *big.Int) (transfer, error) {
	baseFee := snap.Pending.Header.BaseFee
	if baseFee == nil {
		return transfer{}, errors.New("the chain has no base fee (it predates London): the faucet sends EIP-1559 transfers")
	}
	t := transfer{to: to, amount: amount, gas: params.TxGas, tipCap: s.tip}
	t.feeCap = new(big.Int).Add(new(big.Int).Lsh(baseFee, 1), s.tip)
	reader := snap.PendingReader()
	recipient, err := reader.Account(to)
	if err != nil {
		return transfer{}, fmt.Errorf("read the recipient's account: %w", err)
	}
	if recipient != nil && common.BytesToHash(recipient.CodeHash) != types.EmptyCodeHash {
		t.gas = s.contractGas
	}
	faucet, err := reader.Account(s.from)
	if err != nil {
		return transfer{}, fmt.Errorf("read the faucet's account: %w", err)
	}
	need := new(big.Int).Add(amount, new(big.Int).Mul(t.feeCap, new(big.Int).SetUint64(t.gas)))
	if have := balanceOf(faucet); have.Cmp(need) < 0 {
		return transfer{}, fmt.Errorf("%w: %s holds %s, one drip needs %s (amount and fee)", errEmpty, s.from.Hex(), FormatEther(have), FormatEther(need))
	}
	return t, nil
}

// send signs t at the pool's next nonce and adds it. Another sender of the
// faucet's key can take that nonce between the two steps: after a nonce
// error it reads the pool's nonce again and retries once.
func (s *signer) send(t transfer) (*types.Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.sendAt(s.pool.Nonce(s.from), t)
	if isNonceError(err) {
		tx, err = s.sendAt(s.pool.Nonce(s.from), t)
	}
	if errors.Is(err, core.ErrInsufficientFunds) {
		err = fmt.Errorf("%w: %v", errEmpty, err)
	}
	return tx, err
}

func (s *signer) sendAt(nonce uint64, t transfer) (*types.Transaction, error) {
	tx, err := types.SignNewTx(s.key, s.sig, &types.DynamicFeeTx{
		ChainID:   s.chainID,
		Nonce:     nonce,
		GasTipCap: t.tipCap,
		GasFeeCap: t.feeCap,
		Gas:       t.gas,
		To:        &t.to,
		Value:     t.amount,
	})
	if err != nil {
		return nil, fmt.Errorf("sign the drip: %w", err)
	}
	err = s.pool.Add(tx)
	switch {
	case errors.Is(err, txpool.ErrAlreadyKnown):
		// This very transaction (signatures are deterministic) is pooled
		// already: it is the drip, and another at the next nonce would
		// pay the recipient twice.
		return tx, nil
	case err != nil:
		return nil, fmt.Errorf("the transaction pool refused the drip at nonce %d: %w", nonce, err)
	}
	return tx, nil
}

// isNonceError reports the pool's answers to a nonce someone else took:
// mined already, or held by another pooled transaction.
func isNonceError(err error) bool {
	return errors.Is(err, core.ErrNonceTooLow) || errors.Is(err, core.ErrNonceTooHigh) ||
		errors.Is(err, txpool.ErrReplaceUnderpriced)
}

func balanceOf(acct *types.StateAccount) *big.Int {
	if acct == nil || acct.Balance == nil {
		return new(big.Int)
	}
	return acct.Balance.ToBig()
}
