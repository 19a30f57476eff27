package main

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	tc "github.com/stocknode/stocknode/conformance/internal/fixturechain"
)

// The environment a call runs in: a contract that reads BASEFEE and the
// rest of its block environment must read the same through every node.
// The rule is geth's (internal/ethapi applyMessage, eth/gasestimator run):
// a call that pays no gas price runs with a base fee of 0, one with a given
// zero blob fee cap with a blob base fee of 0; the block context is
// otherwise the block's.

// envOps are what envEcho reports, a 32-byte word each.
var envOps = []vm.OpCode{vm.BASEFEE, vm.BLOBBASEFEE, vm.GASPRICE, vm.NUMBER, vm.TIMESTAMP, vm.GASLIMIT, vm.COINBASE, vm.PREVRANDAO, vm.CHAINID}

// envEcho is creation code returning envOps' values: a call without "to"
// runs it and answers what it returns.
func envEcho() []byte {
	p := program.New()
	for i, op := range envOps {
		p.Op(op).Push(i * 32).Op(vm.MSTORE)
	}
	return p.Return(0, len(envOps)*32).Bytes()
}

// revertIfNoBaseFee is creation code that reverts when BASEFEE reads 0:
// BASEFEE PUSH1 7 JUMPI PUSH0 PUSH0 REVERT JUMPDEST STOP.
var revertIfNoBaseFee = []byte{byte(vm.BASEFEE), byte(vm.PUSH1), 7, byte(vm.JUMPI), byte(vm.PUSH0), byte(vm.PUSH0), byte(vm.REVERT), byte(vm.JUMPDEST), byte(vm.STOP)}

// touchedByEnv is the account touchIfNoBaseFee reads when BASEFEE is 0.
var touchedByEnv = common.HexToAddress("0x000000000000000000000000000000000000beef")

// touchIfNoBaseFee is creation code that reads touchedByEnv's balance when
// BASEFEE reads 0: BASEFEE PUSH1 27 JUMPI PUSH20 addr BALANCE POP JUMPDEST STOP.
func touchIfNoBaseFee() []byte {
	code := append([]byte{byte(vm.BASEFEE), byte(vm.PUSH1), 27, byte(vm.JUMPI), byte(vm.PUSH20)}, touchedByEnv.Bytes()...)
	return append(code, byte(vm.BALANCE), byte(vm.POP), byte(vm.JUMPDEST), byte(vm.STOP))
}

// envFees are a call's fee fields (nil: omitted) and its block override of
// the base fee.
type envFees struct {
	gasPrice, maxFee, maxTip, maxBlobFee *big.Int
	baseFeeOverride                      *big.Int
}

const envGas = 1_000_000

// object is the call object of input from A with these fees.
func (f envFees) object(input []byte) obj {
	o := obj{"from": addr(tc.AddrA), "input": data(input), "gas": q(envGas)}
	for name, v := range map[string]*big.Int{"gasPrice": f.gasPrice, "maxFeePerGas": f.maxFee, "maxPriorityFeePerGas": f.maxTip, "maxFeePerBlobGas": f.maxBlobFee} {
		if v != nil {
			o[name] = qb(v)
		}
	}
	return o
}

// message is the call's message as TransactionArgs.ToMessage makes it.
func (f envFees) message(baseFee *big.Int, input []byte, al types.AccessList) *core.Message {
	m := &core.Message{From: tc.AddrA, GasLimit: envGas, Value: new(uint256.Int), Data: input, AccessList: al,
		GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int)}
	switch {
	case f.gasPrice != nil:
		m.GasPrice, m.GasFeeCap, m.GasTipCap = uint256.MustFromBig(f.gasPrice), uint256.MustFromBig(f.gasPrice), uint256.MustFromBig(f.gasPrice)
	default:
		if f.maxFee != nil {
			m.GasFeeCap = uint256.MustFromBig(f.maxFee)
		}
		if f.maxTip != nil {
			m.GasTipCap = uint256.MustFromBig(f.maxTip)
		}
		if !m.GasFeeCap.IsZero() || !m.GasTipCap.IsZero() {
			m.GasPrice = new(uint256.Int).Add(m.GasTipCap, uint256.MustFromBig(baseFee))
			if m.GasPrice.Cmp(m.GasFeeCap) > 0 {
				m.GasPrice.Set(m.GasFeeCap)
			}
		}
	}
	if f.maxBlobFee != nil {
		m.BlobGasFeeCap = uint256.MustFromBig(f.maxBlobFee)
	}
	m.SkipNonceCheck().SkipEOACheck()
	return m
}

// envRun executes input as a call with fees on the state after block n, in
// block n's context with the fees' base fees.
func (g *gen) envRun(n uint64, f envFees, input []byte, al types.AccessList) *core.ExecutionResult {
	h := g.blocks[n].Header()
	m := f.message(h.BaseFee, input, al)
	ctx := core.NewEVMBlockContext(h, g.bc, nil)
	if f.baseFeeOverride != nil {
		ctx.BaseFee = f.baseFeeOverride
	}
	if m.GasPrice.IsZero() {
		ctx.BaseFee = new(big.Int)
	}
	if m.BlobGasFeeCap != nil && m.BlobGasFeeCap.IsZero() {
		ctx.BlobBaseFee = new(big.Int)
	}
	evm := vm.NewEVM(ctx, g.state(n), g.config, vm.Config{NoBaseFee: true})
	res, err := core.ApplyMessage(evm, m, core.NewGasPool(envGas))
	if err != nil {
		panic(fmt.Sprintf("environment call at block %d: %v", n, err))
	}
	return res
}

