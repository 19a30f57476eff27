package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/rpc"

	tc "github.com/stocknode/stocknode/conformance/internal/fixturechain"
	"github.com/stocknode/stocknode/node/tracing/tracingtest"
)

// The debug_trace fixtures' expected results are go-ethereum's own tracing
// API (eth/tracers.API with its native tracers and struct logger) over the
// imported core.BlockChain: go-ethereum's code, no node's RPC server.

// gasCap is geth's default --rpc.gascap, which debug_traceCall's gas
// defaults to.
const gasCap = 50_000_000

// tracer is a TraceConfig; nil: none sent (the struct logger).
type tracer = obj

var (
	structLogger      tracer = nil
	callTracer               = tracer{"tracer": "callTracer"}
	callTracerWithLog        = tracer{"tracer": "callTracer", "tracerConfig": obj{"withLog": true}}
	prestate                 = tracer{"tracer": "prestateTracer"}
	prestateDiff             = tracer{"tracer": "prestateTracer", "tracerConfig": obj{"diffMode": true}}
)

// traceJSON decodes cfg as go-ethereum's RPC server would.
func traceJSON[T any](cfg obj) *T {
	if cfg == nil {
		return nil
	}
	v := new(T)
	if err := json.Unmarshal(marshal(cfg), v); err != nil {
		panic(err)
	}
	return v
}

// traceResult is go-ethereum's answer, which must not be an error.
func traceResult(what string, res any, err error) json.RawMessage {
	if err != nil {
		panic(fmt.Sprintf("%s: go-ethereum's tracer: %v", what, err))
	}
	return marshal(res)
}

// traceParams are the request's parameters: cfg only when it is not nil.
func traceParams(first any, cfg tracer, more ...any) []any {
	params := append([]any{first}, more...)
	if cfg != nil {
		params = append(params, cfg)
	}
	return params
}

func (g *gen) traceCases() {
	api := tracingtest.New(g.bc, gasCap)
	g.traceTransactionCases(api)
	g.traceBlockCases(api)
	g.traceCallCases(api)
}

func (g *gen) traceTransactionCases(api *tracingtest.API) {
	m := "debug_traceTransaction"
	traced := func(block, index int, cfg tracer) (string, json.RawMessage) {
		hash := g.tx(block, index).Hash()
		res, err := api.TraceTransaction(context.Background(), hash, traceJSON[tracers.TraceConfig](cfg))
		return hash.Hex(), traceResult(hash.Hex(), res, err)
	}
	tx := func(name, comment string, block, index int, cfg tracer) {
		hash, res := traced(block, index, cfg)
		g.add(m, name, comment, res, traceParams(hash, cfg)...)
	}
	tx("trace-legacy-transfer", "struct logger (no tracer): a transfer executes no code", tc.BlockTransfers, 0, structLogger)
	tx("trace-contract-call", "struct logger: C.set(42) (SSTOREs: storage keys and values are 0x-prefixed 32-byte words)", tc.BlockSetAndEmit, 0, structLogger)
	tx("trace-revert", "struct logger: C.fail() reverts with Error(\"boom\"): failed, the revert data as returnValue", tc.BlockFailures, 0, structLogger)
	tx("trace-create", "struct logger: A deploys C (the constructor's steps)", tc.BlockDeploy, 0, structLogger)
	tx("trace-memory-return-data", "struct logger with memory (0x-prefixed 32-byte words) and return data", tc.BlockSetAndEmit, 1, tracer{"enableMemory": true, "enableReturnData": true})
	tx("trace-disable-stack-storage", "struct logger without stack and storage", tc.BlockSetAndEmit, 0, tracer{"disableStack": true, "disableStorage": true})
	// The execution-apis: an empty tracer name is the struct logger (geth
	// evaluates it as JavaScript).
	hash, res := traced(tc.BlockSetAndEmit, 0, structLogger)
	g.add(m, "trace-empty-tracer-name", "an empty tracer name is the struct logger", res, hash, tracer{"tracer": ""})
	tx("calltracer-simple-transfer", "", tc.BlockTransfers, 0, callTracer)
	tx("calltracer-access-list-transfer", "an EIP-2930 transfer", tc.BlockTransfers, 1, callTracer)
	tx("calltracer-contract-call", "C.set(42)", tc.BlockSetAndEmit, 0, callTracer)
	tx("calltracer-create", "a 1559 contract creation: type CREATE, the runtime code as output", tc.BlockDeploy, 0, callTracer)
	tx("calltracer-legacy-create", "a legacy contract creation", tc.BlockLegacyCreate, 0, callTracer)
	tx("calltracer-revert-reason", "C.fail(): error and revertReason", tc.BlockFailures, 0, callTracer)
	tx("calltracer-revert-no-data", "C.failSilently(): reverted without data", tc.BlockFailures, 1, callTracer)
	tx("calltracer-with-log", "C.emitPair(1,2) with withLog: the log with its position (index)", tc.BlockSetAndEmit, 1, callTracerWithLog)
	tx("calltracer-only-top-call", "", tc.BlockLogs, 2, tracer{"tracer": "callTracer", "tracerConfig": obj{"onlyTopCall": true}})
	tx("calltracer-set-code", "an EIP-7702 transaction whose call runs the delegated code", tc.BlockSetCode, 0, callTracerWithLog)
	tx("calltracer-blob", "a blob transaction", tc.BlockBlob, 0, callTracer)
	tx("calltracer-delegated-call", "D.emitPair(5,6): D delegates to C", tc.BlockLogs, 2, callTracerWithLog)
	tx("prestatetracer-contract-call", "the accounts and slots C.set(42) reads", tc.BlockSetAndEmit, 0, prestate)
	tx("prestatetracer-diff-mode", "pre and post of what C.set(42) changes", tc.BlockSetAndEmit, 0, prestateDiff)
	tx("prestatetracer-diff-mode-create", "a creation's post state holds the new code", tc.BlockDeploy, 0, prestateDiff)
	tx("prestatetracer-diff-mode-set-code", "an EIP-7702 delegation's post state holds the delegation designator", tc.BlockSetCode, 0, prestateDiff)
	tx("prestatetracer-disable-code-storage", "", tc.BlockSetAndEmit, 0, tracer{"tracer": "prestateTracer", "tracerConfig": obj{"disableCode": true, "disableStorage": true}})
	tx("4bytetracer-contract-call", "the selector and calldata size of C.emitPair(3,4)", tc.BlockLogs, 0, tracer{"tracer": "4byteTracer"})
	tx("noop-tracer", "", tc.BlockSetAndEmit, 0, tracer{"tracer": "noopTracer"})
	tx("flatcalltracer-revert", "", tc.BlockFailures, 0, tracer{"tracer": "flatCallTracer"})
	tx("muxtracer", "callTracer and 4byteTracer at once", tc.BlockSetAndEmit, 0,
		tracer{"tracer": "muxTracer", "tracerConfig": obj{"callTracer": obj{}, "4byteTracer": obj{}}})

	last := g.tx(tc.BlockLast, 1).Hash().Hex()
	g.addErr(m, "trace-unknown-tx", "a hash no block holds", obj{"code": -32000, "message": "transaction not found"}, unknownHash)
	g.addErr(m, "trace-unknown-tracer", "a tracer name the node does not have", obj{"code": -32602, "message": "unknown tracer"}, last, tracer{"tracer": "noSuchTracer"})
	g.addErr(m, "trace-bad-tracer-config", "a tracerConfig the tracer cannot decode", errInvalidParams, last, tracer{"tracer": "callTracer", "tracerConfig": obj{"onlyTopCall": "yes"}})
	g.addErr(m, "trace-bad-timeout", "a timeout that is not a duration", errInvalidParams, last, tracer{"timeout": "soon"})
	g.addErr(m, "trace-invalid-hash", "", errInvalidParams, "0x1234")
}

