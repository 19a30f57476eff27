package rpc

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/stocknode/stocknode/codec"
)

// The raw getters of geth's debug API: a header, block, receipts or
// transaction in its consensus encoding (RLP; EIP-2718 envelopes for typed
// transactions and receipts), by block number, tag or hash as geth takes
// them. A number the chain has not reached answers null; an unknown hash
// is an error, as in geth.
//
// The pending block is not a header or block yet: its state root, hash and
// bloom are set when it is sealed, so an encoding now would not be the one
// the chain will hold. debug_getRawHeader and debug_getRawBlock refuse it
// (geth's answer is an error too); its receipts are final already (status,
// cumulative gas, logs do not change when the block seals), so
// debug_getRawReceipts("pending") answers them.

var errPendingUnsealed = errors.New("the pending block has no header yet: its state root and hash are set when it is sealed; ask for latest, a number or a hash")

// rawTarget is the block a raw getter names.
type rawTarget struct {
	header  *types.Header // nil: the block does not exist (null)
	pending bool          // the pending block, being built
}

// rawBlockArg resolves the one block argument of the raw block getters.
func (s *Server) rawBlockArg(r *request) (rawTarget, error) {
	if err := r.maxParams(1); err != nil {
		return rawTarget{}, err
	}
	if _, err := r.required(0); err != nil {
		return rawTarget{}, err
	}
	bp, err := r.blockParam(0)
	if err != nil {
		return rawTarget{}, err
	}
	if bp.Tag == codec.TagPending {
		if building(r.snap) {
			return rawTarget{pending: true}, nil
		}
		return rawTarget{header: r.snap.HeadHeader}, nil // no block production: pending is latest
	}
	h, err := s.header(r, bp)
	if errors.Is(err, errHeaderNotFound) {
		return rawTarget{}, nil
	}
	return rawTarget{header: h}, err
}

// rawBlock returns the sealed block of header h.
func (s *Server) rawBlock(r *request, h *types.Header) (*types.Block, error) {
	if h.Hash() == r.snap.Head.Hash() {
		return r.snap.Head, nil
	}
	b := s.b.Chain.BlockChain().GetBlock(h.Hash(), h.Number.Uint64())
	if b == nil {
		return nil, fmt.Errorf("block %d (%s) not found", h.Number, h.Hash().Hex())
	}
	return b, nil
}

// writeRaw appends enc as data if the response has room for it.
func (r *request) writeRaw(enc []byte) error {
	if 2*len(enc)+4 > r.room {
		return errResponseTooLarge
	}
	r.out = codec.AppendBytes(r.out, enc)
	return nil
}

// sealedArg resolves the block argument of debug_getRawHeader and
// debug_getRawBlock: a sealed block's header, or nil (null) for a block
// that does not exist; the pending block is refused.
func (s *Server) sealedArg(r *request) (*types.Header, error) {
	t, err := s.rawBlockArg(r)
	if err == nil && t.pending {
		err = errPendingUnsealed
	}
	return t.header, err
}

func debugGetRawHeader(s *Server, r *request) error {
	h, err := s.sealedArg(r)
	if err != nil || h == nil {
		return err
	}
	enc, err := rlp.EncodeToBytes(h)
	if err != nil {
		return fmt.Errorf("encode header %d: %w", h.Number, err)
	}
	return r.writeRaw(enc)
}

func debugGetRawBlock(s *Server, r *request) error {
	h, err := s.sealedArg(r)
	if err != nil || h == nil {
		return err
	}
	b, err := s.rawBlock(r, h)
	if err != nil {
		return err
	}
	enc, err := rlp.EncodeToBytes(b)
	if err != nil {
		return fmt.Errorf("encode block %d: %w", b.NumberU64(), err)
	}
	return r.writeRaw(enc)
}

func debugGetRawReceipts(s *Server, r *request) error {
	t, err := s.rawBlockArg(r)
	if err != nil {
		return err
	}
	var receipts types.Receipts
	switch {
	case t.pending:
		receipts = r.snap.Pending.Receipts
	case t.header == nil:
		return nil // null
	default:
		receipts = s.b.Chain.BlockChain().GetReceiptsByHash(t.header.Hash())
		if receipts == nil && t.header.TxHash != types.EmptyTxsHash {
			return fmt.Errorf("receipts of block %d not found", t.header.Number)
		}
	}
	mark := len(r.out)
	r.out = append(r.out, '[')
	for i, receipt := range receipts {
		enc, err := receipt.MarshalBinary()
		if err != nil {
			return fmt.Errorf("encode receipt %d: %w", i, err)
		}
		if i > 0 {
			r.out = append(r.out, ',')
		}
		r.out = codec.AppendBytes(r.out, enc)
		if len(r.out)-mark > r.room {
			return errResponseTooLarge
		}
	}
	r.out = append(r.out, ']')
	return nil
}

func debugGetRawTransaction(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	hash, err := r.hashArg(0)
	if err != nil {
		return err
	}
	loc, found, err := s.findTx(r, hash)
	if err != nil || !found {
		return err // null when not found
	}
	enc, err := loc.tx.MarshalBinary()
	if err != nil {
		return fmt.Errorf("encode transaction %s: %w", hash.Hex(), err)
	}
	return r.writeRaw(enc)
}
