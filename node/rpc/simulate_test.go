package rpc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/chain"
)

// The answer of eth_simulateV1, as far as the tests read it.
type (
	simBlock struct {
		Number       hexutil.Uint64    `json:"number"`
		Hash         common.Hash       `json:"hash"`
		ParentHash   common.Hash       `json:"parentHash"`
		StateRoot    common.Hash       `json:"stateRoot"`
		MixHash      common.Hash       `json:"mixHash"`
		Timestamp    hexutil.Uint64    `json:"timestamp"`
		GasUsed      hexutil.Uint64    `json:"gasUsed"`
		GasLimit     hexutil.Uint64    `json:"gasLimit"`
		Miner        common.Address    `json:"miner"`
		BaseFee      *hexutil.Big      `json:"baseFeePerGas"`
		Transactions []json.RawMessage `json:"transactions"`
		Withdrawals  []map[string]any  `json:"withdrawals"`
		Calls        []simCall         `json:"calls"`
	}
	simCall struct {
		ReturnData hexutil.Bytes  `json:"returnData"`
		Logs       []simLog       `json:"logs"`
		GasUsed    hexutil.Uint64 `json:"gasUsed"`
		MaxUsedGas hexutil.Uint64 `json:"maxUsedGas"`
		Status     hexutil.Uint64 `json:"status"`
		Error      *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    string `json:"data"`
		} `json:"error"`
	}
	simLog struct {
		Address     common.Address `json:"address"`
		Topics      []common.Hash  `json:"topics"`
		Data        hexutil.Bytes  `json:"data"`
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
		BlockHash   common.Hash    `json:"blockHash"`
		TxHash      common.Hash    `json:"transactionHash"`
		TxIndex     hexutil.Uint64 `json:"transactionIndex"`
		Index       hexutil.Uint64 `json:"logIndex"`
		Timestamp   hexutil.Uint64 `json:"blockTimestamp"`
	}
)

// Contracts the simulations install with code overrides.
var (
	// envRuntime returns NUMBER, TIMESTAMP, COINBASE, PREVRANDAO, BASEFEE,
	// GASLIMIT and BLOBBASEFEE as seven words.
	envRuntime = hexutil.MustDecode("0x43600052426020524160405244606052486080524560a0524a60c05260e06000f3")
	// blockhashRuntime returns BLOCKHASH(the calldata word).
	blockhashRuntime = hexutil.MustDecode("0x600035406000526020" + "6000f3")
	// balanceRuntime returns BALANCE(the calldata word).
	balanceRuntime = hexutil.MustDecode("0x600035316000526020" + "6000f3")
	// forwardRuntime sends its call value on to the address in its calldata.
	forwardRuntime = hexutil.MustDecode("0x6000600060006000346000355af15000")
	// invalidRuntime fails with an invalid opcode.
	invalidRuntime = hexutil.MustDecode("0xfe")
)

var (
	simX   = common.HexToAddress("0xc000000000000000000000000000000000000000")
	simY   = common.HexToAddress("0xc100000000000000000000000000000000000000")
	simZ   = common.HexToAddress("0xc200000000000000000000000000000000000000")
	simEnv = common.HexToAddress("0xc300000000000000000000000000000000000000")
	simFwd = common.HexToAddress("0xc400000000000000000000000000000000000000")
)

// payload builds a simulation of the given blocks, with options merged in.
func payload(opts map[string]any, blocks ...map[string]any) map[string]any {
	p := map[string]any{"blockStateCalls": blocks}
	for k, v := range opts {
		p[k] = v
	}
	return p
}

func code(runtime []byte) map[string]any { return map[string]any{"code": hexutil.Encode(runtime)} }

func funded(wei int64) map[string]any {
	return map[string]any{"balance": hexutil.EncodeBig(big.NewInt(wei))}
}

func transfer(from, to common.Address, wei int64) map[string]any {
	return map[string]any{"from": from, "to": to, "value": hexutil.EncodeBig(big.NewInt(wei))}
}

func wordArg(v *big.Int) string { return hexutil.Encode(common.BigToHash(v).Bytes()) }

// simulate answers a simulation that must succeed.
func (n *testNode) simulate(p any, block any) []simBlock {
	n.t.Helper()
	var blocks []simBlock
	n.result(&blocks, "eth_simulateV1", p, block)
	return blocks
}

func (n *testNode) headHeader() *types.Header { return n.store.Load().HeadHeader }

