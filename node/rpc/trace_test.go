package rpc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/peer"
)

// callFrame is the part of a callTracer frame the tests read.
type callFrame struct {
	Type    string         `json:"type"`
	From    common.Address `json:"from"`
	To      common.Address `json:"to"`
	Output  hexutil.Bytes  `json:"output"`
	GasUsed hexutil.Uint64 `json:"gasUsed"`
	Error   string         `json:"error"`
	Calls   []callFrame    `json:"calls"`
}

var callTracer = map[string]any{"tracer": "callTracer"}

// waitNewBlock waits until a block seals after the current head, so that a
// transaction sent next stays pre-confirmed for nearly a whole block time.
func (n *testNode) waitNewBlock() {
	n.t.Helper()
	head := n.head()
	waitFor(n.t, "a new block", func() bool { return n.head() > head })
}

// isPending reports whether the transaction is pre-confirmed and not yet
// in a block latest reads see: the pending block holds it (a seal clears
// the pending block; its receipt is answered before the seal, as Base's).
func (n *testNode) isPending(hash common.Hash) bool {
	n.t.Helper()
	for _, tx := range n.store.Load().Pending.Transactions {
		if tx.Hash() == hash {
			return true
		}
	}
	return false
}

// A pre-confirmed transaction is traced on the head state after the
// pre-confirmed transactions before it, and its trace is the one it has
// once sealed; debug_traceBlockByNumber("pending") traces the pre-confirmed
// block so far, and debug_traceCall runs on the pre-confirmed state.
func TestTracePreconfirmed(t *testing.T) {
	n := newTestNode(t, 2*time.Second, 20*time.Millisecond)
	n.waitNewBlock()
	// The contract is deployed and called in the same pre-confirmed block:
	// the call's trace needs the deployment's state.
	var nonce hexutil.Uint64
	n.result(&nonce, "eth_getTransactionCount", n.addr(4), "pending")
	contract := crypto.CreateAddress(n.addr(4), uint64(nonce))
	deploy := n.send(4, nil, new(big.Int), 200_000, deployCode(answerRuntime))
	call := n.send(4, &contract, new(big.Int), 100_000, nil)
	waitFor(t, "both transactions pre-confirmed", func() bool { return n.isPending(deploy) && n.isPending(call) })

	preconfirmed := map[bool]rpcResponse{ // by callTracer or not
		true:  n.call("debug_traceTransaction", call, callTracer),
		false: n.call("debug_traceTransaction", call, nil),
	}
	var block []struct {
		TxHash common.Hash     `json:"txHash"`
		Result json.RawMessage `json:"result"`
	}
	n.result(&block, "debug_traceBlockByNumber", "pending", callTracer)
	var onPending, beforeDeploy, afterDeploy callFrame
	n.result(&onPending, "debug_traceCall", map[string]any{"to": contract}, "pending", callTracer)
	n.result(&beforeDeploy, "debug_traceCall", map[string]any{"to": contract}, "pending", map[string]any{"tracer": "callTracer", "txIndex": "0x0"})
	n.result(&afterDeploy, "debug_traceCall", map[string]any{"to": contract}, "pending", map[string]any{"tracer": "callTracer", "txIndex": "0x1"})
	if !n.isPending(call) {
		t.Fatal("the block sealed while the test traced its pre-confirmed transactions: rerun")
	}

	var frame callFrame
	if err := json.Unmarshal(preconfirmed[true].Result, &frame); err != nil {
		t.Fatalf("pre-confirmed call's trace %+v: %v", preconfirmed[true], err)
	}
	if frame.To != contract || new(big.Int).SetBytes(frame.Output).Int64() != 42 || frame.Error != "" {
		t.Errorf("pre-confirmed call's trace: %+v, want a call to %s returning 42", frame, contract)
	}
	if len(block) != 2 || block[0].TxHash != deploy || block[1].TxHash != call {
		t.Fatalf("pending block trace: %+v, want the deployment and the call", block)
	}
	if onPending.To != contract || new(big.Int).SetBytes(onPending.Output).Int64() != 42 {
		t.Errorf("traceCall on pending: %+v, want the pre-confirmed contract's 42", onPending)
	}
	if len(beforeDeploy.Output) != 0 || new(big.Int).SetBytes(afterDeploy.Output).Int64() != 42 {
		t.Errorf("traceCall on pending before transaction 0 %+v (want no code), before transaction 1 %+v (want 42)", beforeDeploy, afterDeploy)
	}
	var latest callFrame
	n.result(&latest, "debug_traceCall", map[string]any{"to": contract}, "latest", callTracer)
	if len(latest.Output) != 0 {
		t.Errorf("traceCall on latest reached the pre-confirmed contract: %+v", latest)
	}

	// Once sealed, the same transactions trace the same.
	n.waitSealed(call)
	for _, cfg := range []map[string]any{callTracer, nil} {
		sealed, pre := n.call("debug_traceTransaction", call, cfg), preconfirmed[cfg != nil]
		if sealed.Error != nil || pre.Error != nil || !sameJSON(sealed.Result, pre.Result) {
			t.Errorf("%v: sealed trace %s, pre-confirmed %s", cfg, truncate(sealed.Result), truncate(pre.Result))
		}
	}
	var receipt map[string]any
	n.result(&receipt, "eth_getTransactionReceipt", call)
	var sealedBlock []struct {
		TxHash common.Hash     `json:"txHash"`
		Result json.RawMessage `json:"result"`
	}
	n.result(&sealedBlock, "debug_traceBlockByNumber", receipt["blockNumber"], callTracer)
	if len(sealedBlock) != len(block) || !sameJSON(sealedBlock[1].Result, block[1].Result) {
		t.Errorf("sealed block trace %+v, pre-confirmed %+v", sealedBlock, block)
	}
}

