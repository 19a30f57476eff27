package rpc

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/pending"
)

// blockRef is a block a request names: sealed, or the pending one.
type blockRef struct {
	block   *types.Block
	pending bool
	// preconfHash, in the Preconf view, is the pending block's hash
	// (pending.Block.PreconfHash); zero otherwise.
	preconfHash common.Hash
}

// hash is the block's hash as the request's view gives it.
func (ref blockRef) hash() common.Hash {
	if ref.preconfHash != (common.Hash{}) {
		return ref.preconfHash
	}
	return ref.block.Hash()
}

// pendingRef is the pending block as the request's view shows it.
func pendingRef(r *request) blockRef {
	ref := blockRef{block: r.snap.Pending.Assembled(), pending: true}
	if r.view == Preconf {
		ref.preconfHash = r.snap.Pending.PreconfHash()
	}
	return ref
}

// blockByParam resolves argument i to a block, or nil when there is none
// (geth answers null for blocks that do not exist).
func (s *Server) blockByParam(r *request, i int) (blockRef, error) {
	bp, err := r.blockParam(i)
	if err != nil {
		return blockRef{}, err
	}
	if bp.Tag == codec.TagPending {
		if r.snap.Pending.Header.Number.Cmp(r.snap.Head.Number()) == 0 {
			return blockRef{block: r.snap.Head}, nil // no block production: pending is latest
		}
		return pendingRef(r), nil
	}
	header, err := s.header(r, bp)
	if errors.Is(err, errHeaderNotFound) || errors.Is(err, errHashNotFound) {
		return blockRef{}, nil
	}
	if err != nil {
		return blockRef{}, err
	}
	if header.Hash() == r.snap.Head.Hash() {
		return blockRef{block: r.snap.Head}, nil
	}
	return blockRef{block: s.b.Chain.BlockChain().GetBlock(header.Hash(), header.Number.Uint64())}, nil
}

// blockByHashArg resolves argument i, a block hash, to a block or nil.
func (s *Server) blockByHashArg(r *request, i int) (blockRef, error) {
	raw, err := r.required(i)
	if err != nil {
		return blockRef{}, err
	}
	hash, err := codec.ParseHash(raw)
	if err != nil {
		return blockRef{}, argError(i, err)
	}
	if hash == r.snap.Head.Hash() {
		return blockRef{block: r.snap.Head}, nil
	}
	block := s.b.Chain.BlockChain().GetBlockByHash(hash)
	if block == nil || block.NumberU64() > r.current.Head.NumberU64() {
		if r.view == Preconf {
			return s.preconfBlock(r, hash), nil
		}
		return blockRef{}, nil
	}
	return blockRef{block: block}, nil
}

// preconfRecall is how many sealed blocks back a PreconfHash still finds
// its block: a receipt read just before a seal names the pending block's
// PreconfHash, and a client looks it up a moment later.
const preconfRecall = 64

// preconfBlock finds the block whose PreconfHash is hash: the pending
// block while it is built, then the sealed block it became (for
// preconfRecall blocks); an empty ref when there is none.
func (s *Server) preconfBlock(r *request, hash common.Hash) blockRef {
	if p := r.snap.Pending; p.Header.Number.Cmp(r.snap.Head.Number()) > 0 && p.PreconfHash() == hash {
		return pendingRef(r)
	}
	bc := s.b.Chain.BlockChain()
	header := r.snap.HeadHeader
	for range preconfRecall {
		if header == nil || header.Number.Sign() == 0 {
			break
		}
		if pending.PreconfHashOf(header) == hash {
			if header.Hash() == r.snap.Head.Hash() {
				return blockRef{block: r.snap.Head}
			}
			return blockRef{block: bc.GetBlock(header.Hash(), header.Number.Uint64())}
		}
		header = bc.GetHeader(header.ParentHash, header.Number.Uint64()-1)
	}
	return blockRef{}
}

// fullTxArg parses the required boolean argument i ("hydrated").
func (r *request) fullTxArg(i int) (bool, error) {
	raw, err := r.required(i)
	if err != nil {
		return false, err
	}
	switch string(raw) {
	case "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, argError(i, errors.New("json: cannot unmarshal "+string(raw)+" into Go value of type bool"))
	}
}

