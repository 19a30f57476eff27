// Package simulate runs eth_simulateV1 as execution-apis specifies it: blocks
// of calls on a base block's state, each block on the state the previous
// one left, with state and block overrides, optional validation, ether
// transfers traced as logs, and the spec's error codes. It builds the blocks
// as the chain would (system calls, withdrawals, requests, roots), so their
// hashes are real hashes of blocks that were never sealed.
//
// It is go-ethereum's simulator (v1.17.10 internal/ethapi/simulate.go,
// Copyright 2023 The go-ethereum Authors, GNU LGPL v3 or later), which
// cannot be imported, adapted to this node: it runs under the call bound's
// task (cancellation, time limit), with the node's precompiles, and follows
// the spec and Base where they differ from geth (see chain.go, overrides.go).
package simulate

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/callbound"
)

// Chain is what a simulation reads of the chain: its config and engine, and
// the canonical headers below the base block (for BLOCKHASH).
// *core.BlockChain is one.
type Chain interface {
	consensus.ChainHeaderReader
	Engine() consensus.Engine
}

// Config is what stays the same from one simulation to the next.
type Config struct {
	Chain Chain
	// BaseFee is the base fee of the block after parent, used with
	// validation when a block does not override it; nil: EIP-1559's.
	BaseFee func(config *params.ChainConfig, parent *types.Header) *big.Int
	// GasCap caps the gas of all the calls of a simulation together (geth's
	// --rpc.gascap); 0: no cap.
	GasCap uint64
	// BlockTime spaces simulated blocks without a timestamp; 0: 12 s.
	BlockTime time.Duration
	// Limits bound the input; BlocksFlag names the flag behind
	// Limits.Blocks in errors, GasCapFlag the one behind GasCap.
	Limits                 Limits
	BlocksFlag, GasCapFlag string
	// Precompiles, when set, adjusts a block's precompiles for its EVM
	// before the overrides move any.
	Precompiles func(evm *vm.EVM, contracts vm.PrecompiledContracts)
	// MaxResponse stops a simulation whose answer would take more bytes
	// than this (estimated as it runs) with ErrResponseTooLarge; 0: none.
	MaxResponse int
}

// Base is where a simulation starts.
type Base struct {
	// Header is the parent of the first simulated block.
	Header *types.Header
	// State is Header's state; the simulation changes it.
	State *state.StateDB
	// Pending, when set, is a pre-confirmed block on Header: its
	// transactions run first, and the first simulated block takes its
	// place.
	Pending *Pending
}

// Task is the simulation's handle on its bound: *callbound.Task.
type Task interface {
	Watch(c callbound.Canceler)
	Unwatch()
	Err() error
}

// simulator runs one simulation; it is not safe for concurrent use.
type simulator struct {
	cfg            *Config
	base           Base
	task           Task
	state          *state.StateDB
	budget         gasBudget
	validate       bool
	traceTransfers bool
	size           int // estimated bytes of the answer so far
}

// Run simulates p's blocks on base under task and returns them in order.
// Its errors are *codec.Error (the spec's codes), *AbortedError or
// ErrResponseTooLarge.
func Run(cfg *Config, task Task, base Base, p *Payload) ([]*Block, error) {
	sim := &simulator{
		cfg:            cfg,
		base:           base,
		task:           task,
		state:          base.State,
		budget:         newGasBudget(cfg.GasCap),
		validate:       p.Validation,
		traceTransfers: p.TraceTransfers,
	}
	if err := task.Err(); err != nil {
		return nil, &AbortedError{Cause: err}
	}
	if base.Pending != nil {
		if err := sim.replayPending(base.Pending); err != nil {
			return nil, err
		}
	}
	blocks, err := sim.sanitizeChain(p.Blocks)
	if err != nil {
		return nil, err
	}
	headers, err := sim.makeHeaders(blocks)
	if err != nil {
		return nil, err
	}
	results := make([]*Block, len(blocks))
	parent := base.Header
	for i := range blocks {
		if err := task.Err(); err != nil {
			return nil, &AbortedError{Cause: err}
		}
		res, err := sim.processBlock(&blocks[i], headers[i], parent, headers[:i])
		if err != nil {
			return nil, err
		}
		if err := sim.grow(res.estimate(p.ReturnFullTransactions)); err != nil {
			return nil, err
		}
		results[i] = res
		headers[i] = res.Header()
		parent = headers[i]
	}
	return results, nil
}

// baseFee is the validated base fee of the block after parent.
func (sim *simulator) baseFee(parent *types.Header) *big.Int {
	config := sim.cfg.Chain.Config()
	if sim.cfg.BaseFee != nil {
		return sim.cfg.BaseFee(config, parent)
	}
	return eip1559.CalcBaseFee(config, parent)
}

// grow adds n bytes to the answer's estimated size.
func (sim *simulator) grow(n int) error {
	sim.size += n
	if sim.cfg.MaxResponse > 0 && sim.size > sim.cfg.MaxResponse {
		return ErrResponseTooLarge
	}
	return nil
}

// gasBudget is the gas the simulation's calls may still use together: the
// RPC gas cap bounds a whole simulation, not each of its calls.
type gasBudget struct{ remaining uint64 }

func newGasBudget(limit uint64) gasBudget {
	if limit == 0 {
		limit = math.MaxUint64
	}
	return gasBudget{remaining: limit}
}

// cap clamps gas to what remains.
func (b *gasBudget) cap(gas uint64) uint64 { return min(gas, b.remaining) }

func (b *gasBudget) consume(gas uint64) error {
	if gas > b.remaining {
		return fmt.Errorf("gas cap exhausted: need %d, remaining %d", gas, b.remaining)
	}
	b.remaining -= gas
	return nil
}