// Calls build on each other across blocks: a transfer of block 1 funds the
// sender of block 2, and block 3 reads the result. Blocks chain by parent
// hash, count up from the base and are 12 s apart (no block time: geth's).
func TestSimulateMultiBlock(t *testing.T) {
	n := newTestNode(t, 0, 0)
	head := n.headHeader()
	bal := common.HexToAddress("0xc500000000000000000000000000000000000000")
	blocks := n.simulate(payload(nil,
		map[string]any{"stateOverrides": map[string]any{simX.Hex(): funded(1000)}, "calls": []any{transfer(simX, simY, 1000)}},
		map[string]any{"calls": []any{transfer(simY, simZ, 400)}},
		map[string]any{"stateOverrides": map[string]any{bal.Hex(): code(balanceRuntime)},
			"calls": []any{map[string]any{"to": bal, "input": hexutil.Encode(common.LeftPadBytes(simZ.Bytes(), 32))}}},
	), "latest")
	if len(blocks) != 3 {
		t.Fatalf("%d blocks, want 3", len(blocks))
	}
	parent := head.Hash()
	for i, b := range blocks {
		if uint64(b.Number) != head.Number.Uint64()+uint64(i)+1 || b.ParentHash != parent || uint64(b.Timestamp) != head.Time+12*uint64(i+1) {
			t.Errorf("block %d: number %d, parent %s, time %d", i, b.Number, b.ParentHash, b.Timestamp)
		}
		if b.Miner != head.Coinbase || uint64(b.GasLimit) != head.GasLimit || b.BaseFee.ToInt().Sign() != 0 {
			t.Errorf("block %d: miner %s, gas limit %d, base fee %v: want the base's, and 0 without validation", i, b.Miner, b.GasLimit, b.BaseFee)
		}
		if len(b.Calls) != 1 || b.Calls[0].Status != 1 || len(b.Transactions) != 1 {
			t.Fatalf("block %d: calls %+v", i, b.Calls)
		}
		parent = b.Hash
	}
	if got := new(big.Int).SetBytes(blocks[2].Calls[0].ReturnData); got.Int64() != 400 {
		t.Errorf("Z's balance in block 3 = %v, want 400", got)
	}
	if blocks[0].GasUsed != 21000 || blocks[0].Calls[0].GasUsed != 21000 || blocks[0].Calls[0].MaxUsedGas != 21000 {
		t.Errorf("transfer gas: block %d, call %d/%d", blocks[0].GasUsed, blocks[0].Calls[0].GasUsed, blocks[0].Calls[0].MaxUsedGas)
	}
	// A simulation changes nothing.
	var balance string
	n.result(&balance, "eth_getBalance", simZ, "latest")
	if balance != "0x0" {
		t.Errorf("Z's balance after the simulation = %s", balance)
	}
}

// Block overrides reach the EVM and the header; withdrawals credit their
// recipients at the end of their block; BLOCKHASH sees the simulated blocks.
func TestSimulateBlockOverrides(t *testing.T) {
	n := newTestNode(t, 0, 0)
	head := n.headHeader()
	w := common.HexToAddress("0xc600000000000000000000000000000000000000")
	bh := common.HexToAddress("0xc700000000000000000000000000000000000000")
	bal := common.HexToAddress("0xc800000000000000000000000000000000000000")
	randao := common.HexToHash("0x0101010101010101010101010101010101010101010101010101010101010101")
	number := head.Number.Uint64() + 1
	blocks := n.simulate(payload(nil,
		map[string]any{
			"blockOverrides": map[string]any{
				"number": hexutil.EncodeUint64(number), "time": hexutil.EncodeUint64(head.Time + 100), "gasLimit": "0x1000000",
				"feeRecipient": simZ, "prevRandao": randao, "baseFeePerGas": "0x7", "blobBaseFee": "0x9",
				"withdrawals": []any{map[string]any{"index": "0x0", "validatorIndex": "0x1", "address": w, "amount": "0x5"}},
			},
			"stateOverrides": map[string]any{simEnv.Hex(): code(envRuntime), bh.Hex(): code(blockhashRuntime), bal.Hex(): code(balanceRuntime)},
			"calls":          []any{map[string]any{"to": simEnv}},
		},
		map[string]any{"calls": []any{
			map[string]any{"to": bh, "input": wordArg(new(big.Int).SetUint64(number))},
			map[string]any{"to": bh, "input": wordArg(head.Number)},
			map[string]any{"to": bal, "input": hexutil.Encode(common.LeftPadBytes(w.Bytes(), 32))},
			map[string]any{"to": simEnv},
		}},
	), "latest")
	env := blocks[0].Calls[0].ReturnData
	want := []*big.Int{new(big.Int).SetUint64(number), new(big.Int).SetUint64(head.Time + 100), new(big.Int).SetBytes(simZ.Bytes()), randao.Big(), big.NewInt(7), big.NewInt(0x1000000), big.NewInt(9)}
	for i, w := range want {
		if got := new(big.Int).SetBytes(env[32*i : 32*i+32]); got.Cmp(w) != 0 {
			t.Errorf("environment word %d = %v, want %v", i, got, w)
		}
	}
	b := blocks[0]
	if b.Miner != simZ || b.MixHash != randao || b.BaseFee.ToInt().Int64() != 7 || b.GasLimit != 0x1000000 || uint64(b.Timestamp) != head.Time+100 || len(b.Withdrawals) != 1 {
		t.Errorf("block 1 header: %+v", b)
	}
	calls := blocks[1].Calls
	if common.BytesToHash(calls[0].ReturnData) != blocks[0].Hash || common.BytesToHash(calls[1].ReturnData) != head.Hash() {
		t.Errorf("BLOCKHASH: %x, %x; want %s, %s", calls[0].ReturnData, calls[1].ReturnData, blocks[0].Hash, head.Hash())
	}
	if got := new(big.Int).SetBytes(calls[2].ReturnData); got.Cmp(big.NewInt(5*params.GWei)) != 0 {
		t.Errorf("withdrawal recipient's balance = %v, want 5 gwei", got)
	}
	// Overrides carry over to the next block: its fee recipient and gas
	// limit; its time is 12 s after the overridden one.
	env = calls[3].ReturnData
	if new(big.Int).SetBytes(env[64:96]).Cmp(new(big.Int).SetBytes(simZ.Bytes())) != 0 || blocks[1].GasLimit != 0x1000000 || uint64(blocks[1].Timestamp) != head.Time+112 {
		t.Errorf("block 2: coinbase %x, gas limit %d, time %d", env[64:96], blocks[1].GasLimit, blocks[1].Timestamp)
	}
}

