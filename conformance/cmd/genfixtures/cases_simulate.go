package main

// eth_simulateV1 fixtures. The expected blocks are computed here from the
// specification (execution-apis src/eth/execute.yaml, src/schemas/
// execute.yaml and its tests/eth_simulateV1 fixtures, whose shapes and
// defaults geth's implementation set) with go-ethereum's consensus code: the
// base block's state, overrides written into it, core.ApplyMessage for each
// call, the system calls before and after, and the block assembled from its
// header, transactions, receipts and withdrawals.
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
//
// Most fixtures port an execution-apis tests/eth_simulateV1 fixture onto this
// chain; their comments name it.

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"

	tc "github.com/stocknode/stocknode/conformance/internal/fixturechain"
)

// simCall is a call object of a simulated block.
type simCall struct {
	from           common.Address
	to             *common.Address
	value          *big.Int
	input          []byte
	gas, nonce     *uint64
	maxFee, maxTip *big.Int
}

func (c simCall) json() obj {
	o := obj{"from": addr(c.from)}
	if c.to != nil {
		o["to"] = addr(*c.to)
	}
	if c.value != nil {
		o["value"] = qb(c.value)
	}
	if c.input != nil {
		o["input"] = data(c.input)
	}
	if c.gas != nil {
		o["gas"] = q(*c.gas)
	}
	if c.nonce != nil {
		o["nonce"] = q(*c.nonce)
	}
	if c.maxFee != nil {
		o["maxFeePerGas"] = qb(c.maxFee)
	}
	if c.maxTip != nil {
		o["maxPriorityFeePerGas"] = qb(c.maxTip)
	}
	return o
}

// simAccount is an account override.
type simAccount struct {
	balance          *big.Int
	nonce            *uint64
	code             []byte
	state, stateDiff map[common.Hash]common.Hash
	moveTo           *common.Address
}

func (a simAccount) json() obj {
	o := obj{}
	if a.balance != nil {
		o["balance"] = qb(a.balance)
	}
	if a.nonce != nil {
		o["nonce"] = q(*a.nonce)
	}
	if a.code != nil {
		o["code"] = data(a.code)
	}
	slots := func(m map[common.Hash]common.Hash) obj {
		s := obj{}
		for k, v := range m {
			s[hash(k)] = hash(v)
		}
		return s
	}
	if a.state != nil {
		o["state"] = slots(a.state)
	}
	if a.stateDiff != nil {
		o["stateDiff"] = slots(a.stateDiff)
	}
	if a.moveTo != nil {
		o["movePrecompileToAddress"] = addr(*a.moveTo)
	}
	return o
}

// simBlock is a block state call.
type simBlock struct {
	number, time, gasLimit *uint64
	feeRecipient           *common.Address
	prevRandao             *common.Hash
	baseFee                *big.Int
	withdrawals            []*types.Withdrawal
	accounts               map[common.Address]simAccount
	calls                  []simCall
}

func (b simBlock) json() obj {
	o := obj{}
	bo := obj{}
	if b.number != nil {
		bo["number"] = q(*b.number)
	}
	if b.time != nil {
		bo["time"] = q(*b.time)
	}
	if b.gasLimit != nil {
		bo["gasLimit"] = q(*b.gasLimit)
	}
	if b.feeRecipient != nil {
		bo["feeRecipient"] = addr(*b.feeRecipient)
	}
	if b.prevRandao != nil {
		bo["prevRandao"] = hash(*b.prevRandao)
	}
	if b.baseFee != nil {
		bo["baseFeePerGas"] = qb(b.baseFee)
	}
	if b.withdrawals != nil {
		ws := []any{}
		for _, w := range b.withdrawals {
			ws = append(ws, obj{"index": q(w.Index), "validatorIndex": q(w.Validator), "address": addr(w.Address), "amount": q(w.Amount)})
		}
		bo["withdrawals"] = ws
	}
	if len(bo) > 0 {
		o["blockOverrides"] = bo
	}
	if len(b.accounts) > 0 {
		so := obj{}
		for a, acc := range b.accounts {
			so[addr(a)] = acc.json()
		}
		o["stateOverrides"] = so
	}
	calls := []any{}
	for _, c := range b.calls {
		calls = append(calls, c.json())
	}
	o["calls"] = calls
	return o
}

type simOpts struct{ traceTransfers, validation, fullTx bool }

