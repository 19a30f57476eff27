package simulate

// Adapted from go-ethereum v1.17.10 internal/ethapi/simulate.go
// (sanitizeChain, makeHeaders, simBackend; Copyright 2023 The go-ethereum
// Authors, GNU LGPL v3 or later). Two changes follow the spec and Base
// rather than geth: a block's timestamp may equal its parent's (the spec:
// "Time must either increase or remain constant"; this chain's 200 ms
// blocks share seconds, as Base's do), and blocks without a timestamp are
// spaced by the chain's block time, not geth's fixed 12 s.

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/override"
)

// gethBlockTime is geth's spacing of simulated blocks, used when the chain
// has no block time of its own (a node that produces no blocks).
const gethBlockTime = 12 * time.Second

// clock hands out the default timestamps of simulated blocks: the previous
// block's time plus the block time, kept in milliseconds so that blocks
// faster than a second share a timestamp as the chain's own do.
type clock struct {
	sec, ms  uint64  // the previous block's time and its sub-second part
	interval uint64  // ms
	first    *uint64 // the first block's time, when it takes the pending block's place
}

func newClock(blockTime time.Duration, sec uint64) *clock {
	interval := uint64(blockTime.Milliseconds())
	if interval == 0 {
		interval = uint64(gethBlockTime.Milliseconds())
	}
	return &clock{sec: sec, interval: interval}
}

// next is the default time of the block after the previous one.
func (c *clock) next() (uint64, bool) {
	if c.first != nil {
		c.set(max(*c.first, c.sec))
		return c.sec, true
	}
	ms := c.ms + c.interval
	sec := c.sec + ms/1000
	if sec < c.sec {
		return 0, false
	}
	c.sec, c.ms = sec, ms%1000
	return sec, true
}

// set makes t (a block given its time) the previous block's time.
func (c *clock) set(t uint64) { c.sec, c.ms, c.first = t, 0, nil }

// sanitizeChain numbers the blocks, gives them timestamps, checks that both
// go up (a timestamp may stay the same) and fills gaps in the numbers with
// empty blocks. At most maxBlocks blocks may follow the base.
func (sim *simulator) sanitizeChain(blocks []BlockStateCall) ([]BlockStateCall, error) {
	base := sim.base.Header
	var (
		res        = make([]BlockStateCall, 0, len(blocks))
		prevNumber = base.Number.Uint64()
		prevTime   = base.Time
		clk        = newClock(sim.cfg.BlockTime, base.Time)
	)
	if p := sim.base.Pending; p != nil {
		clk.first = &p.Header.Time
	}
	for _, block := range blocks {
		o := new(override.Block)
		if block.BlockOverrides != nil {
			*o = *block.BlockOverrides
		}
		block.BlockOverrides = o
		if o.Number == nil {
			o.Number = newHex64(prevNumber + 1)
		}
		number := uint64(*o.Number)
		if number <= prevNumber {
			return nil, codeError(CodeBlockNumberOrder, "block numbers must be in order: %d <= %d", number, prevNumber)
		}
		if limit := sim.cfg.Limits.blocks(); number-base.Number.Uint64() > uint64(limit) {
			return nil, codeError(CodeClientLimit, "too many blocks: block %d is %d after the base block %d, at most %d (%s)",
				number, number-base.Number.Uint64(), base.Number.Uint64(), limit, sim.cfg.BlocksFlag)
		}
		for n := prevNumber + 1; n < number; n++ {
			t, ok := clk.next()
			if !ok {
				return nil, invalidParams("block %d: timestamp overflows", n)
			}
			res = append(res, BlockStateCall{BlockOverrides: &override.Block{Number: newHex64(n), Time: newHex64(t)}})
			prevTime = t
		}
		prevNumber = number
		switch {
		case o.Time != nil:
			if t := uint64(*o.Time); t < prevTime {
				return nil, codeError(CodeBlockTimeOrder, "block timestamps must be in order: %d < %d", t, prevTime)
			}
			clk.set(uint64(*o.Time))
		default:
			t, ok := clk.next()
			if !ok {
				return nil, invalidParams("block %d: timestamp overflows", number)
			}
			o.Time = newHex64(t)
		}
		prevTime = uint64(*o.Time)
		res = append(res, block)
	}
	return res, nil
}

// makeHeaders makes the blocks' headers with the fields known before their
// calls run; the parent hash, base fee, gas used and roots come later. An
// unset field takes the previous block's value (coinbase, gas limit).
func (sim *simulator) makeHeaders(blocks []BlockStateCall) ([]*types.Header, error) {
	config := sim.cfg.Chain.Config()
	res := make([]*types.Header, len(blocks))
	prev := sim.base.Header
	for i, block := range blocks {
		o := block.BlockOverrides
		number := new(big.Int).SetUint64(uint64(*o.Number))
		timestamp := uint64(*o.Time)
		h := &types.Header{
			Number:      number,
			Time:        timestamp,
			UncleHash:   types.EmptyUncleHash,
			ReceiptHash: types.EmptyReceiptsHash,
			TxHash:      types.EmptyTxsHash,
			Coinbase:    prev.Coinbase,
			Difficulty:  prev.Difficulty,
			GasLimit:    prev.GasLimit,
		}
		if config.IsShanghai(number, timestamp) {
			h.WithdrawalsHash = &types.EmptyWithdrawalsHash
		}
		if config.IsCancun(number, timestamp) {
			root := common.Hash{}
			if o.BeaconRoot != nil {
				root = *o.BeaconRoot
			}
			h.ParentBeaconRoot = &root
		}
		// Without this, a simulation on a pre-merge base would run every
		// later block with the base's difficulty, as a pre-merge block.
		if config.IsPostMerge(number.Uint64(), timestamp) {
			h.Difficulty = new(big.Int)
		}
		if o.Difficulty != nil {
			if h.Difficulty.Sign() == 0 {
				return nil, invalidParams("block %d: difficulty override is not allowed after the merge", number)
			}
			h.Difficulty = o.Difficulty.ToInt()
		}
		if prev.SlotNumber != nil {
			slot := *prev.SlotNumber + 1
			h.SlotNumber = &slot
		}
		o.SetHeader(h)
		res[i] = h
		prev = h
	}
	return res, nil
}

// chainContext resolves headers for BLOCKHASH and the engine: the base,
// canonical headers below it, and the simulated blocks processed so far.
type chainContext struct {
	Chain
	base    *types.Header
	headers []*types.Header // simulated, in order
}

func (c *chainContext) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h := c.GetHeaderByNumber(number); h != nil && h.Hash() == hash {
		return h
	}
	return nil
}

func (c *chainContext) GetHeaderByNumber(number uint64) *types.Header {
	base := c.base.Number.Uint64()
	switch {
	case number == base:
		return c.base
	case number < base:
		return c.Chain.GetHeaderByNumber(number)
	}
	for _, h := range c.headers {
		if h.Number.Uint64() == number {
			return h
		}
	}
	return nil
}

func (c *chainContext) GetHeaderByHash(hash common.Hash) *types.Header {
	if c.base.Hash() == hash {
		return c.base
	}
	for _, h := range c.headers {
		if h.Hash() == hash {
			return h
		}
	}
	return c.Chain.GetHeaderByHash(hash)
}

// Config is the chain's, named for consensus.ChainHeaderReader.
func (c *chainContext) Config() *params.ChainConfig { return c.Chain.Config() }

// Engine is the chain's, named for core.ChainContext.
func (c *chainContext) Engine() consensus.Engine { return c.Chain.Engine() }

func newHex64(v uint64) *hexutil.Uint64 { return (*hexutil.Uint64)(&v) }