// Gaps in the block numbers are filled with empty blocks; a block may keep
// its parent's timestamp.
func TestSimulateGapsAndTimestamps(t *testing.T) {
	n := newTestNode(t, 0, 0)
	head := n.headHeader()
	base := head.Number.Uint64()
	blocks := n.simulate(payload(nil,
		map[string]any{"blockOverrides": map[string]any{"number": hexutil.EncodeUint64(base + 1), "time": hexutil.EncodeUint64(head.Time)}},
		map[string]any{"blockOverrides": map[string]any{"number": hexutil.EncodeUint64(base + 4)}, "calls": []any{transfer(simX, simY, 0)}},
		map[string]any{"blockOverrides": map[string]any{"time": hexutil.EncodeUint64(head.Time + 36)}},
	), "latest")
	if len(blocks) != 5 {
		t.Fatalf("%d blocks, want 5", len(blocks))
	}
	wantTimes := []uint64{head.Time, head.Time + 12, head.Time + 24, head.Time + 36, head.Time + 36}
	for i, b := range blocks {
		if uint64(b.Number) != base+uint64(i)+1 || uint64(b.Timestamp) != wantTimes[i] {
			t.Errorf("block %d: number %d time %d, want %d, %d", i, b.Number, b.Timestamp, base+uint64(i)+1, wantTimes[i])
		}
		if wantCalls := map[int]int{3: 1}[i]; len(b.Calls) != wantCalls || len(b.Transactions) != wantCalls {
			t.Errorf("block %d: %d calls, %d transactions; want %d", i, len(b.Calls), len(b.Transactions), wantCalls)
		}
	}
}