func (g *gen) traceBlockCases(api *tracingtest.API) {
	ctx := context.Background()
	m := "debug_traceBlockByNumber"
	byNumber := func(name, comment string, block any, number rpc.BlockNumber, cfg tracer) {
		res, err := api.TraceBlockByNumber(ctx, number, traceJSON[tracers.TraceConfig](cfg))
		g.add(m, name, comment, traceResult(name, res, err), traceParams(block, cfg)...)
	}
	byNumber("trace-block-struct-logger", "both transactions of block 4, struct logger", bn(tc.BlockSetAndEmit), tc.BlockSetAndEmit, structLogger)
	byNumber("trace-block-failures", "two reverted transactions", bn(tc.BlockFailures), tc.BlockFailures, structLogger)
	byNumber("calltracer-block", "", bn(tc.BlockLogs), tc.BlockLogs, callTracerWithLog)
	byNumber("calltracer-block-creations", "", bn(tc.BlockDeploy), tc.BlockDeploy, callTracer)
	byNumber("prestatetracer-diff-mode-block", "each transaction's diff on the state the previous one left", bn(tc.BlockLogs), tc.BlockLogs, prestateDiff)
	byNumber("trace-block-empty", "a block without transactions traces to []", bn(tc.BlockEmpty), tc.BlockEmpty, callTracer)
	byNumber("trace-block-latest", "", "latest", rpc.LatestBlockNumber, callTracer)
	g.addErr(m, "trace-block-genesis", "the genesis has no parent state", obj{"code": -32000, "message": "genesis is not traceable"}, "0x0")
	g.addErr(m, "trace-block-future", "", obj{"code": -32000, "message": "block #100 not found"}, "0x64")
	g.addErr(m, "trace-block-unknown-tracer", "", errInvalidParams, bn(tc.BlockLogs), tracer{"tracer": "noSuchTracer"})

	m = "debug_traceBlockByHash"
	byHash := func(name, comment string, n int, cfg tracer) {
		hash := g.blocks[n].Hash()
		res, err := api.TraceBlockByHash(ctx, hash, traceJSON[tracers.TraceConfig](cfg))
		g.add(m, name, comment, traceResult(name, res, err), traceParams(hash.Hex(), cfg)...)
	}
	byHash("trace-block-by-hash", "block 5, struct logger", tc.BlockFailures, structLogger)
	byHash("calltracer-block-by-hash", "block 7: the set-code transaction", tc.BlockSetCode, callTracer)
	byHash("prestatetracer-block-by-hash", "block 8: the blob transaction and a transfer", tc.BlockBlob, prestate)
	g.addErr(m, "trace-block-by-hash-unknown", "", obj{"code": -32000, "message": "block not found"}, unknownHash)
	g.addErr(m, "trace-block-by-hash-genesis", "", obj{"code": -32000, "message": "genesis is not traceable"}, g.bh(0))
}