func (s *Server) writeBlock(r *request, ref blockRef, full bool) error {
	if ref.block == nil {
		return nil // null
	}
	fields := marshalBlock(ref.block, ref.hash(), full, s.b.Chain.Config())
	if ref.pending && ref.preconfHash == (common.Hash{}) {
		// As geth: the pending block has no hash, nonce or miner yet.
		// (Base's has them: the Preconf view keeps them.)
		fields["hash"], fields["nonce"], fields["miner"] = nil, nil, nil
	}
	return r.writeJSON(fields)
}

func ethGetBlockByNumber(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	if _, err := r.required(0); err != nil {
		return err
	}
	full, err := r.fullTxArg(1)
	if err != nil {
		return err
	}
	ref, err := s.blockByParam(r, 0)
	if err != nil {
		return err
	}
	return s.writeBlock(r, ref, full)
}

func ethGetBlockByHash(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	full, err := r.fullTxArg(1)
	if err != nil {
		return err
	}
	ref, err := s.blockByHashArg(r, 0)
	if err != nil {
		return err
	}
	return s.writeBlock(r, ref, full)
}

func writeTxCount(r *request, ref blockRef) error {
	if ref.block == nil {
		return nil
	}
	r.out = codec.AppendUint64(r.out, uint64(len(ref.block.Transactions())))
	return nil
}

func ethGetBlockTransactionCountByNumber(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	ref, err := s.blockByParam(r, 0)
	if err != nil {
		return err
	}
	return writeTxCount(r, ref)
}

func ethGetBlockTransactionCountByHash(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	ref, err := s.blockByHashArg(r, 0)
	if err != nil {
		return err
	}
	return writeTxCount(r, ref)
}

func (s *Server) writeTxAt(r *request, ref blockRef, i int) error {
	raw, err := r.required(i)
	if err != nil {
		return err
	}
	index, err := codec.ParseUint64(raw)
	if err != nil {
		return argError(i, err)
	}
	if ref.block == nil || index >= uint64(len(ref.block.Transactions())) {
		return nil
	}
	b := ref.block
	tx := NewRPCTransaction(b.Transactions()[index], ref.hash(), b.NumberU64(), b.Time(), index, b.BaseFee(), s.b.Chain.Config())
	return r.writeJSON(tx)
}

func ethGetTransactionByBlockNumberAndIndex(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	ref, err := s.blockByParam(r, 0)
	if err != nil {
		return err
	}
	return s.writeTxAt(r, ref, 1)
}

func ethGetTransactionByBlockHashAndIndex(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	ref, err := s.blockByHashArg(r, 0)
	if err != nil {
		return err
	}
	return s.writeTxAt(r, ref, 1)
}

func ethGetBlockReceipts(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	if _, err := r.required(0); err != nil {
		return err
	}
	ref, err := s.blockByParam(r, 0)
	if err != nil || ref.block == nil {
		return err
	}
	b := ref.block
	var receipts types.Receipts
	if ref.pending {
		receipts = r.snap.Pending.Receipts
	} else {
		receipts = s.b.Chain.BlockChain().GetReceiptsByHash(b.Hash())
	}
	signer := types.MakeSigner(s.b.Chain.Config(), b.Number(), b.Time())
	out := make([]map[string]any, len(receipts))
	for i, receipt := range receipts {
		out[i] = marshalReceipt(receipt, ref.hash(), b.NumberU64(), signer, b.Transactions()[i], i)
	}
	return r.writeJSON(out)
}

func ethBlockNumber(s *Server, r *request) error {
	r.out = codec.AppendUint64(r.out, r.snap.Head.NumberU64())
	return nil
}

// hashArg parses required argument i as a 32-byte hash.
func (r *request) hashArg(i int) (common.Hash, error) {
	raw, err := r.required(i)
	if err != nil {
		return common.Hash{}, err
	}
	h, err := codec.ParseHash(raw)
	if err != nil {
		return h, argError(i, err)
	}
	return h, nil
}