// Reverts and other EVM failures fail the call, not the simulation: code 3
// with the revert data, -32015 for the rest. Only successful calls log.
func TestSimulateCallFailuresAndLogs(t *testing.T) {
	n := newTestNode(t, 0, 0)
	rev := common.HexToAddress("0xc900000000000000000000000000000000000000")
	bad := common.HexToAddress("0xca00000000000000000000000000000000000000")
	lg := common.HexToAddress("0xcb00000000000000000000000000000000000000")
	blocks := n.simulate(payload(map[string]any{"returnFullTransactions": true},
		map[string]any{
			"stateOverrides": map[string]any{rev.Hex(): code(revertRuntime), bad.Hex(): code(invalidRuntime), lg.Hex(): code(logRuntime)},
			"calls": []any{
				map[string]any{"from": simX, "to": lg, "input": "0x01"},
				map[string]any{"from": simX, "to": rev},
				map[string]any{"from": simX, "to": bad, "gas": "0x10000"},
				map[string]any{"from": simY, "to": lg, "input": "0x0203"},
			},
		}), "latest")
	b := blocks[0]
	c := b.Calls
	if c[1].Status != 0 || c[1].Error == nil || c[1].Error.Code != 3 || c[1].Error.Message != "execution reverted: nope" || c[1].Error.Data != hexutil.Encode(revertData()) || len(c[1].ReturnData) != 0 {
		t.Errorf("reverted call: %+v %+v", c[1], c[1].Error)
	}
	if c[2].Status != 0 || c[2].Error == nil || c[2].Error.Code != -32015 || !strings.Contains(c[2].Error.Message, "invalid opcode") || c[2].GasUsed != 0x10000 {
		t.Errorf("invalid opcode call: %+v %+v", c[2], c[2].Error)
	}
	type fullTx struct {
		Hash common.Hash    `json:"hash"`
		From common.Address `json:"from"`
		Type hexutil.Uint64 `json:"type"`
	}
	var txs []fullTx
	for _, raw := range b.Transactions {
		var tx fullTx
		if err := json.Unmarshal(raw, &tx); err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	if len(txs) != 4 || txs[0].From != simX || txs[3].From != simY || txs[0].Type != 2 {
		t.Fatalf("full transactions: %+v", txs)
	}
	for i, want := range []struct {
		call  int
		data  string
		index uint64
	}{{0, "0x01", 0}, {3, "0x0203", 1}} {
		logs := c[want.call].Logs
		if len(logs) != 1 {
			t.Fatalf("call %d: %d logs", want.call, len(logs))
		}
		l := logs[0]
		if l.Address != lg || l.Topics[0] != logTopic || hexutil.Encode(l.Data) != want.data || uint64(l.Index) != want.index ||
			l.BlockHash != b.Hash || uint64(l.BlockNumber) != uint64(b.Number) || l.TxHash != txs[want.call].Hash || uint64(l.TxIndex) != uint64(want.call) || l.Timestamp != b.Timestamp {
			t.Errorf("log %d: %+v", i, l)
		}
	}
	if len(c[1].Logs) != 0 || len(c[2].Logs) != 0 {
		t.Errorf("failed calls logged: %+v %+v", c[1].Logs, c[2].Logs)
	}
}

func revertData() []byte {
	return append(hexutil.MustDecode("0x08c379a0"), append(common.LeftPadBytes([]byte{0x20}, 32), append(common.LeftPadBytes([]byte{4}, 32), common.RightPadBytes([]byte("nope"), 32)...)...)...)
}

// traceTransfers reports ether moves as ERC-20 Transfer logs of
// 0xeeee...eeee: the call's value and inner calls' values, none for a call
// that reverts, none at all without the option.
func TestSimulateTraceTransfers(t *testing.T) {
	n := newTestNode(t, 0, 0)
	rev := common.HexToAddress("0xc900000000000000000000000000000000000000")
	block := map[string]any{
		"stateOverrides": map[string]any{simX.Hex(): funded(10_000), simFwd.Hex(): code(forwardRuntime), rev.Hex(): code(revertRuntime)},
		"calls": []any{
			map[string]any{"from": simX, "to": simFwd, "value": "0x3e8", "input": hexutil.Encode(common.LeftPadBytes(simZ.Bytes(), 32))},
			map[string]any{"from": simX, "to": rev, "value": "0x1"},
			transfer(simX, simY, 5),
		},
	}
	transferLog := func(from, to common.Address, wei int64) simLog {
		return simLog{Address: common.HexToAddress("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"),
			Topics: []common.Hash{crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)")), common.BytesToHash(from.Bytes()), common.BytesToHash(to.Bytes())},
			Data:   common.BigToHash(big.NewInt(wei)).Bytes()}
	}
	blocks := n.simulate(payload(map[string]any{"traceTransfers": true}, block), "latest")
	c := blocks[0].Calls
	want := [][]simLog{{transferLog(simX, simFwd, 1000), transferLog(simFwd, simZ, 1000)}, {}, {transferLog(simX, simY, 5)}}
	index := 0
	for i, logs := range want {
		if len(c[i].Logs) != len(logs) {
			t.Fatalf("call %d: %d logs, want %d: %+v", i, len(c[i].Logs), len(logs), c[i].Logs)
		}
		for j, w := range logs {
			got := c[i].Logs[j]
			if got.Address != w.Address || fmt.Sprint(got.Topics) != fmt.Sprint(w.Topics) || hexutil.Encode(got.Data) != hexutil.Encode(w.Data) || uint64(got.Index) != uint64(index) {
				t.Errorf("call %d log %d = %+v, want %+v at index %d", i, j, got, w, index)
			}
			index++
		}
	}
	blocks = n.simulate(payload(nil, block), "latest")
	for i, call := range blocks[0].Calls {
		if len(call.Logs) != 0 {
			t.Errorf("without traceTransfers, call %d logged %+v", i, call.Logs)
		}
	}
}

// A precompile moved elsewhere keeps working there; its old address runs
// the code an override puts there.
func TestSimulateMovePrecompile(t *testing.T) {
	n := newTestNode(t, 0, 0)
	ecrecover := common.BytesToAddress([]byte{1})
	moved := common.HexToAddress("0xcc00000000000000000000000000000000000000")
	hash := crypto.Keccak256([]byte("stocknode"))
	sig, err := crypto.Sign(hash, n.keys[0])
	if err != nil {
		t.Fatal(err)
	}
	input := append(append(append(hash, common.LeftPadBytes([]byte{sig[64] + 27}, 32)...), sig[:32]...), sig[32:64]...)
	blocks := n.simulate(payload(nil, map[string]any{
		"stateOverrides": map[string]any{ecrecover.Hex(): map[string]any{"code": hexutil.Encode(answerRuntime), "movePrecompileToAddress": moved}},
		"calls":          []any{map[string]any{"to": moved, "input": hexutil.Encode(input)}, map[string]any{"to": ecrecover, "input": hexutil.Encode(input)}},
	}, map[string]any{
		"calls": []any{map[string]any{"to": ecrecover, "input": hexutil.Encode(input)}},
	}), "latest")
	c := blocks[0].Calls
	if common.BytesToAddress(c[0].ReturnData) != n.addr(0) {
		t.Errorf("moved ecrecover returned %x, want %s", c[0].ReturnData, n.addr(0))
	}
	if new(big.Int).SetBytes(c[1].ReturnData).Int64() != 42 {
		t.Errorf("the overridden address returned %x, want 42", c[1].ReturnData)
	}
	// The move lasts one block; the code override stays in the state, and
	// the next block's precompile set is the fork's again.
	if common.BytesToAddress(blocks[1].Calls[0].ReturnData) != n.addr(0) {
		t.Errorf("next block's 0x01 returned %x, want ecrecover's %s", blocks[1].Calls[0].ReturnData, n.addr(0))
	}
}

// With validation, the base fee follows the parent and the sender pays for
// gas; without, fees are zero unless given.
func TestSimulateValidation(t *testing.T) {
	n := newTestNode(t, 0, 0)
	head := n.headHeader()
	bal := common.HexToAddress("0xc800000000000000000000000000000000000000")
	tip := int64(params.GWei)
	blocks := n.simulate(payload(map[string]any{"validation": true},
		map[string]any{
			"stateOverrides": map[string]any{simX.Hex(): funded(params.Ether), simZ.Hex(): funded(params.Ether), bal.Hex(): code(balanceRuntime)},
			"calls": []any{
				map[string]any{"from": simX, "to": simY, "value": "0x1", "gas": "0x5208", "maxFeePerGas": hexutil.EncodeUint64(100 * params.GWei), "maxPriorityFeePerGas": hexutil.EncodeBig(big.NewInt(tip))},
				map[string]any{"from": simZ, "to": bal, "gas": "0x186a0", "input": hexutil.Encode(common.LeftPadBytes(simX.Bytes(), 32)), "maxFeePerGas": hexutil.EncodeUint64(100 * params.GWei)},
			},
		}), "latest")
	b := blocks[0]
	wantFee := n.chain.Engine().CalcBaseFee(n.chain.Config(), head)
	if b.BaseFee.ToInt().Cmp(wantFee) != 0 {
		t.Fatalf("base fee %v, want %v", b.BaseFee, wantFee)
	}
	price := new(big.Int).Add(wantFee, big.NewInt(tip))
	left := new(big.Int).Sub(big.NewInt(params.Ether), new(big.Int).Add(big.NewInt(1), new(big.Int).Mul(price, big.NewInt(21000))))
	if got := new(big.Int).SetBytes(b.Calls[1].ReturnData); got.Cmp(left) != 0 {
		t.Errorf("sender's balance after a validated transfer = %v, want %v", got, left)
	}
}

// The spec's error codes for simulations that cannot run, and -32602 for
// bad input; none of them changes anything.
func TestSimulateErrors(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) {
		tc.rpc.SimulateMaxBlocks, tc.rpc.SimulateMaxCalls = 8, 4
	})
	head := n.headHeader()
	num := func(d uint64) string { return hexutil.EncodeUint64(head.Number.Uint64() + d) }
	at := func(d uint64) string { return hexutil.EncodeUint64(head.Time + d) }
	block := func(o map[string]any, calls ...any) map[string]any {
		b := map[string]any{"calls": calls}
		if o != nil {
			b["blockOverrides"] = o
		}
		return b
	}
	withState := func(state map[string]any, calls ...any) map[string]any {
		return map[string]any{"stateOverrides": state, "calls": calls}
	}
	validate := map[string]any{"validation": true}
	ecrecover, sha := common.BytesToAddress([]byte{1}).Hex(), common.BytesToAddress([]byte{2}).Hex()
	many := make([]map[string]any, 9)
	for i := range many {
		many[i] = block(nil)
	}
	withdrawals := make([]any, 17)
	for i := range withdrawals {
		withdrawals[i] = map[string]any{"index": hexutil.EncodeUint64(uint64(i)), "validatorIndex": "0x0", "address": simX, "amount": "0x1"}
	}
	tests := []struct {
		name   string
		params []any
		code   int
		msg    string
	}{
		{"no payload", []any{}, -32602, "missing value for required argument 0"},
		{"too many arguments", []any{payload(nil, block(nil)), "latest", true}, -32602, "too many arguments"},
		{"empty input", []any{payload(nil)}, -32602, "empty input"},
		{"not an object", []any{"0x1"}, -32602, "invalid argument 0"},
		{"too many blocks", []any{map[string]any{"blockStateCalls": many}}, -38026, "--rpc.simulate.maxblocks"},
		{"block too far", []any{payload(nil, block(map[string]any{"number": num(9)}))}, -38026, "--rpc.simulate.maxblocks"},
		{"too many calls", []any{payload(nil, block(nil, transfer(simX, simY, 0), transfer(simX, simY, 0), transfer(simX, simY, 0)), block(nil, transfer(simX, simY, 0), transfer(simX, simY, 0)))}, -38026, "--rpc.simulate.maxcalls"},
		{"numbers out of order", []any{payload(nil, block(map[string]any{"number": num(2)}), block(map[string]any{"number": num(1)}))}, -38020, "block numbers must be in order"},
		{"number of the base", []any{payload(nil, block(map[string]any{"number": num(0)}))}, -38020, "block numbers must be in order"},
		{"times out of order", []any{payload(nil, block(map[string]any{"time": at(20)}), block(map[string]any{"time": at(10)}))}, -38021, "block timestamps must be in order"},
		{"time before the base", []any{payload(nil, block(map[string]any{"time": hexutil.EncodeUint64(head.Time - 1)}))}, -38021, "block timestamps must be in order"},
		{"nonce too low", []any{payload(validate, withState(map[string]any{simX.Hex(): map[string]any{"nonce": "0x5"}}, map[string]any{"from": simX, "to": simY, "nonce": "0x3"}))}, -38010, "nonce too low"},
		{"nonce too high", []any{payload(validate, block(nil, map[string]any{"from": simX, "to": simY, "nonce": "0x3"}))}, -38011, "nonce too high"},
		{"max nonce", []any{payload(nil, withState(map[string]any{simX.Hex(): map[string]any{"nonce": "0xffffffffffffffff"}}, transfer(simX, simY, 0)))}, -38011, "nonce has max value"},
		{"fee cap below base fee", []any{payload(validate, block(map[string]any{"baseFeePerGas": "0xa"}, map[string]any{"from": simX, "to": simY, "maxFeePerGas": "0x5"}))}, -38012, "max fee per gas less than block base fee"},
		{"intrinsic gas", []any{payload(nil, block(nil, map[string]any{"from": simX, "to": simY, "gas": "0x4e1f"}))}, -38013, "intrinsic gas too low"},
		{"insufficient funds", []any{payload(nil, block(nil, transfer(simX, simY, 1)))}, -38014, "insufficient funds"},
		{"insufficient funds for gas", []any{payload(validate, block(nil, map[string]any{"from": simX, "to": simY, "maxFeePerGas": "0x3b9aca000"}))}, -38014, "insufficient funds"},
		{"block gas limit", []any{payload(nil, block(map[string]any{"gasLimit": "0xa000"}, map[string]any{"to": simY, "gas": "0x5208"}, map[string]any{"to": simY, "gas": "0x5208"}))}, -38015, "block gas limit reached"},
		{"move to itself", []any{payload(nil, withState(map[string]any{ecrecover: map[string]any{"movePrecompileToAddress": ecrecover}}))}, -38022, "references itself"},
		{"two moves to one address", []any{payload(nil, withState(map[string]any{ecrecover: map[string]any{"movePrecompileToAddress": simZ}, sha: map[string]any{"movePrecompileToAddress": simZ}}))}, -38023, "are both moved to"},
		{"move of a non-precompile", []any{payload(nil, withState(map[string]any{simX.Hex(): map[string]any{"movePrecompileToAddress": simZ}}))}, -32602, "is not a precompile"},
		{"move onto an override", []any{payload(nil, withState(map[string]any{ecrecover: map[string]any{"movePrecompileToAddress": simZ}, simZ.Hex(): funded(1)}))}, -32602, "is already overridden"},
		{"state and stateDiff", []any{payload(nil, withState(map[string]any{simX.Hex(): map[string]any{"state": map[string]any{}, "stateDiff": map[string]any{}}}))}, -32602, "both 'state' and 'stateDiff'"},
		{"unknown account override key", []any{payload(nil, withState(map[string]any{simX.Hex(): map[string]any{"balanc": "0x1"}}))}, -32602, `unknown field "balanc"`},
		{"unknown block override key", []any{payload(nil, block(map[string]any{"timestamp": "0x1"}))}, -32602, `unknown field "timestamp"`},
		{"balance over 256 bits", []any{payload(nil, withState(map[string]any{simX.Hex(): map[string]any{"balance": "0x1" + strings.Repeat("0", 64)}}))}, -32602, "invalid argument 0"},
		{"bad address", []any{payload(nil, withState(map[string]any{"0x1234": funded(1)}))}, -32602, "invalid argument 0"},
		{"too many withdrawals", []any{payload(nil, block(map[string]any{"withdrawals": withdrawals}))}, -32602, "17 withdrawals, at most 16"},
		{"difficulty after the merge", []any{payload(nil, block(map[string]any{"difficulty": "0x1"}))}, -32602, "difficulty override is not allowed after the merge"},
		{"number over 64 bits", []any{payload(nil, block(map[string]any{"number": "0x1" + strings.Repeat("0", 16)}))}, -32602, "invalid argument 0"},
		{"bad call", []any{payload(nil, block(nil, map[string]any{"gas": "12"}))}, -32602, "call 0"},
		{"gasPrice and maxFeePerGas", []any{payload(nil, block(nil, map[string]any{"to": simY, "gasPrice": "0x1", "maxFeePerGas": "0x1"}))}, -32602, "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified"},
		{"other chain", []any{payload(nil, block(nil, map[string]any{"to": simY, "chainId": "0x1"}))}, -32602, "chainId does not match"},
		{"blob create", []any{payload(nil, block(nil, map[string]any{"blobVersionedHashes": []any{}}))}, -32602, "blob transaction of type create"},
		{"unknown block", []any{payload(nil, block(nil)), "0xffffff"}, -32000, "header not found"},
		{"bad block tag", []any{payload(nil, block(nil)), "newest"}, -32602, "invalid argument 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := n.call("eth_simulateV1", tt.params...)
			if resp.Error == nil {
				t.Fatalf("result %s, want error %d %q", resp.Result, tt.code, tt.msg)
			}
			if resp.Error.Code != tt.code || !strings.Contains(resp.Error.Message, tt.msg) {
				t.Fatalf("error %d %q, want %d containing %q", resp.Error.Code, resp.Error.Message, tt.code, tt.msg)
			}
		})
	}
	var balance string
	n.result(&balance, "eth_getBalance", simZ, "latest")
	if balance != "0x0" {
		t.Errorf("failed simulations changed Z's balance to %s", balance)
	}
}

