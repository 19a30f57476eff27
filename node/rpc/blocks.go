package rpc

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/pending"
)

// blockRef is a block a request names: sealed, or the pending one.
type blockRef struct {
	block   *types.Block
	pending bool
}

// pendingBlock assembles the pre-confirmed block of a snapshot: header roots
// and bloom derived from its transactions and receipts; the state root stays
// zero until the block is sealed.
func pendingBlock(p *pending.Block) *types.Block {
	body := &types.Body{Transactions: p.Transactions}
	if p.Header.WithdrawalsHash != nil {
		body.Withdrawals = []*types.Withdrawal{}
	}
	return types.NewBlock(p.Header, body, p.Receipts, trie.NewStackTrie(nil))
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
		return blockRef{block: pendingBlock(r.snap.Pending), pending: true}, nil
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
	if block == nil || block.NumberU64() > r.snap.Head.NumberU64() {
		return blockRef{}, nil
	}
	return blockRef{block: block}, nil
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
	fields := marshalBlock(ref.block, full, s.b.Chain.Config())
	if ref.pending {
		// As geth: the pending block has no hash, nonce or miner yet.
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
	tx := NewRPCTransaction(b.Transactions()[index], b.Hash(), b.NumberU64(), b.Time(), index, b.BaseFee(), s.b.Chain.Config())
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
		out[i] = marshalReceipt(receipt, b.Hash(), b.NumberU64(), signer, b.Transactions()[i], i)
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
