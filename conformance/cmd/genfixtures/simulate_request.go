package main

// The eth_simulateV1 requests the fixtures send: calls, account overrides,
// block state calls and the payload, as Go values and as their JSON.

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
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
