package rpc

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
)

// txLocation is where a transaction is: pre-confirmed in the pending block,
// in a sealed block, or only pooled (block nil).
type txLocation struct {
	tx      *types.Transaction
	block   *types.Block // nil for a pooled transaction
	index   int
	pending bool
}

// errTxIndexing is geth's answer while the transaction index is being built.
var errTxIndexing = errors.New("transaction indexing is in progress")

// findTx looks a transaction up as of the request's snapshot.
func (s *Server) findTx(r *request, hash common.Hash) (txLocation, bool, error) {
	for i, tx := range r.snap.Pending.Transactions {
		if tx.Hash() == hash {
			return txLocation{tx: tx, block: pendingBlock(r.snap.Pending), index: i, pending: true}, true, nil
		}
	}
	bc := s.b.Chain.BlockChain()
	if entry, tx := bc.GetCanonicalTransaction(hash); tx != nil && entry.BlockIndex <= r.snap.Head.NumberU64() {
		if block := bc.GetBlock(entry.BlockHash, entry.BlockIndex); block != nil {
			return txLocation{tx: tx, block: block, index: int(entry.Index)}, true, nil
		}
	}
	if tx := s.b.Pool.Get(hash); tx != nil {
		return txLocation{tx: tx}, true, nil
	}
	if r.snap.Head.NumberU64() > 0 && !bc.TxIndexDone() {
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
	loc, ok, err := s.findTx(r, hash)
	if !ok || loc.block == nil {
		return err
	}
	b := loc.block
	var receipt *types.Receipt
	if loc.pending {
		receipt = r.snap.Pending.Receipts[loc.index]
	} else {
		receipt, err = s.b.Chain.BlockChain().GetCanonicalReceipt(loc.tx, b.Hash(), b.NumberU64(), uint64(loc.index))
		if err != nil {
			return err
		}
	}
	signer := types.MakeSigner(s.b.Chain.Config(), b.Number(), b.Time())
	return r.writeJSON(marshalReceipt(receipt, b.Hash(), b.NumberU64(), signer, loc.tx, loc.index))
}

func ethSendRawTransaction(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	raw, err := r.required(0)
	if err != nil {
		return err
	}
	data, err := codec.AppendData(nil, raw)
	if err != nil {
		return argError(0, err)
	}
	hash, err := s.b.Pool.AddRaw(data)
	if err != nil {
		return err
	}
	r.out = codec.AppendHash(r.out, hash)
	return nil
}