// Bad input answers a clear error, -32602 for bad parameters, with
// go-ethereum's words where it has them.
func TestTraceBadInput(t *testing.T) {
	n := newTestNode(t, 0, 0)
	to := common.HexToAddress("0x00000000000000000000000000000000000c0de0")
	latestTx := map[string]any{"to": to}
	cases := []struct {
		name   string
		method string
		params []any
		code   int
		want   string
	}{
		{"unknown tracer", "debug_traceCall", []any{latestTx, "latest", map[string]any{"tracer": "fooTracer"}}, -32602, `unknown tracer "fooTracer"`},
		{"javascript tracer", "debug_traceCall", []any{latestTx, "latest", map[string]any{"tracer": "{step: function() {}, result: function() {}, fault: function() {}}"}}, -32602, "JavaScript tracers are not served"},
		{"unknown mux sub-tracer", "debug_traceCall", []any{latestTx, "latest", map[string]any{"tracer": "muxTracer", "tracerConfig": map[string]any{"barTracer": map[string]any{}}}}, -32602, `muxTracer: unknown tracer "barTracer"`},
		{"bad tracerConfig", "debug_traceCall", []any{latestTx, "latest", map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"onlyTopCall": "yes"}}}, -32602, "cannot unmarshal string"},
		{"tracerConfig not an object", "debug_traceCall", []any{latestTx, "latest", map[string]any{"tracer": "prestateTracer", "tracerConfig": "diff"}}, -32602, "tracerConfig"},
		{"bad timeout", "debug_traceCall", []any{latestTx, "latest", map[string]any{"timeout": "soon"}}, -32602, `time: invalid duration "soon"`},
		{"config not an object", "debug_traceCall", []any{latestTx, "latest", 5}, -32602, "invalid argument 2"},
		{"bad struct logger option", "debug_traceTransaction", []any{common.Hash{}, map[string]any{"enableMemory": "yes"}}, -32602, "invalid argument 1"},
		{"state and stateDiff", "debug_traceCall", []any{latestTx, "latest", map[string]any{"stateOverrides": map[string]any{to.Hex(): map[string]any{
			"state": map[string]any{}, "stateDiff": map[string]any{}}}}}, -32602, "has both 'state' and 'stateDiff'"},
		{"bad balance override", "debug_traceCall", []any{latestTx, "latest", map[string]any{"stateOverrides": map[string]any{to.Hex(): map[string]any{"balance": "lots"}}}}, -32602, "invalid argument 2"},
		{"bad override address", "debug_traceCall", []any{latestTx, "latest", map[string]any{"stateOverrides": map[string]any{"0x12": map[string]any{}}}}, -32602, "invalid argument 2"},
		{"move a non-precompile", "debug_traceCall", []any{latestTx, "latest", map[string]any{"stateOverrides": map[string]any{to.Hex(): map[string]any{"movePrecompileToAddress": to}}}}, -32602, "is not a precompile"},
		{"beaconRoot override", "debug_traceCall", []any{latestTx, "latest", map[string]any{"blockOverrides": map[string]any{"beaconRoot": common.Hash{}}}}, -32602, `"beaconRoot" is not supported`},
		{"bad block override", "debug_traceCall", []any{latestTx, "latest", map[string]any{"blockOverrides": map[string]any{"number": "ten"}}}, -32602, "invalid argument 2"},
		{"bad call object", "debug_traceCall", []any{map[string]any{"to": "0x12"}, "latest"}, -32602, "invalid argument 0"},
		{"unknown block", "debug_traceCall", []any{latestTx, "0x100"}, -32000, "block #256 not found"},
		{"genesis txIndex", "debug_traceCall", []any{latestTx, "earliest", map[string]any{"txIndex": "0x0"}}, -32000, "genesis is not traceable"},
		{"too many arguments", "debug_traceCall", []any{latestTx, "latest", nil, nil}, -32602, "too many arguments"},
		{"unknown transaction", "debug_traceTransaction", []any{common.HexToHash("0xdead")}, -32000, "transaction not found"},
		{"bad hash", "debug_traceTransaction", []any{"0x1234"}, -32602, "invalid argument 0"},
		{"missing hash", "debug_traceTransaction", []any{}, -32602, "missing value for required argument 0"},
		{"genesis block", "debug_traceBlockByNumber", []any{"earliest"}, -32000, "genesis is not traceable"},
		{"future block", "debug_traceBlockByNumber", []any{"0x100"}, -32000, "block #256 not found"},
		{"hash to ByNumber", "debug_traceBlockByNumber", []any{common.HexToHash("0xdead")}, -32602, "invalid argument 0"},
		{"missing block", "debug_traceBlockByNumber", []any{}, -32602, "missing value for required argument 0"},
		{"unknown block hash", "debug_traceBlockByHash", []any{common.HexToHash("0xdead")}, -32000, "block 0x000000000000000000000000000000000000000000000000000000000000dead not found"},
		{"block tracer unknown", "debug_traceBlockByHash", []any{common.HexToHash("0xdead"), map[string]any{"tracer": "x"}}, -32602, `unknown tracer "x"`},
	}
	for _, c := range cases {
		resp := n.call(c.method, c.params...)
		switch {
		case resp.Error == nil:
			t.Errorf("%s: result %s, want an error", c.name, truncate(resp.Result))
		case resp.Error.Code != c.code || !strings.Contains(resp.Error.Message, c.want):
			t.Errorf("%s: error %d %q, want %d with %q", c.name, resp.Error.Code, resp.Error.Message, c.code, c.want)
		}
	}
	// An empty tracer name is the struct logger, as the execution-apis say.
	var res struct {
		StructLogs []json.RawMessage `json:"structLogs"`
	}
	n.result(&res, "debug_traceCall", latestTx, "latest", map[string]any{"tracer": ""})
	if res.StructLogs == nil {
		t.Error(`tracer "" is not the struct logger`)
	}
}