// --rpc.gascap bounds the gas of all of a simulation's calls together: a
// call whose gas the rest of the budget cut runs out of gas and says so, a
// call after it fails the simulation, naming the flag.
func TestSimulateGasCap(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) { tc.rpc.GasCap = 100_000 })
	loop := common.HexToAddress("0xcd00000000000000000000000000000000000000")
	over := map[string]any{loop.Hex(): code(hexutil.MustDecode("0x5b600056"))}
	blocks := n.simulate(payload(nil, map[string]any{"stateOverrides": over, "calls": []any{transfer(simX, simY, 0), map[string]any{"to": loop, "gas": "0x100000"}}}), "latest")
	c := blocks[0].Calls[1]
	if c.Status != 0 || c.Error == nil || c.Error.Code != -32015 || !strings.Contains(c.Error.Message, "out of gas (gas limit was capped") || uint64(c.GasUsed) != 100_000-21_000 {
		t.Fatalf("capped loop: %+v %+v", c, c.Error)
	}
	resp := n.call("eth_simulateV1", payload(nil,
		map[string]any{"stateOverrides": over, "calls": []any{map[string]any{"to": loop}}},
		map[string]any{"calls": []any{transfer(simX, simY, 0)}},
	))
	if resp.Error == nil || resp.Error.Code != -38026 || !strings.Contains(resp.Error.Message, "--rpc.gascap") {
		t.Fatalf("a call after the gas cap: %s %+v, want -38026 naming --rpc.gascap", resp.Result, resp.Error)
	}
}