func simPayload(opts simOpts, blocks []simBlock) obj {
	bs := []any{}
	for _, b := range blocks {
		bs = append(bs, b.json())
	}
	p := obj{"blockStateCalls": bs}
	if opts.traceTransfers {
		p["traceTransfers"] = true
	}
	if opts.validation {
		p["validation"] = true
	}
	if opts.fullTx {
		p["returnFullTransactions"] = true
	}
	return p
}

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

// simBlockJSON is a simulated block as the spec's result shows it.
func (g *gen) simBlockJSON(b *types.Block, calls []callOutcome, spec simBlock, fullTx bool) obj {
	out := g.blockJSON(b, false)
	if fullTx {
		txs := []any{}
		for i := range b.Transactions() {
			txs = append(txs, simTxJSON(b, i, spec.calls[i].from))
		}
		out["transactions"] = txs
	}
	results := []any{}
	for _, c := range calls {
		results = append(results, simCallJSON(b, c))
	}
	out["calls"] = results
	return out
}

func simCallJSON(b *types.Block, c callOutcome) obj {
	logs := []any{}
	for _, l := range c.logs {
		logs = append(logs, logJSON(b, c.txIndex, l.Index, l))
	}
	out := obj{
		"returnData": data(c.res.Return()),
		"logs":       logs,
		"gasUsed":    q(c.res.UsedGas),
		"maxUsedGas": q(c.res.MaxUsedGas),
		"status":     "0x1",
	}
	if c.res.Err == nil {
		return out
	}
	out["status"] = "0x0"
	if c.res.Err == vm.ErrExecutionReverted {
		msg := "execution reverted"
		if reason, err := abi.UnpackRevert(c.res.Revert()); err == nil {
			msg += ": " + reason
		}
		out["error"] = obj{"code": 3, "message": msg, "data": data(c.res.Revert())}
	} else {
		out["error"] = obj{"code": -32015, "message": c.res.Err.Error()}
	}
	return out
}

// simTxJSON is an unsigned simulated transaction with its sender.
func simTxJSON(b *types.Block, i int, from common.Address) obj {
	tx := b.Transactions()[i]
	return obj{
		"blockHash": hash(b.Hash()), "blockNumber": q(b.NumberU64()), "blockTimestamp": q(b.Time()),
		"from": addr(from), "hash": hash(tx.Hash()), "transactionIndex": q(uint64(i)), "type": q(uint64(tx.Type())),
		"nonce": q(tx.Nonce()), "to": addrOrNull(tx.To()), "gas": q(tx.Gas()), "value": qb(tx.Value()), "input": data(tx.Data()),
		"gasPrice": qb(effectiveGasPrice(tx, b.BaseFee())), "maxFeePerGas": qb(tx.GasFeeCap()), "maxPriorityFeePerGas": qb(tx.GasTipCap()),
		"chainId": qb(tx.ChainId()), "accessList": []any{}, "v": "0x0", "r": "0x0", "s": "0x0", "yParity": "0x0",
	}
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

// transferTracer collects a call's logs, drops those of reverted frames and,
// with traceTransfers, records ether transfers as Transfer logs.
type transferTracer struct {
	traceTransfers bool
	header         *types.Header
	frames         [][]*types.Log
	count          uint
	txHash         common.Hash
	txIndex        int
}

func (t *transferTracer) hooks() *tracing.Hooks {
	return &tracing.Hooks{
		OnEnter: func(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
			t.frames = append(t.frames, nil)
			if op := vm.OpCode(typ); t.traceTransfers && op != vm.DELEGATECALL && op != vm.CALLCODE && value != nil && value.Sign() > 0 {
				t.add(simTransferAddress, []common.Hash{simTransferTopic, common.BytesToHash(from.Bytes()), common.BytesToHash(to.Bytes())}, common.BigToHash(value).Bytes())
			}
		},
		OnExit: func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
			top := t.frames[len(t.frames)-1]
			if reverted {
				t.count -= uint(len(top))
				top = nil
			}
			if depth == 0 {
				t.frames = [][]*types.Log{top}
				return
			}
			t.frames = t.frames[:len(t.frames)-1]
			t.frames[len(t.frames)-1] = append(t.frames[len(t.frames)-1], top...)
		},
		OnLog: func(l *types.Log) { t.add(l.Address, l.Topics, l.Data) },
	}
}

var (
	simTransferAddress = common.HexToAddress("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")
	simTransferTopic   = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
)