// spinCode loops until its gas runs out: JUMPDEST PUSH1 0 JUMP.
const spinCode = "0x5b600056"

// identityLoopCode calls the identity precompile with 32 KiB of memory
// until its gas runs out: a callTracer would copy 32 KiB per call.
const identityLoopCode = "0x5b" + "6000" + "6000" + "618000" + "6000" + "6000" + "6004" + "5a" + "f1" + "50" + "6000" + "56"

// keccakLoopCode hashes a new 32-byte word a turn until its gas runs out:
// the preimage tracers keep every one.
const keccakLoopCode = "0x5f5b600101805f5260205f2050600156"

// A trace never answers more than the response may hold: the struct
// logger stops recording past it, call tracers stop the EVM, and the error
// says what to ask instead; a limit the client sets is honoured.
func TestTraceResultBounded(t *testing.T) {
	const room = 64 << 10
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond, func(tc *testConfig) { tc.rpc.BatchResponseLimit = room })
	spinner := common.HexToAddress("0x0000000000000000000000000000000000005917")
	caller := common.HexToAddress("0x000000000000000000000000000000000000ca11")
	hasher := common.HexToAddress("0x000000000000000000000000000000000000ca5e")
	overrides := map[string]any{spinner.Hex(): map[string]any{"code": spinCode}, caller.Hex(): map[string]any{"code": identityLoopCode},
		hasher.Hex(): map[string]any{"code": keccakLoopCode}}
	trace := func(to common.Address, cfg map[string]any) rpcResponse {
		cfg["stateOverrides"] = overrides
		return n.call("debug_traceCall", map[string]any{"to": to, "gas": "0x100000"}, "latest", cfg)
	}
	for _, c := range []struct {
		name string
		to   common.Address
		cfg  map[string]any
	}{
		{"struct logger", spinner, map[string]any{}},
		{"struct logger with memory", caller, map[string]any{"enableMemory": true}},
		{"callTracer", caller, map[string]any{"tracer": "callTracer"}},
		{"flatCallTracer", caller, map[string]any{"tracer": "flatCallTracer", "tracerConfig": map[string]any{"includePrecompiles": true}}},
		{"muxTracer", caller, map[string]any{"tracer": "muxTracer", "tracerConfig": map[string]any{"callTracer": map[string]any{}}}},
		{"keccak256PreimageTracer", hasher, map[string]any{"tracer": "keccak256PreimageTracer"}},
		{"erc7562Tracer", hasher, map[string]any{"tracer": "erc7562Tracer"}},
	} {
		resp := trace(c.to, c.cfg)
		switch {
		case resp.Error == nil:
			t.Errorf("%s: %d bytes answered, over the %d-byte response limit", c.name, len(resp.Result), room)
		case resp.Error.Code != -32003 || !strings.Contains(resp.Error.Message, `"limit"`) || !strings.Contains(resp.Error.Message, "native tracer"):
			t.Errorf("%s: error %d %q, want -32003 naming the limit option and native tracers", c.name, resp.Error.Code, resp.Error.Message)
		}
	}
	// Within a limit the client sets, or with a tracer that records little
	// (flatCallTracer leaves calls to precompiles out).
	for _, cfg := range []map[string]any{{"limit": 4096}, {"tracer": "callTracer", "tracerConfig": map[string]any{"onlyTopCall": true}},
		{"tracer": "4byteTracer"}, {"tracer": "flatCallTracer"}} {
		if resp := trace(caller, cfg); resp.Error != nil || len(resp.Result) > room {
			t.Errorf("%v: %v, %d bytes", cfg, resp.Error, len(resp.Result))
		}
	}
	// A block's transactions share the response: two creations that spin
	// until their gas runs out.
	n.send(0, nil, new(big.Int), 300_000, loopInit)
	receipt := n.waitSealed(n.send(0, nil, new(big.Int), 300_000, loopInit))
	block := receipt["blockNumber"]
	if resp := n.call("debug_traceBlockByNumber", block, map[string]any{}); resp.Error == nil || resp.Error.Code != -32003 {
		t.Errorf("struct logs of a block of spinning transactions: %+v, want -32003", resp.Error)
	}
	if resp := n.call("debug_traceBlockByNumber", block, map[string]any{"limit": 1000}); resp.Error != nil {
		t.Errorf("struct logs with a limit: %s", resp.Error.Message)
	}
	if resp := n.call("debug_traceBlockByNumber", block, callTracer); resp.Error != nil {
		t.Errorf("callTracer: %s", resp.Error.Message)
	}
}