func (g *gen) flashCases() {
	g.envCallCases()
	g.envEstimateCases()
	g.feeHistoryBlobCases()
}

func (g *gen) envCallCases() {
	head := uint64(tc.BlockLast)
	gwei := func(x int64) *big.Int { return big.NewInt(x * params.GWei) }
	echo := func(n uint64, f envFees) string {
		res := g.envRun(n, f, envEcho(), nil)
		if res.Err != nil {
			panic(res.Err)
		}
		words := res.ReturnData
		if f.gasPrice == nil && f.maxFee == nil && f.maxTip == nil && new(big.Int).SetBytes(words[:32]).Sign() != 0 {
			panic("a call without fees read a base fee")
		}
		return data(words)
	}
	m := "eth_call"
	for _, c := range []struct {
		name, comment string
		block         uint64
		tag           string
		fees          envFees
	}{
		{"call-env-no-fees", "the environment of a call without fees: BASEFEE and GASPRICE 0, BLOBBASEFEE the block's", head, "latest", envFees{}},
		{"call-env-no-fees-historical", "the same at block 9", 9, bn(9), envFees{}},
		{"call-env-gas-price", "with a gas price the call runs on the block's base fee", head, "latest", envFees{gasPrice: gwei(2)}},
		{"call-env-1559-fees", "with 1559 fees: the block's base fee, GASPRICE min(tip + base fee, fee cap)", head, "latest", envFees{maxFee: gwei(3), maxTip: gwei(1)}},
		{"call-env-zero-1559-fees", "1559 fees of 0 pay no gas price: BASEFEE 0", head, "latest", envFees{maxFee: new(big.Int), maxTip: new(big.Int)}},
		{"call-env-zero-blob-fee-cap", "a blob fee cap of 0: BLOBBASEFEE 0 too", head, "latest", envFees{maxBlobFee: new(big.Int)}},
		{"call-env-blob-fee-cap", "a blob fee cap above 0 keeps the block's BLOBBASEFEE", head, "latest", envFees{maxBlobFee: big.NewInt(5), gasPrice: gwei(2)}},
	} {
		g.add(m, c.name, c.comment, echo(c.block, c.fees), c.fees.object(envEcho()), c.tag)
	}
	override := envFees{gasPrice: gwei(2), baseFeeOverride: big.NewInt(7)}
	g.add(m, "call-env-block-override-base-fee", "a block override's base fee, read by a call with a gas price",
		echo(head, override), override.object(envEcho()), "latest", nil, obj{"baseFeePerGas": "0x7"})
}

func (g *gen) envEstimateCases() {
	head := uint64(tc.BlockLast)
	if res := g.envRun(head, envFees{}, revertIfNoBaseFee, nil); !res.Failed() {
		panic("the BASEFEE probe does not revert without fees")
	}
	g.addErr("eth_estimateGas", "estimate-env-no-fees-base-fee-zero", "code that reverts when BASEFEE is 0, estimated without fees: it reverts",
		errReverted, envFees{}.object(revertIfNoBaseFee), "latest")

	m := "eth_createAccessList"
	al := func(f envFees, list types.AccessList) obj {
		res := g.envRun(head, f, touchIfNoBaseFee(), list)
		if res.Err != nil {
			panic(res.Err)
		}
		return obj{"accessList": accessListJSON(list), "gasUsed": q(res.UsedGas)}
	}
	g.add(m, "create-al-env-no-fees", "code that reads 0x..beef only when BASEFEE is 0, without fees: 0x..beef is listed\n(geth v1.17 leaves the fees at zero when every fee field is omitted; v1.16.7 filled in suggested fees)",
		al(envFees{}, types.AccessList{{Address: touchedByEnv, StorageKeys: []common.Hash{}}}), envFees{}.object(touchIfNoBaseFee()), "latest")
	priced := envFees{gasPrice: big.NewInt(2 * params.GWei)}
	g.add(m, "create-al-env-gas-price", "the same with a gas price: BASEFEE is the block's, nothing is listed",
		al(priced, types.AccessList{}), priced.object(touchIfNoBaseFee()), "latest")
}

func (g *gen) feeHistoryBlobCases() {
	m := "eth_feeHistory"
	g.add(m, "fee-history-blob-fields-no-reward", "no percentiles: no reward, blob base fees and blob gas ratios still there (block 8 carries blobs)",
		g.feeHistory(3, 9, nil), "0x3", bn(9), []any{})
	g.add(m, "fee-history-blob-next-block", "the newest block's blob base fee is followed by the next block's",
		g.feeHistory(1, uint64(tc.BlockLast), nil), "0x1", "latest", []any{})
}
