package main

// The eth_simulateV1 fixtures: the simulations asked and the contracts they
// install with code overrides; the answers are simulate_reference.go's.
// Most fixtures port an execution-apis tests/eth_simulateV1 fixture onto
// this chain; their comments name it.

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	tc "github.com/stocknode/stocknode/conformance/internal/fixturechain"
)

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
