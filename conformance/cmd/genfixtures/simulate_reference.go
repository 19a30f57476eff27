package main

// The reference simulator of the eth_simulateV1 fixtures. The expected
// blocks are computed here from the specification (execution-apis
// src/eth/execute.yaml, src/schemas/execute.yaml and its tests/eth_simulateV1
// fixtures, whose shapes and defaults geth's implementation set) with
// go-ethereum's consensus code: the base block's state, overrides written
// into it, core.ApplyMessage for each call, the system calls before and
// after, and the block assembled from its header, transactions, receipts and
// withdrawals. simChain serves the headers BLOCKHASH and the engine ask for.
//
// What the specification says and the fixtures follow:
//   - blocks count up from the base; numbers skipped are filled with empty
//     blocks; a block without a time is 12 s after its parent (this suite's
//     node produces no blocks of its own); a time may repeat its parent's
//     ("Time must either increase or remain constant");
//   - a block takes its parent's fee recipient and gas limit unless
//     overridden; prevRandao, extraData and the beacon root are zero; the
//     base fee is 0 without validation, the EIP-1559 successor's with it;
//   - a call's gas defaults to what is left of the block's, its nonce to the
//     sender's, its fees to 0; it is an unsigned EIP-1559 transaction;
//   - a reverted call fails with code 3 (execution-apis#748) and its revert
//     data, any other EVM failure with -32015; every result carries
//     maxUsedGas (the spec's example);
//   - with traceTransfers, every ether transfer is also a Transfer log of
//     0xeeee...eeee, numbered with the block's logs;
//   - the codes of the simulation's own errors (-380xx).

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"

	tc "github.com/stocknode/stocknode/conformance/internal/fixturechain"
)

// simGasCap is the RPC gas cap of both nodes (geth's default): it bounds the
// gas of a simulation's calls together.
const simGasCap = 50_000_000

// simulate computes eth_simulateV1's answer on block base.
func (g *gen) simulate(base int, opts simOpts, blocks []simBlock) []any {
	st := g.state(uint64(base))
	chain := &simChain{g: g, base: g.blocks[base].Header()}
	parent := chain.base
	budget := uint64(simGasCap)
	var out []any
	for _, b := range fillGaps(parent, blocks) {
		block, calls := g.simulateBlock(chain, st, parent, b, opts, &budget)
		out = append(out, g.simBlockJSON(block, calls, b, opts.fullTx))
		parent = block.Header()
		chain.sim = append(chain.sim, parent)
	}
	return out
}

// fillGaps numbers and times the blocks and inserts the empty blocks of
// skipped numbers.
func fillGaps(base *types.Header, blocks []simBlock) []simBlock {
	var out []simBlock
	number, t := base.Number.Uint64(), base.Time
	for _, b := range blocks {
		if b.number == nil {
			n := number + 1
			b.number = &n
		}
		for n := number + 1; n < *b.number; n++ {
			n, gapTime := n, t+12
			out = append(out, simBlock{number: &n, time: &gapTime})
			t = gapTime
		}
		if b.time == nil {
			next := t + 12
			b.time = &next
		}
		number, t = *b.number, *b.time
		out = append(out, b)
	}
	return out
}

type callOutcome struct {
	res     *core.ExecutionResult
	logs    []*types.Log
	txIndex int
}