// A trace stops at its timeout with go-ethereum's "execution timeout"; the
// node's --rpc.evmtimeout caps the timeout a request asks for, and the
// request's deadline ends the whole.
func TestTraceTimeouts(t *testing.T) {
	spinner := common.HexToAddress("0x0000000000000000000000000000000000005917")
	spin := func(n *testNode, cfg map[string]any) rpcResponse {
		cfg["tracer"] = "callTracer"
		cfg["stateOverrides"] = map[string]any{spinner.Hex(): map[string]any{"code": spinCode}}
		return n.call("debug_traceCall", map[string]any{"to": spinner, "gas": "0x2faf080"}, "latest", cfg)
	}
	n := newTestNode(t, 0, 0)
	if resp := spin(n, map[string]any{"timeout": "1ms"}); resp.Error == nil || resp.Error.Message != "execution timeout" {
		t.Errorf("timeout 1ms: %+v, want go-ethereum's execution timeout", resp.Error)
	}
	capped := newTestNode(t, 0, 0, func(tc *testConfig) { tc.rpc.EVMTimeout = time.Millisecond })
	if resp := spin(capped, map[string]any{"timeout": "1m"}); resp.Error == nil || !strings.Contains(resp.Error.Message, "--rpc.evmtimeout") {
		t.Errorf("timeout 1m on a node capped at 1ms: %+v, want the cap named", resp.Error)
	}
	deadline := newTestNode(t, 0, 0, func(tc *testConfig) { tc.rpc.RequestTimeout = 20 * time.Millisecond })
	if resp := spin(deadline, map[string]any{"timeout": "1m"}); resp.Error == nil || resp.Error.Code != -32002 {
		t.Errorf("request past its deadline: %+v, want -32002", resp.Error)
	}
}

