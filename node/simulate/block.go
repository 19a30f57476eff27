package simulate

// Adapted from go-ethereum v1.17.10 internal/ethapi/simulate.go
// (processBlock, sanitizeCall; Copyright 2023 The go-ethereum Authors,
// GNU LGPL v3 or later).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/codec"
)

// blockRun is one block being simulated.
type blockRun struct {
	sim      *simulator
	header   *types.Header
	evm      *vm.EVM
	tracer   *logTracer
	gp       *core.GasPool
	access   *bal.ConstructionBlockAccessList
	txs      []*types.Transaction
	receipts []*types.Receipt
	result   *Block
	logs     []*types.Log // of the calls that succeeded
	blobGas  uint64
}

// processBlock runs a block's overrides and calls on the simulation's state
// and assembles it on parent. done are the blocks simulated before it.
func (sim *simulator) processBlock(block *BlockStateCall, header, parent *types.Header, done []*types.Header) (*Block, error) {
	sim.completeHeader(header, parent)
	chain := &chainContext{Chain: sim.cfg.Chain, base: sim.base.Header, headers: done}
	run, err := sim.openBlock(block, header, parent, chain)
	if err != nil {
		return nil, err
	}
	defer run.close()
	for i := range block.Calls {
		if err := run.call(i, &block.Calls[i]); err != nil {
			return nil, err
		}
	}
	if err := run.assemble(chain, block.BlockOverrides.Withdrawals); err != nil {
		return nil, err
	}
	return run.result, nil
}

// completeHeader sets the fields that depend on the parent: its hash, the
// base fee (0 without validation, so that a call without fees can run,
// unless overridden) and the excess blob gas.
func (sim *simulator) completeHeader(header, parent *types.Header) {
	config := sim.cfg.Chain.Config()
	header.ParentHash = parent.Hash()
	if config.IsLondon(header.Number) && header.BaseFee == nil {
		header.BaseFee = new(big.Int)
		if sim.validate {
			header.BaseFee = sim.baseFee(parent)
		}
	}
	if config.IsCancun(header.Number, header.Time) {
		var excess uint64
		if config.IsCancun(parent.Number, parent.Time) {
			excess = eip4844.CalcExcessBlobGas(config, parent, header.Time)
		}
		header.ExcessBlobGas = &excess
	}
}

// openBlock makes the block's EVM, applies its state overrides and
// precompile moves and runs the pre-execution system calls. The EVM stops
// when the simulation's task is cancelled.
func (sim *simulator) openBlock(block *BlockStateCall, header, parent *types.Header, chain *chainContext) (*blockRun, error) {
	config := chain.Config()
	blockCtx := core.NewEVMBlockContext(header, chain, nil)
	if o := block.BlockOverrides; o.BlobBaseFee != nil {
		blockCtx.BlobBaseFee = o.BlobBaseFee.ToInt()
	}
	// Past Amsterdam the protocol logs every ether transfer itself (EIP-7708).
	tracer := newLogTracer(sim.traceTransfers && !config.IsAmsterdam(header.Number, header.Time), header.Number.Uint64(), header.Time)
	hooks := tracer.hooks()
	evm := vm.NewEVM(blockCtx, state.NewHookedState(sim.state, hooks), config, vm.Config{NoBaseFee: !sim.validate, Tracer: hooks})
	precompiles := vm.ActivePrecompiledContracts(evm.GetRules())
	if sim.cfg.Precompiles != nil {
		sim.cfg.Precompiles(evm, precompiles)
	}
	if _, err := block.StateOverrides.Apply(sim.state, precompiles); err != nil {
		evm.Release()
		return nil, err
	}
	evm.SetPrecompiles(precompiles)
	sim.task.Watch(evm)
	n := len(block.Calls)
	run := &blockRun{
		sim: sim, header: header, evm: evm, tracer: tracer,
		gp:       core.NewGasPool(blockCtx.GasLimit),
		access:   bal.NewConstructionBlockAccessList(),
		txs:      make([]*types.Transaction, n),
		receipts: make([]*types.Receipt, n),
		result:   &Block{Calls: make([]CallResult, n), Senders: make([]common.Address, n)},
	}
	run.access.Merge(core.PreExecution(context.Background(), header.ParentBeaconRoot, parent, config, evm, header.Number, header.Time))
	return run, nil
}

// close releases the block's EVM.
func (run *blockRun) close() {
	run.sim.task.Unwatch()
	run.evm.Release()
}

