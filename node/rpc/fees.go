package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/codec"
)

const (
	// tipSampleBlocks is how many recent blocks the tip suggestion looks at.
	tipSampleBlocks = 20
	// maxFeeHistory caps eth_feeHistory's block count (geth: 1024).
	maxFeeHistory = 1024
)

// defaultTip is suggested when recent blocks carry no transactions (anvil
// suggests the same 1 gwei).
var defaultTip = big.NewInt(params.GWei)

// suggestTip is the 60th percentile of the effective tips paid in the last
// blocks, or defaultTip.
func (s *Server) suggestTip(r *request) *big.Int {
	bc := s.b.Chain.BlockChain()
	var tips []*big.Int
	head := r.snap.Head.NumberU64()
	for n := head; n+tipSampleBlocks > head && n > 0; n-- {
		block := bc.GetBlockByNumber(n)
		if block == nil {
			break
		}
		for _, tx := range block.Transactions() {
			if tip, err := tx.EffectiveGasTip(block.BaseFee()); err == nil {
				tips = append(tips, tip)
			}
		}
	}
	if len(tips) == 0 {
		return new(big.Int).Set(defaultTip)
	}
	slices.SortFunc(tips, func(a, b *big.Int) int { return a.Cmp(b) })
	return tips[(len(tips)-1)*60/100]
}

func ethMaxPriorityFeePerGas(s *Server, r *request) error {
	r.out = codec.AppendBig(r.out, s.suggestTip(r))
	return nil
}

// ethGasPrice is the suggested tip plus the base fee of the block being built.
func ethGasPrice(s *Server, r *request) error {
	price := s.suggestTip(r)
	if fee := r.snap.Pending.Header.BaseFee; fee != nil {
		price.Add(price, fee)
	}
	r.out = codec.AppendBig(r.out, price)
	return nil
}

// feeHistory is eth_feeHistory's answer.
type feeHistory struct {
	OldestBlock      *hexutil.Big     `json:"oldestBlock"`
	Reward           [][]*hexutil.Big `json:"reward,omitempty"`
	BaseFee          []*hexutil.Big   `json:"baseFeePerGas,omitempty"`
	GasUsedRatio     []float64        `json:"gasUsedRatio"`
	BlobBaseFee      []*hexutil.Big   `json:"baseFeePerBlobGas,omitempty"`
	BlobGasUsedRatio []float64        `json:"blobGasUsedRatio,omitempty"`
}

func ethFeeHistory(s *Server, r *request) error {
	if err := r.maxParams(3); err != nil {
		return err
	}
	count, err := r.blockCount(0)
	if err != nil {
		return err
	}
	if _, err := r.required(1); err != nil {
		return err
	}
	percentiles, err := r.percentiles(2)
	if err != nil {
		return err
	}
	ref, err := s.blockByParam(r, 1)
	if err != nil {
		return err
	}
	if ref.block == nil {
		return errHeaderNotFound
	}
	newest := ref.block.NumberU64()
	count = min(count, maxFeeHistory, newest+1)
	out := feeHistory{OldestBlock: (*hexutil.Big)(new(big.Int).SetUint64(newest + 1 - count)), GasUsedRatio: []float64{}}
	for n := newest + 1 - count; n <= newest; n++ {
		block := ref.block
		var receipts types.Receipts
		if n != newest || !ref.pending {
			if block = s.b.Chain.BlockChain().GetBlockByNumber(n); block == nil {
				return errHeaderNotFound
			}
			if len(percentiles) > 0 {
				receipts = s.b.Chain.BlockChain().GetReceiptsByHash(block.Hash())
			}
		} else {
			receipts = r.snap.Pending.Receipts
		}
		s.addFeeEntry(&out, block, receipts, percentiles)
	}
	last := ref.block.Header()
	next := s.b.Chain.Engine().CalcBaseFee(s.b.Chain.Config(), last)
	out.BaseFee = append(out.BaseFee, (*hexutil.Big)(next))
	out.BlobBaseFee = append(out.BlobBaseFee, (*hexutil.Big)(nextBlobBaseFee(s.b.Chain.Config(), last)))
	if count == 0 {
		out.BaseFee, out.BlobBaseFee = nil, nil
	}
	return r.writeJSON(out)
}

func (s *Server) addFeeEntry(out *feeHistory, block *types.Block, receipts types.Receipts, percentiles []float64) {
	h := block.Header()
	fee := h.BaseFee
	if fee == nil {
		fee = new(big.Int)
	}
	out.BaseFee = append(out.BaseFee, (*hexutil.Big)(fee))
	ratio := 0.0
	if h.GasLimit > 0 {
		ratio = float64(h.GasUsed) / float64(h.GasLimit)
	}
	out.GasUsedRatio = append(out.GasUsedRatio, ratio)
	blobFee, blobRatio := blobFees(s.b.Chain.Config(), h)
	out.BlobBaseFee = append(out.BlobBaseFee, (*hexutil.Big)(blobFee))
	out.BlobGasUsedRatio = append(out.BlobGasUsedRatio, blobRatio)
	if len(percentiles) > 0 {
		out.Reward = append(out.Reward, rewards(block, receipts, percentiles))
	}
}