// A simulation is bounded by --rpc.evmtimeout as a whole (-32016) and by
// the response size limit.
func TestSimulateBounds(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) {
		tc.rpc.EVMTimeout, tc.rpc.GasCap, tc.rpc.BatchResponseLimit = 50*time.Millisecond, 1<<40, 20_000
	})
	loop := common.HexToAddress("0xcd00000000000000000000000000000000000000")
	resp := n.call("eth_simulateV1", payload(nil, map[string]any{
		"blockOverrides": map[string]any{"gasLimit": hexutil.EncodeUint64(1 << 40)},
		"stateOverrides": map[string]any{loop.Hex(): code(hexutil.MustDecode("0x5b600056"))},
		"calls":          []any{map[string]any{"to": loop}},
	}))
	if resp.Error == nil || resp.Error.Code != -32016 || !strings.Contains(resp.Error.Message, "execution aborted (timeout = 50ms, --rpc.evmtimeout)") {
		t.Fatalf("endless loop: %s %+v, want -32016", resp.Result, resp.Error)
	}
	blocks := make([]map[string]any, 20)
	for i := range blocks {
		blocks[i] = map[string]any{}
	}
	resp = n.call("eth_simulateV1", map[string]any{"blockStateCalls": blocks})
	if resp.Error == nil || resp.Error.Code != -32003 {
		t.Fatalf("20 blocks in 20 kB: %s %+v, want -32003", resp.Result, resp.Error)
	}
}