func (t *transferTracer) add(a common.Address, topics []common.Hash, d []byte) {
	l := &types.Log{Address: a, Topics: topics, Data: d, BlockNumber: t.header.Number.Uint64(), TxHash: t.txHash, TxIndex: uint(t.txIndex), Index: t.count}
	t.frames[len(t.frames)-1] = append(t.frames[len(t.frames)-1], l)
	t.count++
}

func (t *transferTracer) start(txHash common.Hash, i int) {
	t.frames, t.txHash, t.txIndex = nil, txHash, i
}

func (t *transferTracer) callLogs() []*types.Log {
	if len(t.frames) == 0 {
		return nil
	}
	return t.frames[0]
}

// Contracts the simulations install with code overrides.
var (
	// simEnvCode returns NUMBER, TIMESTAMP, COINBASE, PREVRANDAO, BASEFEE,
	// GASLIMIT and BLOBBASEFEE as seven words.
	simEnvCode = []byte{0x43, 0x5f, 0x52, 0x42, 0x60, 0x20, 0x52, 0x41, 0x60, 0x40, 0x52, 0x44, 0x60, 0x60, 0x52, 0x48, 0x60, 0x80, 0x52, 0x45, 0x60, 0xa0, 0x52, 0x4a, 0x60, 0xc0, 0x52, 0x60, 0xe0, 0x5f, 0xf3}
	// simBlockhashCode returns BLOCKHASH(the calldata word).
	simBlockhashCode = []byte{0x5f, 0x35, 0x40, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3}
	// simBalanceCode returns BALANCE(the calldata word).
	simBalanceCode = []byte{0x5f, 0x35, 0x31, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3}
	// simForwardCode sends its call value on to the address in its calldata.
	simForwardCode = []byte{0x5f, 0x5f, 0x5f, 0x5f, 0x34, 0x5f, 0x35, 0x5a, 0xf1, 0x50, 0x00}
	// simAnswerCode returns the word 42; simAnswerInit deploys it.
	simAnswerCode = []byte{0x60, 0x2a, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3}
	simAnswerInit = append([]byte{0x60, byte(len(simAnswerCode)), 0x60, 0x0a, 0x5f, 0x39, 0x60, byte(len(simAnswerCode)), 0x5f, 0xf3}, simAnswerCode...)
)