func (g *gen) traceCallCases(api *tracingtest.API) {
	m := "debug_traceCall"
	A, C := addr(tc.AddrA), addr(tc.C)
	call := func(name, comment string, callObj obj, block any, cfg tracer) {
		var bn rpc.BlockNumberOrHash
		if err := json.Unmarshal(marshal(block), &bn); err != nil {
			panic(err)
		}
		res, err := api.TraceCall(context.Background(), marshal(callObj), bn, traceJSON[tracers.TraceCallConfig](cfg))
		g.add(m, name, comment, traceResult(name, res, err), traceParams(callObj, cfg, block)...)
	}
	get := obj{"from": A, "to": C, "input": data(tc.CallGet())}
	call("trace-call-opcode-default", "C.get() at the head, struct logger", get, "latest", structLogger)
	call("calltracer-call", "C.set(7)", obj{"from": A, "to": C, "input": data(tc.CallSet(7))}, "latest", callTracerWithLog)
	call("calltracer-historical", "C.get() after block 4", get, bn(tc.BlockSetAndEmit), callTracer)
	call("calltracer-block-hash", "EIP-1898 block hash object", get, obj{"blockHash": g.bh(tc.BlockLogs)}, callTracer)
	call("calltracer-revert", "C.fail() traces (not an error): error and revertReason", obj{"from": A, "to": C, "input": data(tc.CallFail())}, "latest", callTracer)
	call("calltracer-create", "a creation with C's init code", obj{"from": A, "input": data(tc.InitCode())}, "latest", callTracer)
	call("calltracer-gas-price", "a legacy-priced value transfer", obj{"from": A, "to": addr(tc.R), "value": "0x1", "gasPrice": "0x3b9aca00"}, "latest", callTracer)
	call("prestatetracer-diff-mode-call", "", obj{"from": A, "to": C, "input": data(tc.CallSet(8))}, "latest", prestateDiff)

	x := common.HexToAddress("0x000000000000000000000000000000000000beef")
	env := []byte{ // return BLOCKHASH(NUMBER-1), NUMBER, BASEFEE
		byte(vm.NUMBER), byte(vm.PUSH1), 1, byte(vm.SWAP1), byte(vm.SUB), byte(vm.BLOCKHASH), byte(vm.PUSH0), byte(vm.MSTORE),
		byte(vm.NUMBER), byte(vm.PUSH1), 0x20, byte(vm.MSTORE), byte(vm.BASEFEE), byte(vm.PUSH1), 0x40, byte(vm.MSTORE),
		byte(vm.PUSH1), 0x60, byte(vm.PUSH0), byte(vm.RETURN),
	}
	call("calltracer-state-override", "a state override of C's slot 0 and of an empty account's balance",
		obj{"from": addr(x), "to": C, "input": data(tc.CallGet()), "value": "0x1"}, "latest",
		tracer{"tracer": "callTracer", "stateOverrides": obj{C: obj{"stateDiff": obj{wordHex(0): wordHex(0x99)}}, addr(x): obj{"balance": "0x10"}}})
	call("calltracer-block-override-next-block", "number overridden to the next block's: BLOCKHASH(head) is the head's hash",
		obj{"to": addr(x)}, "latest",
		tracer{"tracer": "callTracer", "stateOverrides": obj{addr(x): obj{"code": data(env)}},
			"blockOverrides": obj{"number": bn(tc.BlockLast + 1), "baseFeePerGas": "0x7"}})
	call("calltracer-tx-index", "txIndex: on the state before transaction 1 of block 9 (C.set(43))",
		get, bn(tc.BlockLogs), tracer{"tracer": "callTracer", "txIndex": "0x1"})
	call("calltracer-move-precompile", "the identity precompile moved: its address runs no code",
		obj{"to": "0x0000000000000000000000000000000000000004", "input": "0x1234"}, "latest",
		tracer{"tracer": "callTracer", "stateOverrides": obj{"0x0000000000000000000000000000000000000004": obj{"movePrecompileToAddress": addr(x)}}})

	g.addErr(m, "trace-call-unknown-block", "", obj{"code": -32000, "message": "block #100 not found"}, get, "0x64")
	g.addErr(m, "trace-call-bad-override", "state and stateDiff for one account", errInvalidParams, get, "latest",
		tracer{"stateOverrides": obj{C: obj{"state": obj{}, "stateDiff": obj{}}}})
	g.addErr(m, "trace-call-unknown-tracer", "", errInvalidParams, get, "latest", tracer{"tracer": "noSuchTracer"})
	g.addErr(m, "trace-call-invalid-address", "", errInvalidParams, obj{"to": "0x1234"}, "latest")
}