// On a historical block the simulation starts from that block's state.
func TestSimulateHistorical(t *testing.T) {
	n := newTestNode(t, 20*time.Millisecond, 10*time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000ab")
	receipt := n.waitSealed(n.send(0, &to, big.NewInt(5), 21000, nil))
	sealed := bigOf(t, receipt["blockNumber"].(string)).Uint64()
	bal := common.HexToAddress("0xc800000000000000000000000000000000000000")
	read := map[string]any{"stateOverrides": map[string]any{bal.Hex(): code(balanceRuntime)},
		"calls": []any{map[string]any{"to": bal, "input": hexutil.Encode(common.LeftPadBytes(to.Bytes(), 32))}}}
	for _, tt := range []struct {
		block any
		want  int64
	}{{hexutil.EncodeUint64(sealed - 1), 0}, {hexutil.EncodeUint64(sealed), 5}, {map[string]any{"blockHash": receipt["blockHash"]}, 5}, {"earliest", 0}} {
		blocks := n.simulate(payload(nil, read), tt.block)
		if got := new(big.Int).SetBytes(blocks[0].Calls[0].ReturnData); got.Int64() != tt.want {
			t.Errorf("at %v: balance %v, want %d", tt.block, got, tt.want)
		}
	}
	blocks := n.simulate(payload(nil, read), "earliest")
	genesis := n.chain.BlockChain().Genesis()
	if blocks[0].Number != 1 || blocks[0].ParentHash != genesis.Hash() {
		t.Errorf("on genesis: block %d with parent %s", blocks[0].Number, blocks[0].ParentHash)
	}
}

// On pending the simulation runs after the pre-confirmed transactions, in
// the pending block's place: its number and timestamp, the head as parent.
// Its state root is the one the pending block seals with, when nothing
// else joins it: the pre-confirmed transactions are part of the state.
func TestSimulatePending(t *testing.T) {
	n := newTestNode(t, time.Second, 20*time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000ab")
	hash := n.send(0, &to, big.NewInt(777), 21000, nil)
	waitFor(t, "a pre-confirmed transfer", func() bool {
		var b string
		n.result(&b, "eth_getBalance", to, "pending")
		return b == "0x309"
	})
	bal := common.HexToAddress("0xc800000000000000000000000000000000000000")
	blocks := n.simulate(payload(nil, map[string]any{},
		map[string]any{"stateOverrides": map[string]any{bal.Hex(): code(balanceRuntime)},
			"calls": []any{map[string]any{"to": bal, "input": hexutil.Encode(common.LeftPadBytes(to.Bytes(), 32))}}},
	), "pending")
	if v := new(big.Int).SetBytes(blocks[1].Calls[0].ReturnData); v.Int64() != 777 {
		t.Errorf("balance in the simulation = %v, want the pre-confirmed 777", v)
	}
	receipt := n.waitSealed(hash)
	got := blocks[0]
	if receipt["blockNumber"] != hexutil.EncodeUint64(uint64(got.Number)) {
		t.Skipf("the transfer sealed in block %v before the simulation of block %d on pending", receipt["blockNumber"], got.Number)
	}
	sealed := n.chain.BlockChain().GetHeaderByNumber(uint64(got.Number))
	if got.ParentHash != sealed.ParentHash || got.Timestamp != hexutil.Uint64(sealed.Time) {
		t.Errorf("first block: parent %s time %d; want the pending block's %s, %d", got.ParentHash, got.Timestamp, sealed.ParentHash, sealed.Time)
	}
	if got.StateRoot != sealed.Root {
		t.Errorf("simulated state root %s, sealed %s", got.StateRoot, sealed.Root)
	}
}

// A full node that reads an old block's state from its state history has
// no trie to compute simulated roots on: the simulation is refused, naming
// what keeps them, never answered with a root it could not compute.
func TestSimulateOldBlockOfFullNode(t *testing.T) {
	n := newTestNode(t, 2*time.Millisecond, 2*time.Millisecond, func(tc *testConfig) { tc.chain.GCMode = chain.GCFull })
	waitFor(t, "140 blocks", func() bool { return n.store.Load().Head.NumberU64() >= 140 })
	// Block 1's state may be readable (once the history is indexed), its
	// trie is not.
	if _, err := n.chain.StateDatabase().OpenTrie(n.chain.BlockChain().GetHeaderByNumber(1).Root); err == nil {
		t.Fatal("block 1's trie opens: a full node keeps it after all")
	}
	resp := n.call("eth_simulateV1", payload(nil, map[string]any{}), "0x1")
	if resp.Error == nil {
		t.Fatalf("simulation on block 1 of a full node: %.200s", resp.Result)
	}
	if resp.Error.Code != -32000 || !strings.Contains(resp.Error.Message, "block 1") {
		t.Errorf("error %d %q, want -32000 about block 1", resp.Error.Code, resp.Error.Message)
	}
	t.Logf("%d %s", resp.Error.Code, resp.Error.Message)
}