func (g *gen) simulateBlock(chain *simChain, st *state.StateDB, parent *types.Header, b simBlock, opts simOpts, budget *uint64) (*types.Block, []callOutcome) {
	h := &types.Header{
		ParentHash:       parent.Hash(),
		UncleHash:        types.EmptyUncleHash,
		Coinbase:         parent.Coinbase,
		Difficulty:       new(big.Int),
		Number:           new(big.Int).SetUint64(*b.number),
		GasLimit:         parent.GasLimit,
		Time:             *b.time,
		BaseFee:          new(big.Int),
		WithdrawalsHash:  &types.EmptyWithdrawalsHash,
		ParentBeaconRoot: &common.Hash{},
	}
	if b.feeRecipient != nil {
		h.Coinbase = *b.feeRecipient
	}
	if b.gasLimit != nil {
		h.GasLimit = *b.gasLimit
	}
	if b.prevRandao != nil {
		h.MixDigest = *b.prevRandao
	}
	switch {
	case b.baseFee != nil:
		h.BaseFee = b.baseFee
	case opts.validation:
		h.BaseFee = eip1559.CalcBaseFee(g.config, parent)
	}
	excess := eip4844.CalcExcessBlobGas(g.config, parent, h.Time)
	h.ExcessBlobGas = &excess

	for a, acc := range b.accounts {
		applyAccount(st, a, acc)
	}
	st.Finalise(params.Rules{})
	tracer := &transferTracer{traceTransfers: opts.traceTransfers, header: h}
	evm := vm.NewEVM(core.NewEVMBlockContext(h, chain, nil), state.NewHookedState(st, tracer.hooks()), g.config, vm.Config{NoBaseFee: !opts.validation, Tracer: tracer.hooks()})
	precompiles := vm.ActivePrecompiledContracts(evm.GetRules())
	for a, acc := range b.accounts {
		if acc.moveTo != nil {
			precompiles[*acc.moveTo] = precompiles[a]
		}
		delete(precompiles, a)
	}
	evm.SetPrecompiles(precompiles)
	core.PreExecution(context.Background(), h.ParentBeaconRoot, parent, g.config, evm, h.Number, h.Time)

	gp := core.NewGasPool(h.GasLimit)
	var (
		txs      []*types.Transaction
		receipts []*types.Receipt
		outcomes []callOutcome
		logs     []*types.Log
	)
	for i, c := range b.calls {
		msg, tx := g.simMessage(c, st, h, gp, budget, opts.validation)
		tracer.start(tx.Hash(), i)
		st.SetTxContext(tx.Hash(), i, uint32(i+1))
		res, err := core.ApplyMessage(evm, msg, gp)
		if err != nil {
			panic(fmt.Sprintf("simulated call %d of block %d: %v", i, h.Number, err))
		}
		*budget -= res.UsedGas
		st.Finalise(evm.GetRules())
		r := core.MakeReceipt(evm, res, st, h.Number, common.Hash{}, h.Time, tx, gp.CumulativeUsed(), nil)
		txs, receipts = append(txs, tx), append(receipts, r)
		outcomes = append(outcomes, callOutcome{res: res, logs: tracer.callLogs(), txIndex: i})
		logs = append(logs, r.Logs...)
	}
	h.GasUsed = gp.Used()
	blobGas := uint64(0)
	h.BlobGasUsed = &blobGas
	withdrawals := types.Withdrawals(b.withdrawals)
	if withdrawals == nil {
		withdrawals = types.Withdrawals{}
	}
	requests, _, err := core.PostExecution(context.Background(), g.config, h.Number, h.Time, logs, withdrawals, evm, uint32(len(txs)+1))
	if err != nil {
		panic(err)
	}
	reqHash := types.CalcRequestsHash(requests)
	h.RequestsHash = &reqHash
	h.Root = st.IntermediateRoot(evm.GetRules())
	block := types.NewBlock(h, &types.Body{Transactions: txs, Withdrawals: withdrawals}, receipts, trie.NewStackTrie(nil))
	for _, o := range outcomes {
		for _, l := range o.logs {
			l.BlockHash = block.Hash()
		}
	}
	return block, outcomes
}

func applyAccount(st *state.StateDB, a common.Address, acc simAccount) {
	if acc.nonce != nil {
		st.SetNonce(a, *acc.nonce, tracing.NonceChangeUnspecified)
	}
	if acc.code != nil {
		st.SetCode(a, acc.code, tracing.CodeChangeUnspecified)
	}
	if acc.balance != nil {
		st.SetBalance(a, uint256.MustFromBig(acc.balance), tracing.BalanceChangeUnspecified)
	}
	if acc.state != nil {
		st.SetStorage(a, acc.state)
	}
	for k, v := range acc.stateDiff {
		st.SetState(a, k, v)
	}
}

// simMessage applies the call defaults and returns the message and the
// unsigned transaction of the block.
func (g *gen) simMessage(c simCall, st *state.StateDB, h *types.Header, gp *core.GasPool, budget *uint64, validation bool) (*core.Message, *types.Transaction) {
	nonce := st.GetNonce(c.from)
	if c.nonce != nil {
		nonce = *c.nonce
	}
	gas := gp.Available(false)
	if c.gas != nil {
		gas = *c.gas
	}
	gas = min(gas, *budget)
	feeCap, tip, value := new(big.Int), new(big.Int), new(big.Int)
	if c.maxFee != nil {
		feeCap = c.maxFee
	}
	if c.maxTip != nil {
		tip = c.maxTip
	}
	if c.value != nil {
		value = c.value
	}
	price := new(big.Int)
	if feeCap.Sign() > 0 || tip.Sign() > 0 {
		price = effectiveGasPrice(types.NewTx(&types.DynamicFeeTx{GasFeeCap: feeCap, GasTipCap: tip}), h.BaseFee)
	}
	msg := &core.Message{
		From: c.from, To: c.to, Nonce: nonce, Value: uint256.MustFromBig(value), GasLimit: gas,
		GasPrice: uint256.MustFromBig(price), GasFeeCap: uint256.MustFromBig(feeCap), GasTipCap: uint256.MustFromBig(tip), Data: c.input,
	}
	if !validation {
		msg.SkipNonceCheck()
	}
	msg.SkipEOACheck()
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: g.config.ChainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: c.to, Value: value, Data: c.input, AccessList: types.AccessList{}})
	return msg, tx
}

// simChain serves headers to BLOCKHASH and the engine: the canonical chain
// up to the base, then the simulated blocks.
type simChain struct {
	g    *gen
	base *types.Header
	sim  []*types.Header
}

func (c *simChain) Config() *params.ChainConfig  { return c.g.config }
func (c *simChain) CurrentHeader() *types.Header { return c.base }
func (c *simChain) Engine() consensus.Engine     { return tc.Engine() }
func (c *simChain) GetHeaderByNumber(n uint64) *types.Header {
	if n <= c.base.Number.Uint64() {
		return c.g.blocks[n].Header()
	}
	for _, h := range c.sim {
		if h.Number.Uint64() == n {
			return h
		}
	}
	return nil
}
func (c *simChain) GetHeader(h common.Hash, n uint64) *types.Header {
	if x := c.GetHeaderByNumber(n); x != nil && x.Hash() == h {
		return x
	}
	return nil
}
func (c *simChain) GetHeaderByHash(h common.Hash) *types.Header { return nil }