// call runs the block's i-th call.
func (run *blockRun) call(i int, args *codec.CallArgs) error {
	sim, header, evm := run.sim, run.header, run.evm
	if err := sim.task.Err(); err != nil {
		return &AbortedError{Cause: err}
	}
	config := sim.cfg.Chain.Config()
	c, err := newCall(args, header.BaseFee, config.ChainID)
	if err != nil {
		return invalidParams("block %d, call %d: %v", header.Number, i, err)
	}
	capped, err := run.sanitize(c)
	if err != nil {
		return err
	}
	// EIP-2681 bounds the nonce even when nonces are not checked.
	if !sim.validate && sim.state.GetNonce(c.from) == math.MaxUint64 {
		return txValidationError(fmt.Errorf("%w: address %v, nonce: %d", core.ErrNonceMax, c.from.Hex(), uint64(math.MaxUint64)))
	}
	tx := c.transaction()
	hash := tx.Hash()
	run.txs[i], run.result.Senders[i] = tx, c.from
	run.tracer.reset(hash, uint(i))
	sim.state.SetTxContext(hash, i, uint32(i+1))
	msg := c.message(header.BaseFee, sim.validate)
	res, err := core.ApplyMessage(evm, msg, run.gp)
	if evm.Cancelled() {
		return run.aborted()
	}
	if err != nil {
		if capped && (errors.Is(err, core.ErrIntrinsicGas) || errors.Is(err, core.ErrFloorDataGas)) {
			return codeError(CodeClientLimit, "the simulation's calls used up the gas cap (%d gas in all, %s)", sim.cfg.GasCap, sim.cfg.GasCapFlag)
		}
		return txValidationError(fmt.Errorf("err: %w (supplied gas %d)", err, msg.GasLimit))
	}
	var root []byte
	if config.IsByzantium(header.Number) {
		run.access.Merge(evm.StateDB.Finalise(evm.GetRules()))
	} else {
		root = sim.state.IntermediateRoot(evm.GetRules()).Bytes()
	}
	receipt := core.MakeReceipt(evm, res, sim.state, header.Number, common.Hash{}, header.Time, tx, run.gp.CumulativeUsed(), root)
	run.receipts[i] = receipt
	run.blobGas += receipt.BlobGasUsed
	if err := sim.budget.consume(res.UsedGas); err != nil {
		return codeError(CodeClientLimit, "%v (%s)", err, sim.cfg.GasCapFlag)
	}
	run.result.Calls[i] = newCallResult(res, run.tracer.callLogs(), capped)
	if res.Err == nil {
		run.logs = append(run.logs, receipt.Logs...)
	}
	return sim.grow(run.result.Calls[i].estimate())
}

// sanitize fills in the defaults that depend on the state and the block
// (the sender's nonce; the gas left in the block), checks the gas against
// the block and clamps it to the simulation's gas budget. It reports
// whether the budget cut the gas.
func (run *blockRun) sanitize(c *call) (bool, error) {
	sim, header := run.sim, run.header
	if !c.hasNonce {
		c.nonce = sim.state.GetNonce(c.from)
	}
	amsterdam := sim.cfg.Chain.Config().IsAmsterdam(header.Number, header.Time)
	remaining := run.gp.Available(amsterdam)
	if amsterdam && !sim.validate {
		// Execution gas is not capped without validation, so the whole gas
		// limit is reserved in the execution dimension too.
		remaining = min(remaining, header.GasLimit-run.gp.CumulativeExecution())
	}
	if !c.hasGas {
		c.gas = remaining
	}
	if remaining < c.gas {
		return false, codeError(CodeBlockGasLimit, "block gas limit reached: remaining: %d, required: %d", remaining, c.gas)
	}
	gas := sim.budget.cap(c.gas)
	capped := gas < c.gas
	c.gas = gas
	return capped, nil
}

// aborted is the error of a block whose EVM was cancelled.
func (run *blockRun) aborted() error {
	return &AbortedError{Cause: causeOr(run.sim.task.Err())}
}

// assemble runs the post-execution system calls and withdrawals, finalizes
// the block and computes its roots and hash.
func (run *blockRun) assemble(chain *chainContext, withdrawals types.Withdrawals) error {
	sim, header, evm := run.sim, run.header, run.evm
	config := chain.Config()
	header.GasUsed = run.gp.Used()
	if config.IsCancun(header.Number, header.Time) {
		header.BlobGasUsed = &run.blobGas
	}
	body := &types.Body{Transactions: run.txs}
	// A non-nil withdrawals list would give a pre-Shanghai block a
	// withdrawals root.
	if config.IsShanghai(header.Number, header.Time) {
		body.Withdrawals = withdrawals
		if body.Withdrawals == nil {
			body.Withdrawals = types.Withdrawals{}
		}
	}
	requests, access, err := core.PostExecution(context.Background(), config, header.Number, header.Time, run.logs, body.Withdrawals, evm, uint32(len(run.txs)+1))
	if evm.Cancelled() {
		return run.aborted()
	}
	if err != nil {
		return codeError(codeInternal, "block %d: %v", header.Number, err)
	}
	if requests != nil {
		hash := types.CalcRequestsHash(requests)
		header.RequestsHash = &hash
	}
	run.access.Merge(access)
	sim.cfg.Chain.Engine().Finalize(chain, header, sim.state, body)
	block := core.AssembleBlock(chain, header, sim.state, body, run.receipts, run.access)
	if err := sim.state.Error(); err != nil {
		return codeError(codeInternal, "block %d: state: %v", header.Number, err)
	}
	run.result.Block = block
	// The logs were made before the block had a hash.
	hash := block.Hash()
	for _, c := range run.result.Calls {
		for _, l := range c.Logs {
			l.BlockHash = hash
		}
	}
	return nil
}