// crashTracers are tracers that took the node down when stopped: their
// Stop was nil (keccak256PreimageTracer's) or called one that was (a
// muxTracer's over it).
var crashTracers = []map[string]any{
	{"tracer": "keccak256PreimageTracer"},
	{"tracer": "muxTracer", "tracerConfig": map[string]any{"keccak256PreimageTracer": map[string]any{}}},
	{"tracer": "muxTracer", "tracerConfig": map[string]any{"callTracer": map[string]any{}, "muxTracer": map[string]any{"keccak256PreimageTracer": map[string]any{}}}},
}

// The black-box test's request: one unauthenticated debug_traceCall whose
// timeout stopped a tracer without a Stop, in the timer's goroutine,
// outside any recover: the node died. It answers the timeout now, and
// serves on.
func TestTraceTimeoutOfEveryTracer(t *testing.T) {
	n := newTestNode(t, 0, 0)
	const curl = `{"jsonrpc":"2.0","id":1,"method":"debug_traceCall","params":[{"to":"0x00000000000000000000000000000000000c0de1","gas":"0x2faf080"},"latest",` +
		`{"tracer":"keccak256PreimageTracer","timeout":"1ms","stateOverrides":{"0x00000000000000000000000000000000000c0de1":{"code":"0x5b600056"}}}]}`
	var resp rpcResponse
	if err := json.Unmarshal([]byte(n.raw(curl)), &resp); err != nil || resp.Error == nil || resp.Error.Message != "execution timeout" {
		t.Errorf("the black-box request: %+v (%v), want execution timeout", resp.Error, err)
	}
	spinner := common.HexToAddress("0x00000000000000000000000000000000000c0de1")
	for _, cfg := range crashTracers {
		cfg["timeout"] = "1ms"
		cfg["stateOverrides"] = map[string]any{spinner.Hex(): map[string]any{"code": spinCode}}
		resp := n.call("debug_traceCall", map[string]any{"to": spinner, "gas": "0x2faf080"}, "latest", cfg)
		if resp.Error == nil || resp.Error.Message != "execution timeout" {
			t.Errorf("%v: %+v, want execution timeout", cfg["tracerConfig"], resp.Error)
		}
	}
	var head hexutil.Uint64
	n.result(&head, "eth_blockNumber")
}

// A trace whose client hangs up is stopped by the call pool's monitor, in
// its goroutine: under these tracers, that too ended the node.
func TestTraceStopsWhenClientLeaves(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) {
		c := &tc.rpc
		c.EVMTimeout, c.GasCap = time.Minute, 1<<40
	})
	spinner := common.HexToAddress("0x00000000000000000000000000000000000c0de1")
	for _, cfg := range crashTracers {
		cfg["timeout"] = "1m"
		cfg["stateOverrides"] = map[string]any{spinner.Hex(): map[string]any{"code": spinCode}}
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "debug_traceCall",
			"params": []any{map[string]any{"to": spinner, "gas": hexutil.Uint64(1 << 40)}, "latest", cfg}})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := n.srv.HandleFrom(peer.FromConn(hungUp(t)), Standard, body, nil, nil)
		if !strings.Contains(string(out), callbound.ErrGone.Error()) {
			t.Errorf("%v: %s, want %q", cfg["tracerConfig"], out, callbound.ErrGone)
		}
	}
	var head hexutil.Uint64
	n.result(&head, "eth_blockNumber")
}

// hungUp is the server's end of a connection whose client has closed it.
func hungUp(t *testing.T) net.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	client.Close()
	return server
}

// A full node's pruned states answer the chain's clear error.
func TestTracePrunedState(t *testing.T) {
	n := newTestNode(t, 2*time.Millisecond, 2*time.Millisecond, func(tc *testConfig) {
		tc.chain.GCMode, tc.chain.StateHistory = chain.GCFull, 2
	})
	waitFor(t, "140 blocks", func() bool { return n.store.Load().Head.NumberU64() >= 140 })
	for _, params := range [][]any{
		{"debug_traceBlockByNumber", "0x2"},
		{"debug_traceCall", map[string]any{"to": n.addr(1)}, "0x2"},
	} {
		resp := n.call(params[0].(string), params[1:]...)
		if resp.Error == nil || !strings.Contains(resp.Error.Message, "pruned") || !strings.Contains(resp.Error.Message, "--gcmode archive") {
			t.Errorf("%v: %+v, want the pruned-state error", params, resp.Error)
		}
	}
	recent := fmt.Sprintf("%#x", n.store.Load().Head.NumberU64()-5)
	if resp := n.call("debug_traceBlockByNumber", recent, callTracer); resp.Error != nil {
		t.Errorf("recent block %s: %s", recent, resp.Error.Message)
	}
}