func (g *gen) simulateCases() {
	const m = "eth_simulateV1"
	head := tc.BlockLast
	hh := g.blocks[head].Header()
	u := func(v uint64) *uint64 { return &v }
	var (
		X         = common.HexToAddress("0xc000000000000000000000000000000000000000")
		Y         = common.HexToAddress("0xc100000000000000000000000000000000000000")
		Z         = common.HexToAddress("0xc200000000000000000000000000000000000000")
		env       = common.HexToAddress("0xc300000000000000000000000000000000000000")
		fwd       = common.HexToAddress("0xc400000000000000000000000000000000000000")
		bal       = common.HexToAddress("0xc500000000000000000000000000000000000000")
		bh        = common.HexToAddress("0xc600000000000000000000000000000000000000")
		moved     = common.HexToAddress("0xc700000000000000000000000000000000000000")
		ecrecover = common.BytesToAddress([]byte{1})
	)
	accounts := func(kv ...any) map[common.Address]simAccount {
		out := map[common.Address]simAccount{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(common.Address)] = kv[i+1].(simAccount)
		}
		return out
	}
	funds := func(v int64) simAccount { return simAccount{balance: big.NewInt(v)} }
	code := func(c []byte) simAccount { return simAccount{code: c} }
	send := func(from, to common.Address, v int64) simCall {
		return simCall{from: from, to: &to, value: big.NewInt(v)}
	}
	callTo := func(to common.Address, input []byte) simCall { return simCall{from: tc.AddrA, to: &to, input: input} }
	addrWord := func(a common.Address) []byte { return common.LeftPadBytes(a.Bytes(), 32) }
	numWord := func(n uint64) []byte { return common.LeftPadBytes(new(big.Int).SetUint64(n).Bytes(), 32) }
	add := func(name, comment string, base int, opts simOpts, blocks ...simBlock) {
		var tag any = "latest"
		if base != head {
			tag = bn(base)
		}
		g.add(m, name, comment, g.simulate(base, opts, blocks), simPayload(opts, blocks), tag)
	}
	fail := func(name, comment string, code int, msg string, opts simOpts, blocks ...simBlock) {
		g.addErr(m, name, comment, obj{"code": code, "message": msg}, simPayload(opts, blocks), "latest")
	}
	none := simOpts{}

	add("simulate-transfers", "two transfers, the second spending what the first sent (execution-apis: the method's example, ethSimulate-simple)", head, none,
		simBlock{accounts: accounts(X, funds(1000)), calls: []simCall{send(X, Y, 1000), send(Y, Z, 1000)}})
	add("simulate-transfers-validation-full-transactions", "validation with a base fee override, full transactions: unsigned, with their senders (ethSimulate-simple-validation-fulltx)", head,
		simOpts{validation: true, fullTx: true},
		simBlock{baseFee: big.NewInt(15), accounts: accounts(X, funds(1_000_000_000_000)), calls: []simCall{
			{from: X, to: &Y, value: big.NewInt(10_000_000_000), maxFee: big.NewInt(16)},
			{from: Y, to: &Z, value: big.NewInt(1000), maxFee: big.NewInt(16)},
		}})
	add("simulate-blocks-carry-state", "block 2 spends what block 1 sent; block 3 reads Z's balance (ethSimulate-transfer-over-BlockStateCalls)", head, none,
		simBlock{accounts: accounts(X, funds(1000)), calls: []simCall{send(X, Y, 1000)}},
		simBlock{calls: []simCall{send(Y, Z, 400)}},
		simBlock{accounts: accounts(bal, code(simBalanceCode)), calls: []simCall{callTo(bal, addrWord(Z))}})
	add("simulate-empty-blocks", "blocks without calls: numbers and times count up from the head (ethSimulate-empty)", head, none, simBlock{}, simBlock{})
	add("simulate-block-number-gap", "a block three after the head: the two skipped are filled in (ethSimulate-blocknumber-increment)", head, none,
		simBlock{number: u(hh.Number.Uint64() + 3), calls: []simCall{send(X, Y, 0)}})
	randao := common.HexToHash("0x0101010101010101010101010101010101010101010101010101010101010101")
	add("simulate-block-overrides", "every header override, read by the EVM; the next block keeps the fee recipient and gas limit (ethSimulate-block-override-reflected-in-contract)", head, none,
		simBlock{number: u(hh.Number.Uint64() + 1), time: u(hh.Time + 100), gasLimit: u(0x1000000), feeRecipient: &Z, prevRandao: &randao,
			baseFee: big.NewInt(7), accounts: accounts(env, code(simEnvCode)), calls: []simCall{callTo(env, nil)}},
		simBlock{calls: []simCall{callTo(env, nil)}})
	add("simulate-blockhash", "BLOCKHASH of a simulated block, of the base and of an older block (ethSimulate-blockhash-complex)", head, none,
		simBlock{accounts: accounts(bh, code(simBlockhashCode))},
		simBlock{calls: []simCall{callTo(bh, numWord(hh.Number.Uint64()+1)), callTo(bh, numWord(hh.Number.Uint64())), callTo(bh, numWord(10))}})
	add("simulate-contract-logs", "C.emitPair and C.set on the chain's contract: their logs; block 2 reads the new value", head, none,
		simBlock{calls: []simCall{callTo(tc.C, tc.CallEmitPair(1, 2)), callTo(tc.C, tc.CallSet(7))}},
		simBlock{calls: []simCall{callTo(tc.C, tc.CallGet())}})
	add("simulate-trace-transfers", "traceTransfers: the call's value and the forwarded value as Transfer logs of 0xeeee...eeee (ethSimulate-eth-send-should-produce-more-logs-on-forward)", head, simOpts{traceTransfers: true},
		simBlock{accounts: accounts(X, funds(2000), fwd, code(simForwardCode)), calls: []simCall{
			{from: X, to: &fwd, value: big.NewInt(1000), input: addrWord(Z)}, send(X, Y, 5)}})
	add("simulate-trace-transfers-revert", "traceTransfers: a reverted call's transfer is not logged, and frees its log index (ethSimulate-eth-send-should-not-produce-logs-on-revert)", head, simOpts{traceTransfers: true},
		simBlock{accounts: accounts(X, funds(2000)), calls: []simCall{{from: X, to: &tc.C, value: big.NewInt(1000), input: tc.CallFail()}, send(X, Y, 5)}})
	add("simulate-revert", "C.fail() and C.failSilently(): status 0, error code 3 with the revert data; the block goes on", head, none,
		simBlock{calls: []simCall{callTo(tc.C, tc.CallFail()), callTo(tc.C, tc.CallFailSilently()), callTo(tc.C, tc.CallGet())}})
	add("simulate-vm-errors", "an invalid opcode and an out-of-gas call: error code -32015", head, none,
		simBlock{accounts: accounts(env, code([]byte{0xfe})), calls: []simCall{
			{from: tc.AddrA, to: &env, gas: u(100_000)}, {from: tc.AddrA, to: &tc.C, input: tc.CallSet(1), gas: u(22_000)}}})
	add("simulate-state-diff", "stateDiff replaces C's slot 0 (ethSimulate-simple-state-diff)", head, none,
		simBlock{accounts: accounts(tc.C, simAccount{stateDiff: map[common.Hash]common.Hash{word(0): word(0x99)}}), calls: []simCall{callTo(tc.C, tc.CallGet())}})
	add("simulate-state-replace", "state replaces C's storage: slot 0 reads zero (ethSimulate-simple-state)", head, none,
		simBlock{accounts: accounts(tc.C, simAccount{state: map[common.Hash]common.Hash{word(1): word(5)}}), calls: []simCall{callTo(tc.C, tc.CallGet())}})
	add("simulate-override-per-block", "the same account overridden in two blocks (ethSimulate-override-address-twice-in-separate-BlockStateCalls)", head, none,
		simBlock{accounts: accounts(X, funds(1000), bal, code(simBalanceCode)), calls: []simCall{callTo(bal, addrWord(X))}},
		simBlock{accounts: accounts(X, funds(2000)), calls: []simCall{callTo(bal, addrWord(X))}})
	sigHash := crypto.Keccak256([]byte("stocknode"))
	sig, err := crypto.Sign(sigHash, tc.KeyA)
	if err != nil {
		panic(err)
	}
	recoverInput := append(append(append(append([]byte{}, sigHash...), numWord(uint64(sig[64])+27)...), sig[:32]...), sig[32:64]...)
	add("simulate-move-precompile", "ecrecover moved away works at its new address; its old one runs the code put there (ethSimulate-move-ecrecover-and-call)", head, none,
		simBlock{accounts: accounts(ecrecover, simAccount{code: simAnswerCode, moveTo: &moved}),
			calls: []simCall{callTo(moved, recoverInput), callTo(ecrecover, recoverInput)}})
	add("simulate-validation", "validation: A pays the base fee of the head's successor; its nonce counts up (ethSimulate-check-that-nonce-increases)", head, simOpts{validation: true},
		simBlock{calls: []simCall{
			{from: tc.AddrA, to: &tc.R, value: big.NewInt(1), maxFee: big.NewInt(params.GWei), maxTip: big.NewInt(2)},
			{from: tc.AddrA, to: &tc.R, value: big.NewInt(1), maxFee: big.NewInt(params.GWei)}}},
		simBlock{calls: []simCall{{from: tc.AddrA, to: &tc.R, value: big.NewInt(1), maxFee: big.NewInt(params.GWei)}}})
	add("simulate-historical-block", "on block 4 (after set(42)): C.get() reads 42", 4, none,
		simBlock{calls: []simCall{callTo(tc.C, tc.CallGet())}})
	add("simulate-withdrawals", "a withdrawal override credits Z at the end of block 1 (in Gwei); block 2 reads it", head, none,
		simBlock{withdrawals: []*types.Withdrawal{{Index: 0, Validator: 1, Address: Z, Amount: 5}}},
		simBlock{accounts: accounts(bal, code(simBalanceCode)), calls: []simCall{callTo(bal, addrWord(Z))}})
	add("simulate-delegated-eoa", "a call to D runs C's code on D's storage (EIP-7702)", head, none,
		simBlock{calls: []simCall{callTo(tc.AddrD, tc.CallGet())}})
	add("simulate-create", "a call without to creates a contract; block 2 calls it", head, none,
		simBlock{calls: []simCall{{from: X, input: simAnswerInit}}},
		simBlock{calls: []simCall{callTo(crypto.CreateAddress(X, 0), nil)}})
	add("simulate-equal-timestamps", "two blocks with the same timestamp: the spec lets time \"remain constant\"", head, none,
		simBlock{time: u(hh.Time + 12)}, simBlock{time: u(hh.Time + 12)})

	fail("simulate-block-number-order-code", "block numbers must increase (-38020; ethSimulate-block-num-order-38020)", -38020, "block numbers must be in order", none,
		simBlock{number: u(hh.Number.Uint64() + 2)}, simBlock{number: u(hh.Number.Uint64() + 1)})
	fail("simulate-block-number-base-code", "the first block's number must be above the base's (-38020)", -38020, "block numbers must be in order", none,
		simBlock{number: u(hh.Number.Uint64())})
	fail("simulate-block-timestamp-order-code", "block timestamps must not decrease (-38021; ethSimulate-block-timestamp-order-38021)", -38021, "block timestamps must be in order", none,
		simBlock{time: u(hh.Time + 20)}, simBlock{time: u(hh.Time + 19)})
	nonce := g.state(uint64(head)).GetNonce(tc.AddrA)
	fail("simulate-nonce-too-low-code", "validation: a nonce below A's (-38010; ethSimulate-transaction-too-low-nonce-38010)", -38010, "nonce too low", simOpts{validation: true},
		simBlock{calls: []simCall{{from: tc.AddrA, to: &tc.R, nonce: u(nonce - 1), maxFee: big.NewInt(params.GWei)}}})
	fail("simulate-nonce-too-high-code", "validation: a nonce above A's (-38011; ethSimulate-transaction-too-high-nonce)", -38011, "nonce too high", simOpts{validation: true},
		simBlock{calls: []simCall{{from: tc.AddrA, to: &tc.R, nonce: u(nonce + 1), maxFee: big.NewInt(params.GWei)}}})
	fail("simulate-base-fee-too-low-code", "validation: a fee cap below the base fee (-38012; ethSimulate-basefee-too-low-with-validation-38012)", -38012, "max fee per gas less than block base fee", simOpts{validation: true},
		simBlock{baseFee: big.NewInt(10), calls: []simCall{{from: tc.AddrA, to: &tc.R, maxFee: big.NewInt(5)}}})
	fail("simulate-intrinsic-gas-code", "gas below a transfer's 21000 (-38013; ethSimulate-instrict-gas-38013)", -38013, "intrinsic gas too low", none,
		simBlock{calls: []simCall{{from: X, to: &Y, gas: u(20_000)}}})
	fail("simulate-insufficient-funds-code", "a value the sender does not have (-38014; ethSimulate-gas-fees-and-value-error-38014)", -38014, "insufficient funds for transfer", none,
		simBlock{calls: []simCall{send(X, Y, 1)}})
	fail("simulate-block-gas-limit-code", "calls over the block's gas limit (-38015; ethSimulate-run-out-of-gas-in-block-38015)", -38015, "block gas limit reached", none,
		simBlock{gasLimit: u(30_000), calls: []simCall{{from: X, to: &Y, gas: u(21_000)}, {from: X, to: &Y, gas: u(21_000)}}})
	fail("simulate-move-to-itself-code", "movePrecompileToAddress naming its own address (-38022; ethSimulate-move-to-address-itself-reference-38022)", -38022, "movePrecompileToAddress references itself", none,
		simBlock{accounts: accounts(ecrecover, simAccount{moveTo: &ecrecover})})
	sha256 := common.BytesToAddress([]byte{2})
	fail("simulate-moves-to-one-address-code", "two precompiles moved to the same address (-38023; ethSimulate-move-two-accounts-to-same-38023)", -38023, "both moved to the same address", none,
		simBlock{accounts: accounts(ecrecover, simAccount{moveTo: &moved}, sha256, simAccount{moveTo: &moved})})
	fail("simulate-too-many-blocks-code", "a block 257 after the base: more than 256 blocks (-38026; ethSimulate-add-more-non-defined-BlockStateCalls-than-fit)", -38026, "too many blocks", none,
		simBlock{number: u(hh.Number.Uint64() + 257)})
	g.addErr(m, "simulate-empty-input", "no blocks (ethSimulate-empty-ethSimulate)", errInvalidParams, obj{"blockStateCalls": []any{}}, "latest")
	g.addErr(m, "simulate-state-and-state-diff", "an account override with both state and stateDiff", errInvalidParams,
		simPayload(none, []simBlock{{accounts: accounts(X, simAccount{state: map[common.Hash]common.Hash{}, stateDiff: map[common.Hash]common.Hash{}})}}), "latest")
	g.addErr(m, "simulate-future-block", "a base block beyond the head", errNoBlock, simPayload(none, []simBlock{{}}), "0x64")
}
