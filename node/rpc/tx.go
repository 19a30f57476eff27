package rpc

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
)

// txLocation is where a transaction is: in a sealed block, pre-confirmed
// in the pending block (at index), or pooled (neither).
type txLocation struct {
	tx           *types.Transaction
	block        *types.Block
	index        int
	preconfirmed bool
}

// errTxIndexing is geth's answer while the transaction index is being built.
var errTxIndexing = errors.New("transaction indexing is in progress")

// findTx looks a transaction up as of the request's snapshot.
//
// In the Preconf view a pre-confirmed transaction answers as Base's
// Flashblocks RPC answers it (flashblocks.go): with its receipt and the
// pending block's number, so that ethers' tx.wait() and viem's
// waitForTransactionReceipt return within one pre-confirmation, for the
// clients that opted in. Those libraries take a receipt to mean "in a
// block", and a read of latest right after them does not see the
// transaction yet: it is in pending until its block seals. In the
// Standard view it answers as a pooled one (no block fields, no receipt)
// until the seal, so a receipt means that latest reads see it; its
// transactions and receipts are then served through the pending block
// only: eth_getBlockByNumber("pending"), eth_getBlockReceipts("pending"),
// eth_getLogs and the subscriptions.
func (s *Server) findTx(r *request, hash common.Hash) (txLocation, bool, error) {
	for i, tx := range r.snap.Pending.Transactions {
		if tx.Hash() == hash {
			return txLocation{tx: tx, index: i, preconfirmed: r.view == Preconf}, true, nil
		}
	}
	if tx, block, index := s.b.Chain.CanonicalTx(hash, r.snap.Head.NumberU64()); tx != nil {
		return txLocation{tx: tx, block: block, index: index}, true, nil
	}
	if tx := s.b.Pool.Get(hash); tx != nil {
		return txLocation{tx: tx}, true, nil
	}
	if r.snap.Head.NumberU64() > 0 && !s.b.Chain.BlockChain().TxIndexDone() {
		return txLocation{}, false, errTxIndexing
	}
	return txLocation{}, false, nil
}

func ethGetTransactionByHash(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	hash, err := r.hashArg(0)
	if err != nil {
		return err
	}
	loc, ok, err := s.findTx(r, hash)
	if !ok {
		return err
	}
	config := s.b.Chain.Config()
	if loc.preconfirmed {
		return r.writeJSON(preconfirmedTx(r.snap.Pending, loc.index, config))
	}
	if loc.block == nil {
		head := r.snap.Pending.Header
		return r.writeJSON(NewRPCTransaction(loc.tx, common.Hash{}, head.Number.Uint64(), head.Time, 0, nil, config))
	}
	b := loc.block
	return r.writeJSON(NewRPCTransaction(loc.tx, b.Hash(), b.NumberU64(), b.Time(), uint64(loc.index), b.BaseFee(), config))
}

func ethGetTransactionReceipt(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	hash, err := r.hashArg(0)
	if err != nil {
		return err
	}
	_, err = s.writeReceipt(r, hash)
	return err
}

// writeReceipt writes the receipt of transaction hash as of the request's
// snapshot and view, and reports whether there is one (none writes
// nothing: null).
func (s *Server) writeReceipt(r *request, hash common.Hash) (bool, error) {
	loc, ok, err := s.findTx(r, hash)
	if loc.preconfirmed {
		return true, r.writeJSON(preconfirmedReceipt(r.snap.Pending, loc.index, s.b.Chain.Config()))
	}
	if !ok || loc.block == nil {
		return false, err
	}
	b := loc.block
	receipt, err := s.b.Chain.BlockChain().GetCanonicalReceipt(loc.tx, b.Hash(), b.NumberU64(), uint64(loc.index))
	if err != nil {
		return false, err
	}
	signer := types.MakeSigner(s.b.Chain.Config(), b.Number(), b.Time())
	return true, r.writeJSON(marshalReceipt(receipt, b.Hash(), b.NumberU64(), signer, loc.tx, loc.index))
}

func ethSendRawTransaction(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	tx, err := s.rawTxArg(r)
	if err != nil {
		return err
	}
	// Recorded before the pool takes it, so that no block seals it first
	// (sendhold.go).
	send := s.sends.sent(r.peer, tx.Hash())
	if err := s.b.Pool.Add(tx); err != nil {
		send.refuse()
		return err
	}
	r.out = codec.AppendHash(r.out, tx.Hash())
	return nil
}

// rawTxArg decodes argument 0, a signed transaction, and refuses what
// the node does not take over RPC.
func (s *Server) rawTxArg(r *request) (*types.Transaction, error) {
	raw, err := r.required(0)
	if err != nil {
		return nil, err
	}
	data, err := codec.AppendData(nil, raw)
	if err != nil {
		return nil, argError(0, err)
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(data); err != nil {
		return nil, fmt.Errorf("decode transaction: %w", err)
	}
	// As geth: the development keys are public, so a transaction signed
	// without a chain ID could be replayed on every chain that funds them.
	if !tx.Protected() && !s.cfg.AllowUnprotectedTxs {
		return nil, errUnprotectedTx
	}
	return tx, nil
}

var errUnprotectedTx = errors.New("only replay-protected (EIP-155) transactions allowed over RPC")