// blobFees is h's blob base fee and blob gas used ratio. Blocks before
// Cancun have zeroes, as the specification says and geth answers, so that
// both arrays keep their length (blocks+1, blocks) over a range that
// crosses the fork, and an imported pre-Cancun chain has them too.
func blobFees(config *params.ChainConfig, h *types.Header) (*big.Int, float64) {
	if h.ExcessBlobGas == nil {
		return new(big.Int), 0
	}
	ratio := 0.0
	if limit := eip4844.MaxBlobGasPerBlock(config, h.Time); h.BlobGasUsed != nil && limit > 0 {
		ratio = float64(*h.BlobGasUsed) / float64(limit)
	}
	return eip4844.CalcBlobFee(config, h), ratio
}

// nextBlobBaseFee is the blob base fee of the block after h as geth derives
// it (eth/gasprice): h's excess blob gas carried forward under the blob
// schedule at h's time; zero when h is before Cancun.
func nextBlobBaseFee(config *params.ChainConfig, h *types.Header) *big.Int {
	if h.ExcessBlobGas == nil {
		return new(big.Int)
	}
	excess := eip4844.CalcExcessBlobGas(config, h, h.Time)
	return eip4844.CalcBlobFee(config, &types.Header{Number: h.Number, Time: h.Time, ExcessBlobGas: &excess})
}

// rewards picks the effective tips at the gas-weighted percentiles (geth's
// algorithm: transactions sorted by tip, each weighted by its gas used).
func rewards(block *types.Block, receipts types.Receipts, percentiles []float64) []*hexutil.Big {
	out := make([]*hexutil.Big, len(percentiles))
	txs := block.Transactions()
	if len(txs) == 0 || len(receipts) != len(txs) {
		for i := range out {
			out[i] = (*hexutil.Big)(new(big.Int))
		}
		return out
	}
	type sample struct {
		gas uint64
		tip *big.Int
	}
	samples := make([]sample, len(txs))
	for i, tx := range txs {
		tip, _ := tx.EffectiveGasTip(block.BaseFee())
		samples[i] = sample{gas: receipts[i].GasUsed, tip: tip}
	}
	slices.SortStableFunc(samples, func(a, b sample) int { return a.tip.Cmp(b.tip) })
	var idx int
	sum := samples[0].gas
	for i, p := range percentiles {
		threshold := uint64(float64(block.GasUsed()) * p / 100)
		for sum < threshold && idx < len(samples)-1 {
			idx++
			sum += samples[idx].gas
		}
		out[i] = (*hexutil.Big)(samples[idx].tip)
	}
	return out
}

// blockCount parses eth_feeHistory's count: a quantity or a decimal number.
func (r *request) blockCount(i int) (uint64, error) {
	raw, err := r.required(i)
	if err != nil {
		return 0, err
	}
	if raw[0] != '"' {
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return 0, argError(i, fmt.Errorf("invalid block count %s", raw))
		}
		return n, nil
	}
	n, err := codec.ParseUint64(raw)
	if err != nil {
		return 0, argError(i, err)
	}
	return n, nil
}

// maxPercentiles is geth's maxQueryLimit: each percentile adds one number
// per block to the answer, and 30,000 of them over 1,024 blocks made one
// 286 KB request answer 185 MB.
const maxPercentiles = 100

// percentiles parses the optional reward percentiles: ascending, 0..100,
// at most maxPercentiles of them (counted before any is decoded).
func (r *request) percentiles(i int) ([]float64, error) {
	raw := r.arg(i)
	if raw == nil {
		return nil, nil
	}
	if it, err := codec.Array(raw); err == nil {
		n := 0
		for it.Next() {
			if n++; n > maxPercentiles {
				return nil, argError(i, fmt.Errorf("%w: over the query limit %d", errInvalidPercentile, maxPercentiles))
			}
		}
	}
	var ps []float64
	if err := json.Unmarshal(raw, &ps); err != nil {
		return nil, argError(i, err)
	}
	for j, p := range ps {
		if p < 0 || p > 100 {
			return nil, argError(i, fmt.Errorf("%w: %f", errInvalidPercentile, p))
		}
		if j > 0 && p <= ps[j-1] {
			return nil, argError(i, fmt.Errorf("%w: #%d:%f >= #%d:%f", errInvalidPercentile, j-1, ps[j-1], j, p))
		}
	}
	return ps, nil
}

var errInvalidPercentile = errors.New("invalid reward percentile")
