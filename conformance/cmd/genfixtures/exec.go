package main

import (
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
)

// logFilter is an eth_getLogs filter: blocks from..to, any of addrs (none:
// any address), and per topic position a set of alternatives (empty: any).
type logFilter struct {
	from, to uint64
	addrs    []common.Address
	topics   [][]common.Hash
}

// logs returns the matching logs in chain order.
func (g *gen) logs(f logFilter) []any {
	out := []any{}
	for n := f.from; n <= f.to; n++ {
		b := g.blocks[n]
		var logIndex uint
		for i, r := range g.receipts[n] {
			for _, l := range r.Logs {
				if f.match(l) {
					out = append(out, logJSON(b, i, logIndex, l))
				}
				logIndex++
			}
		}
	}
	return out
}

func (f logFilter) match(l *types.Log) bool {
	if len(f.addrs) > 0 {
		found := false
		for _, a := range f.addrs {
			found = found || a == l.Address
		}
		if !found {
			return false
		}
	}
	if len(f.topics) > len(l.Topics) {
		return false
	}
	for i, alts := range f.topics {
		if len(alts) == 0 {
			continue
		}
		found := false
		for _, t := range alts {
			found = found || t == l.Topics[i]
		}
		if !found {
			return false
		}
	}
	return true
}

// feeHistory computes eth_feeHistory(count, newest, percentiles) as the
// specification describes it: blocks max(0, newest-count+1)..newest; base
// fees and blob base fees including the block after newest; gas used ratios;
// and per block, for each percentile p, the effective priority fee of the
// transaction (sorted by that fee, ascending) at which the cumulative gas used
// reaches p% of the block's gas used (0 for an empty block).
func (g *gen) feeHistory(count, newest uint64, percentiles []float64) obj {
	oldest := uint64(0)
	if newest+1 > count {
		oldest = newest + 1 - count
	}
	var (
		baseFees, blobFees []any
		ratios, blobRatios []any
		rewards            []any
	)
	for n := oldest; n <= newest; n++ {
		b := g.blocks[n]
		h := b.Header()
		baseFees = append(baseFees, qb(h.BaseFee))
		blobFees = append(blobFees, qb(eip4844.CalcBlobFee(g.config, h)))
		ratios = append(ratios, float64(h.GasUsed)/float64(h.GasLimit))
		blobRatios = append(blobRatios, float64(*h.BlobGasUsed)/float64(eip4844.MaxBlobGasPerBlock(g.config, h.Time)))
		rewards = append(rewards, g.rewards(b, percentiles))
	}
	if next := newest + 1; next < uint64(len(g.blocks)) {
		h := g.blocks[next].Header()
		baseFees = append(baseFees, qb(h.BaseFee))
		blobFees = append(blobFees, qb(eip4844.CalcBlobFee(g.config, h)))
	} else {
		head := g.blocks[newest].Header()
		baseFees = append(baseFees, qb(eip1559.CalcBaseFee(g.config, head)))
		excess := eip4844.CalcExcessBlobGas(g.config, head, head.Time+12)
		blobFees = append(blobFees, qb(eip4844.CalcBlobFee(g.config, &types.Header{ExcessBlobGas: &excess, Time: head.Time + 12})))
	}
	out := obj{
		"oldestBlock":       q(oldest),
		"baseFeePerGas":     baseFees,
		"gasUsedRatio":      ratios,
		"baseFeePerBlobGas": blobFees,
		"blobGasUsedRatio":  blobRatios,
	}
	if len(percentiles) > 0 {
		out["reward"] = rewards
	}
	return out
}

func (g *gen) rewards(b *types.Block, percentiles []float64) []any {
	out := make([]any, len(percentiles))
	txs := b.Transactions()
	if len(txs) == 0 {
		for i := range out {
			out[i] = "0x0"
		}
		return out
	}
	type txFee struct {
		gasUsed uint64
		reward  *big.Int
	}
	rs := g.receipts[b.NumberU64()]
	fees := make([]txFee, len(txs))
	var prev uint64
	for i, tx := range txs {
		tip := new(big.Int).Sub(effectiveGasPrice(tx, b.BaseFee()), b.BaseFee())
		fees[i] = txFee{gasUsed: rs[i].CumulativeGasUsed - prev, reward: tip}
		prev = rs[i].CumulativeGasUsed
	}
	sort.SliceStable(fees, func(i, j int) bool { return fees[i].reward.Cmp(fees[j].reward) < 0 })
	idx, sum := 0, fees[0].gasUsed
	for i, p := range percentiles {
		threshold := uint64(float64(b.GasUsed()) * p / 100)
		for sum < threshold && idx < len(fees)-1 {
			idx++
			sum += fees[idx].gasUsed
		}
		out[i] = qb(fees[idx].reward)
	}
	return out
}
