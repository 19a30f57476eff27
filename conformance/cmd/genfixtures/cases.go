package main

import (
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	tc "github.com/stocknode/stocknode/conformance/internal/fixturechain"
)

// Error objects of the fixtures whose error is matched by presence only: the
// code and message are informational.
var (
	errInvalidParams = obj{"code": -32602, "message": "invalid params"}
	errNoBlock       = obj{"code": -32000, "message": "header not found"}
	errReverted      = obj{"code": -32000, "message": "execution reverted"}
	errRange         = obj{"code": -32000, "message": "invalid block range"}
	errFunds         = obj{"code": -32000, "message": "insufficient funds for transfer"}
)

func (g *gen) cases() {
	g.stateCases()
	g.blockCases()
	g.txCases()
	g.receiptCases()
	g.logCases()
	g.callCases()
	g.feeCases()
	g.miscCases()
	g.traceCases()
	g.poolCases()
	g.proofCases()
	g.rawCases()
	g.simulateCases()
	g.flashCases()
}

func bn(n int) string                        { return q(uint64(n)) }
func (g *gen) bh(n int) string               { return hash(g.blocks[n].Hash()) }
func word(v uint64) common.Hash              { return common.BigToHash(new(big.Int).SetUint64(v)) }
func wordHex(v uint64) string                { return hash(word(v)) }
func addrTopic(a common.Address) common.Hash { return common.BytesToHash(a.Bytes()) }

var unknownHash = "0x00000000000000000000000000000000000000000000000000000000deadbeef"

// ---------------------------------------------------------------- state

func (g *gen) balance(n int, a common.Address) string {
	return qb(g.state(uint64(n)).GetBalance(a).ToBig())
}

func (g *gen) stateCases() {
	head := tc.BlockLast
	A, R, W, D := addr(tc.AddrA), addr(tc.R), addr(tc.W), addr(tc.AddrD)
	m := "eth_getBalance"
	g.add(m, "get-balance-latest", "balance of the main sender at the head", g.balance(head, tc.AddrA), A, "latest")
	g.add(m, "get-balance-earliest", "balance at the genesis block (its alloc)", g.balance(0, tc.AddrA), A, "earliest")
	g.add(m, "get-balance-default-block", "block parameter omitted: defaults to latest", g.balance(head, tc.AddrA), A)
	for _, n := range []int{1, 4, 9} {
		g.add(m, "get-balance-block-"+strconv.Itoa(n), "balance after block "+strconv.Itoa(n)+", by number", g.balance(n, tc.AddrA), A, bn(n))
	}
	g.add(m, "get-balance-withdrawal-recipient", "R after block 6, whose withdrawal credited it", g.balance(6, tc.R), R, bn(6))
	g.add(m, "get-balance-withdrawals-latest", "W at the head: withdrawals (in Gwei) and a transfer", g.balance(head, tc.W), W, "latest")
	g.add(m, "get-balance-coinbase", "the fee recipient collects priority fees", g.balance(head, tc.Coinbase), addr(tc.Coinbase), "latest")
	g.add(m, "get-balance-delegated-eoa", "D, an EOA delegated by EIP-7702", g.balance(head, tc.AddrD), D, "latest")
	g.add(m, "get-balance-contract", "contract C holds nothing", g.balance(head, tc.C), addr(tc.C), "latest")
	g.add(m, "get-balance-unknown-account", "an account that never existed", "0x0", "0x00000000000000000000000000000000deadbeef", "latest")
	g.add(m, "get-balance-block-hash", "block given as a plain block hash", g.balance(6, tc.R), R, g.bh(6))
	g.add(m, "get-balance-block-hash-object", "EIP-1898 block hash object", g.balance(4, tc.AddrA), A, obj{"blockHash": g.bh(4)})
	g.add(m, "get-balance-block-hash-object-require-canonical", "EIP-1898 object with requireCanonical on a canonical block", g.balance(4, tc.AddrA), A, obj{"blockHash": g.bh(4), "requireCanonical": true})
	g.add(m, "get-balance-block-number-object", "EIP-1898 block number object", g.balance(2, tc.AddrA), A, obj{"blockNumber": bn(2)})
	g.addErr(m, "get-balance-unknown-block-hash", "a block hash the chain does not have", errNoBlock, A, unknownHash)
	g.addErr(m, "get-balance-unknown-block-hash-object", "a block hash object the chain does not have", errNoBlock, A, obj{"blockHash": unknownHash})
	g.addErr(m, "get-balance-future-block", "a block number beyond the head", errNoBlock, A, "0x64")
	g.addErr(m, "get-balance-invalid-address", "an address that is not 20 bytes", errInvalidParams, "0x1234", "latest")

	m = "eth_getTransactionCount"
	nonce := func(n int, a common.Address) string { return q(g.state(uint64(n)).GetNonce(a)) }
	g.add(m, "get-nonce-latest", "", nonce(head, tc.AddrA), A, "latest")
	g.add(m, "get-nonce-block-2", "after A's second transaction", nonce(2, tc.AddrA), A, bn(2))
	g.add(m, "get-nonce-earliest", "", "0x0", A, "earliest")
	g.add(m, "get-nonce-delegated-eoa", "D's nonce was bumped by its EIP-7702 authorization", nonce(head, tc.AddrD), D, "latest")
	g.add(m, "get-nonce-contract", "a contract's nonce starts at 1 (EIP-161)", nonce(head, tc.C), addr(tc.C), "latest")
	g.add(m, "get-nonce-block-hash-object", "", nonce(9, tc.AddrB), addr(tc.AddrB), obj{"blockHash": g.bh(9)})
	g.add(m, "get-nonce-unknown-account", "", "0x0", "0x00000000000000000000000000000000deadbeef", "latest")
	g.addErr(m, "get-nonce-future-block", "", errNoBlock, A, "0x64")

	m = "eth_getCode"
	code := func(n int, a common.Address) string { return data(g.state(uint64(n)).GetCode(a)) }
	g.add(m, "get-code-contract", "C's runtime code", code(head, tc.C), addr(tc.C), "latest")
	g.add(m, "get-code-before-deploy", "C before the block that deploys it", "0x", addr(tc.C), bn(1))
	g.add(m, "get-code-legacy-created", "C2, created by a legacy transaction", code(head, tc.C2), addr(tc.C2), "latest")
	g.add(m, "get-code-delegated-eoa", "D's EIP-7702 delegation designator (0xef0100 || C)", code(head, tc.AddrD), D, "latest")
	g.add(m, "get-code-before-delegation", "D before its delegation", "0x", D, bn(6))
	g.add(m, "get-code-eoa", "an EOA has no code", "0x", A, "latest")
	g.add(m, "get-code-system-contract-genesis", "the EIP-2935 history contract in the genesis alloc", code(0, params.HistoryStorageAddress), addr(params.HistoryStorageAddress), "earliest")
	g.add(m, "get-code-block-hash-object", "", code(2, tc.C), addr(tc.C), obj{"blockHash": g.bh(2)})
	g.addErr(m, "get-code-future-block", "", errNoBlock, addr(tc.C), "0x64")

	m = "eth_getStorageAt"
	slot := func(n int, a common.Address, s uint64) string {
		st := g.state(uint64(n)).GetState(a, word(s))
		return hash(st)
	}
	C := addr(tc.C)
	g.add(m, "get-storage-latest", "C's slot 0 (last set(45))", slot(head, tc.C, 0), C, "0x0", "latest")
	g.add(m, "get-storage-constructor", "slot 0 as the constructor left it", slot(2, tc.C, 0), C, "0x0", bn(2))
	g.add(m, "get-storage-block-4", "slot 0 after set(42)", slot(4, tc.C, 0), C, "0x0", bn(4))
	g.add(m, "get-storage-slot-1", "slot 1 holds the block number of the last set", slot(head, tc.C, 1), C, "0x1", "latest")
	g.add(m, "get-storage-empty-slot", "a slot never written reads as 32 zero bytes", slot(head, tc.C, 2), C, "0x2", "latest")
	g.add(m, "get-storage-delegated-eoa", "D's own storage, written through its delegation", slot(head, tc.AddrD, 0), D, "0x0", "latest")
	g.add(m, "get-storage-legacy-created", "", slot(head, tc.C2, 0), addr(tc.C2), "0x0", "latest")
	g.add(m, "get-storage-unknown-account", "", wordHex(0), "0x00000000000000000000000000000000deadbeef", "0x0", "latest")
	g.add(m, "get-storage-block-hash-object", "", slot(9, tc.C, 0), C, "0x0", obj{"blockHash": g.bh(9)})
	g.addErr(m, "get-storage-invalid-key-too-large", "a storage key longer than 32 bytes", errInvalidParams, C, "0x"+string(make65('0')), "latest")
	g.addErr(m, "get-storage-invalid-key", "a storage key that is not hex", errInvalidParams, C, "0xasdf", "latest")
}

func make65(c byte) []byte {
	b := make([]byte, 65)
	for i := range b {
		b[i] = c
	}
	return b
}

// ---------------------------------------------------------------- blocks

func (g *gen) blockCases() {
	m := "eth_getBlockByNumber"
	g.add(m, "get-genesis", "the genesis block: every fork through Prague active", g.blockJSON(g.blocks[0], false), "0x0", false)
	g.add(m, "get-earliest-full", "", g.blockJSON(g.blocks[0], true), "earliest", true)
	g.add(m, "get-latest", "", g.blockJSON(g.head(), false), "latest", false)
	g.add(m, "get-latest-full", "", g.blockJSON(g.head(), true), "latest", true)
	g.add(m, "get-block-fork-boundary", "block 1, the first block executed under the Prague rules (forks activate at genesis):\nlegacy and access-list transfers, withdrawals root, parent beacon root, requests hash", g.blockJSON(g.blocks[1], true), "0x1", true)
	g.add(m, "get-block-contract-creation", "block 2: a 1559 contract creation and a withdrawal", g.blockJSON(g.blocks[2], true), "0x2", true)
	g.add(m, "get-block-with-logs", "block 4", g.blockJSON(g.blocks[4], true), "0x4", true)
	g.add(m, "get-block-failed-txs", "block 5: two reverted transactions", g.blockJSON(g.blocks[5], true), "0x5", true)
	g.add(m, "get-block-empty-withdrawals", "block 6: no transactions, two withdrawals", g.blockJSON(g.blocks[6], false), "0x6", false)
	g.add(m, "get-block-setcode", "block 7: an EIP-7702 transaction", g.blockJSON(g.blocks[7], true), "0x7", true)
	g.add(m, "get-block-blob", "block 8: a blob transaction (blobGasUsed)", g.blockJSON(g.blocks[8], true), "0x8", true)
	g.add(m, "get-block-hashes", "block 9 with transaction hashes only", g.blockJSON(g.blocks[9], false), "0x9", false)
	g.add(m, "get-block-notfound", "a block beyond the head is null", nil, "0x64", false)
	g.addErr(m, "get-block-missing-hydrated", "the hydrated flag is required", errInvalidParams, "0x1")
	g.addErr(m, "get-block-invalid-number", "", errInvalidParams, "0xzz", false)

	m = "eth_getBlockByHash"
	g.add(m, "get-block-by-hash-full", "", g.blockJSON(g.blocks[9], true), g.bh(9), true)
	g.add(m, "get-block-by-hash", "", g.blockJSON(g.blocks[2], false), g.bh(2), false)
	g.add(m, "get-genesis-by-hash", "", g.blockJSON(g.blocks[0], false), g.bh(0), false)
	g.add(m, "get-block-by-hash-notfound", "", nil, unknownHash, false)
	g.addErr(m, "get-block-by-hash-invalid", "a hash that is not 32 bytes", errInvalidParams, "0x1234", false)

	m = "eth_getBlockTransactionCountByNumber"
	count := func(n int) string { return q(uint64(len(g.blocks[n].Transactions()))) }
	g.add(m, "get-count-block-9", "", count(9), bn(9))
	g.add(m, "get-count-empty-block", "", count(6), bn(6))
	g.add(m, "get-count-latest", "", count(tc.BlockLast), "latest")
	g.add(m, "get-count-earliest", "", "0x0", "earliest")
	g.add(m, "get-count-notfound", "", nil, "0x64")

	m = "eth_getBlockTransactionCountByHash"
	g.add(m, "get-count-by-hash", "", count(9), g.bh(9))
	g.add(m, "get-count-by-hash-block-1", "", count(1), g.bh(1))
	g.add(m, "get-count-by-hash-notfound", "", nil, unknownHash)
}

// ---------------------------------------------------------------- transactions

func (g *gen) txCases() {
	m := "eth_getTransactionByHash"
	for _, c := range []struct {
		name, comment string
		block, index  int
	}{
		{"get-legacy-tx", "a legacy (EIP-155) transfer", 1, 0},
		{"get-access-list-tx", "an EIP-2930 transfer with an access list", 1, 1},
		{"get-dynamic-fee-create", "an EIP-1559 contract creation: to is null", 2, 0},
		{"get-legacy-create", "a legacy contract creation", 3, 0},
		{"get-dynamic-fee-call", "an EIP-1559 call: gasPrice is the effective gas price", 4, 0},
		{"get-access-list-call", "an EIP-2930 call with storage keys", 4, 1},
		{"get-failed-tx", "a transaction that reverted", 5, 0},
		{"get-setcode-tx", "an EIP-7702 transaction with its authorization list", 7, 0},
		{"get-blob-tx", "an EIP-4844 transaction (no sidecar)", 8, 0},
		{"get-legacy-call", "a legacy contract call", 12, 0},
	} {
		g.add(m, c.name, c.comment, g.txJSON(g.blocks[c.block], c.index), hash(g.tx(c.block, c.index).Hash()))
	}
	g.add(m, "get-notfound-tx", "an unknown transaction is null", nil, unknownHash)
	g.addErr(m, "get-invalid-hash", "", errInvalidParams, "0x1234")

	m = "eth_getTransactionByBlockNumberAndIndex"
	g.add(m, "get-block-1-index-0", "", g.txJSON(g.blocks[1], 0), bn(1), "0x0")
	g.add(m, "get-block-9-index-2", "", g.txJSON(g.blocks[9], 2), bn(9), "0x2")
	g.add(m, "get-latest-index-1", "", g.txJSON(g.head(), 1), "latest", "0x1")
	g.add(m, "get-index-out-of-range", "", nil, bn(4), "0x5")
	g.add(m, "get-block-notfound", "", nil, "0x64", "0x0")

	m = "eth_getTransactionByBlockHashAndIndex"
	g.add(m, "get-block-4-index-1", "", g.txJSON(g.blocks[4], 1), g.bh(4), "0x1")
	g.add(m, "get-blob-by-hash-and-index", "", g.txJSON(g.blocks[8], 0), g.bh(8), "0x0")
	g.add(m, "get-index-out-of-range", "", nil, g.bh(4), "0x9")
	g.add(m, "get-block-notfound", "", nil, unknownHash, "0x0")
}

func (g *gen) receiptCases() {
	m := "eth_getTransactionReceipt"
	for _, c := range []struct {
		name, comment string
		block, index  int
	}{
		{"get-legacy-receipt", "a legacy transfer", 1, 0},
		{"get-access-list-receipt", "an EIP-2930 transfer (second in its block: cumulative gas)", 1, 1},
		{"get-dynamic-fee-create", "an EIP-1559 contract creation: contractAddress set, to null", 2, 0},
		{"get-legacy-create", "a legacy contract creation", 3, 0},
		{"get-dynamic-fee-logs", "an EIP-1559 call that emits a log", 4, 0},
		{"get-access-list-logs", "an EIP-2930 call whose log has three topics", 4, 1},
		{"get-failed-revert-reason", "status 0: reverted with Error(\"boom\")", 5, 0},
		{"get-failed-legacy", "status 0: a legacy call that reverted without data", 5, 1},
		{"get-setcode-tx", "an EIP-7702 transaction; the log comes from the delegated EOA", 7, 0},
		{"get-blob-tx", "an EIP-4844 transaction: blobGasUsed and blobGasPrice", 8, 0},
		{"get-log-index", "second transaction of block 9: its log index continues the block's count", 9, 1},
		{"get-legacy-call", "a legacy call with a log", 12, 0},
	} {
		g.add(m, c.name, c.comment, g.receiptJSON(g.blocks[c.block], c.index), hash(g.tx(c.block, c.index).Hash()))
	}
	g.add(m, "get-notfound-tx", "an unknown transaction's receipt is null", nil, unknownHash)

	m = "eth_getBlockReceipts"
	receipts := func(n int) []any {
		out := []any{}
		for i := range g.blocks[n].Transactions() {
			out = append(out, g.receiptJSON(g.blocks[n], i))
		}
		return out
	}
	g.add(m, "get-block-receipts-by-number", "", receipts(4), bn(4))
	g.add(m, "get-block-receipts-by-hash", "", receipts(9), g.bh(9))
	g.add(m, "get-block-receipts-latest", "", receipts(tc.BlockLast), "latest")
	g.add(m, "get-block-receipts-failed", "", receipts(5), bn(5))
	g.add(m, "get-block-receipts-blob", "", receipts(8), bn(8))
	g.add(m, "get-block-receipts-empty", "a block without transactions has no receipts", []any{}, bn(6))
	g.add(m, "get-block-receipts-earliest", "", []any{}, "earliest")
	g.add(m, "get-block-receipts-notfound", "", nil, "0x64")
}

// ---------------------------------------------------------------- logs

func (g *gen) logCases() {
	m := "eth_getLogs"
	head := uint64(tc.BlockLast)
	C, C2, D := tc.C, tc.C2, tc.AddrD
	set, pair := tc.TopicSet, tc.TopicPair
	g.add(m, "all-logs", "every log of the chain", g.logs(logFilter{from: 0, to: head}), obj{"fromBlock": "0x0", "toBlock": "latest"})
	g.add(m, "contract-addr", "logs of one contract over the chain", g.logs(logFilter{from: 0, to: head, addrs: []common.Address{C}}), obj{"fromBlock": "earliest", "toBlock": "latest", "address": addr(C)})
	g.add(m, "address-list", "logs of any of two addresses", g.logs(logFilter{from: 0, to: head, addrs: []common.Address{C2, D}}), obj{"fromBlock": "0x0", "toBlock": "latest", "address": []any{addr(C2), addr(D)}})
	g.add(m, "topic-exact-match", "", g.logs(logFilter{from: 0, to: head, topics: [][]common.Hash{{set}}}), obj{"fromBlock": "0x0", "toBlock": "latest", "topics": []any{hash(set)}})
	g.add(m, "topic-null-wildcard", "null matches anything in position 0", g.logs(logFilter{from: 0, to: head, topics: [][]common.Hash{nil, {word(1)}}}), obj{"fromBlock": "0x0", "toBlock": "latest", "topics": []any{nil, wordHex(1)}})
	g.add(m, "topic-or-list", "an array matches any of its topics", g.logs(logFilter{from: 0, to: head, topics: [][]common.Hash{{set, pair}}}), obj{"fromBlock": "0x0", "toBlock": "latest", "topics": []any{[]any{hash(set), hash(pair)}}})
	g.add(m, "topic-exact-and-or", "", g.logs(logFilter{from: 0, to: head, topics: [][]common.Hash{{pair}, {word(1), word(3)}}}), obj{"fromBlock": "0x0", "toBlock": "latest", "topics": []any{hash(pair), []any{wordHex(1), wordHex(3)}}})
	g.add(m, "topic-third-position", "a null wildcard between two constrained positions", g.logs(logFilter{from: 0, to: head, topics: [][]common.Hash{{pair}, nil, {word(2), word(9)}}}), obj{"fromBlock": "0x0", "toBlock": "latest", "topics": []any{hash(pair), nil, []any{wordHex(2), wordHex(9)}}})
	g.add(m, "topic-indexed-address", "Set events whose indexed caller is B", g.logs(logFilter{from: 0, to: head, topics: [][]common.Hash{{set}, {addrTopic(tc.AddrB)}}}), obj{"fromBlock": "0x0", "toBlock": "latest", "topics": []any{hash(set), hash(addrTopic(tc.AddrB))}})
	g.add(m, "topic-no-match", "", []any{}, obj{"fromBlock": "0x0", "toBlock": "latest", "topics": []any{unknownHash}})
	g.add(m, "address-and-topic", "", g.logs(logFilter{from: 0, to: head, addrs: []common.Address{D}, topics: [][]common.Hash{{pair}}}), obj{"fromBlock": "0x0", "toBlock": "latest", "address": addr(D), "topics": []any{hash(pair)}})
	g.add(m, "filter-with-blockHash", "", g.logs(logFilter{from: 9, to: 9}), obj{"blockHash": g.bh(9)})
	g.add(m, "filter-with-blockHash-and-topics", "", g.logs(logFilter{from: 9, to: 9, topics: [][]common.Hash{{set}}}), obj{"blockHash": g.bh(9), "topics": []any{hash(set)}})
	g.add(m, "filter-with-blockHash-and-address", "", g.logs(logFilter{from: 9, to: 9, addrs: []common.Address{D}}), obj{"blockHash": g.bh(9), "address": addr(D)})
	g.add(m, "filter-with-blockHash-empty-block", "", []any{}, obj{"blockHash": g.bh(6)})
	g.add(m, "single-block-range", "", g.logs(logFilter{from: 4, to: 4}), obj{"fromBlock": bn(4), "toBlock": bn(4)})
	g.add(m, "range-with-setcode", "blocks 5-8: only the log of the EIP-7702 transaction", g.logs(logFilter{from: 5, to: 8}), obj{"fromBlock": bn(5), "toBlock": bn(8)})
	g.add(m, "default-range", "fromBlock and toBlock default to latest", g.logs(logFilter{from: head, to: head, addrs: []common.Address{C}}), obj{"address": addr(C)})
	g.add(m, "range-without-logs", "", []any{}, obj{"fromBlock": "earliest", "toBlock": bn(3)})
	g.addErr(m, "filter-error-reversed-block-range", "fromBlock after toBlock", errRange, obj{"fromBlock": bn(9), "toBlock": bn(4)})
	g.addErr(m, "filter-error-future-block-range", "toBlock beyond the head", errRange, obj{"fromBlock": bn(16), "toBlock": "0x20"})
	g.addErr(m, "filter-error-fully-future-block-range", "both ends beyond the head", errRange, obj{"fromBlock": "0x20", "toBlock": "0x30"})
	g.addErr(m, "filter-error-blockHash-and-range", "blockHash excludes fromBlock/toBlock", errInvalidParams, obj{"blockHash": g.bh(9), "fromBlock": bn(9)})
	g.addErr(m, "filter-error-unknown-blockHash", "", errNoBlock, obj{"blockHash": unknownHash})
}

// ---------------------------------------------------------------- execution

func (g *gen) callCases() {
	head := tc.BlockLast
	A, C, D := tc.AddrA, tc.C, tc.AddrD
	ret := func(n int, to common.Address, input []byte, override func(*state.StateDB)) string {
		res := g.call(uint64(n), callMsg{from: A, to: &to, data: input, override: override})
		if res.Err != nil {
			panic("call at block " + strconv.Itoa(n) + " failed: " + res.Err.Error())
		}
		return data(res.ReturnData)
	}
	callObj := func(to common.Address, input []byte) obj {
		return obj{"from": addr(A), "to": addr(to), "input": data(input)}
	}
	m := "eth_call"
	g.add(m, "call-view-latest", "C.get() at the head", ret(head, C, tc.CallGet(), nil), callObj(C, tc.CallGet()), "latest")
	g.add(m, "call-view-historical", "C.get() after block 4 (set(42))", ret(4, C, tc.CallGet(), nil), callObj(C, tc.CallGet()), bn(4))
	g.add(m, "call-view-constructor-state", "C.get() in the block that deployed it", ret(2, C, tc.CallGet(), nil), callObj(C, tc.CallGet()), bn(2))
	g.add(m, "call-block-hash-object", "EIP-1898 block hash object", ret(9, C, tc.CallGet(), nil), callObj(C, tc.CallGet()), obj{"blockHash": g.bh(9)})
	g.add(m, "call-omitted-block", "block omitted: latest", ret(head, C, tc.CallGet(), nil), callObj(C, tc.CallGet()))
	g.add(m, "call-without-from", "from omitted", ret(head, C, tc.CallGet(), nil), obj{"to": addr(C), "input": data(tc.CallGet())}, "latest")
	g.add(m, "call-delegated-eoa", "D.get(): runs C's code on D's storage (EIP-7702)", ret(head, D, tc.CallGet(), nil), callObj(D, tc.CallGet()), "latest")
	g.add(m, "call-before-deploy", "C has no code yet: empty return", ret(1, C, tc.CallGet(), nil), callObj(C, tc.CallGet()), bn(1))
	g.add(m, "call-eoa", "a call to an EOA returns nothing", "0x", callObj(tc.R, nil), "latest")
	g.add(m, "call-state-changing", "C.set(5) as a call: returns nothing, changes nothing", ret(head, C, tc.CallSet(5), nil), callObj(C, tc.CallSet(5)), "latest")

	// State overrides.
	x := common.HexToAddress("0x000000000000000000000000000000000000beef")
	selfBalance := []byte{byte(vm.SELFBALANCE), byte(vm.PUSH0), byte(vm.MSTORE), byte(vm.PUSH1), 32, byte(vm.PUSH0), byte(vm.RETURN)}
	g.add(m, "call-state-override-balance-code", "override an empty account's code (return SELFBALANCE) and balance",
		ret(head, x, nil, func(st *state.StateDB) {
			st.SetCode(x, selfBalance, tracing.CodeChangeUnspecified)
			st.SetBalance(x, uint256.NewInt(0x1234), tracing.BalanceChangeUnspecified)
		}),
		obj{"from": addr(A), "to": addr(x)}, "latest",
		obj{addr(x): obj{"balance": "0x1234", "code": data(selfBalance)}})
	g.add(m, "call-state-override-state-diff", "stateDiff replaces one slot and keeps the others",
		ret(head, C, tc.CallGet(), func(st *state.StateDB) { st.SetState(C, word(0), word(0x99)) }),
		callObj(C, tc.CallGet()), "latest",
		obj{addr(C): obj{"stateDiff": obj{wordHex(0): wordHex(0x99)}}})
	g.add(m, "call-state-override-state", "state replaces the whole storage: slot 0 reads zero",
		ret(head, C, tc.CallGet(), func(st *state.StateDB) {
			st.SetStorage(C, map[common.Hash]common.Hash{word(1): word(5)})
		}),
		callObj(C, tc.CallGet()), "latest",
		obj{addr(C): obj{"state": obj{wordHex(1): wordHex(5)}}})

	// Reverts.
	res := g.call(uint64(head), callMsg{from: A, to: &C, data: tc.CallFail()})
	if res.Err == nil || string(res.Revert()) != string(tc.RevertData()) {
		panic("C.fail() does not revert with Error(\"boom\")")
	}
	g.addErr(m, "call-revert-reason-code", "C.fail() reverts with Error(\"boom\"): error code -32000, data the revert bytes",
		obj{"code": -32000, "message": "execution reverted", "data": data(res.Revert())}, callObj(C, tc.CallFail()), "latest")
	g.addErr(m, "call-revert-no-data", "C.failSilently() reverts without data", errReverted, callObj(C, tc.CallFailSilently()), "latest")
	g.addErr(m, "call-revert-unknown-selector", "C reverts on an unknown selector", errReverted, callObj(C, []byte{1, 2, 3, 4}), "latest")
	g.addErr(m, "call-missing-params", "no call object", errInvalidParams)
	g.addErr(m, "call-invalid-address", "a to address that is not 20 bytes", errInvalidParams, obj{"to": "0x1234"}, "latest")
	g.addErr(m, "call-future-block", "", errNoBlock, callObj(C, tc.CallGet()), "0x64")

	m = "eth_estimateGas"
	transfer := obj{"from": addr(A), "to": addr(tc.R), "value": "0x1"}
	g.add(m, "estimate-transfer", "a plain value transfer costs exactly 21000", q(params.TxGas), transfer)
	g.add(m, "estimate-transfer-latest", "", q(params.TxGas), transfer, "latest")
	g.add(m, "estimate-transfer-historical", "", q(params.TxGas), transfer, bn(1))
	g.addErr(m, "estimate-revert", "a call that always reverts cannot be estimated", errReverted, callObj(C, tc.CallFail()))
	g.addErr(m, "estimate-insufficient-funds", "R cannot send more than it has", errFunds, obj{"from": addr(tc.R), "to": addr(A), "value": "0xffffffffffffffffffffffffffff"})

	m = "eth_createAccessList"
	al := func(to common.Address, input []byte, slots ...uint64) obj {
		list := types.AccessList{}
		if len(slots) > 0 {
			t := types.AccessTuple{Address: to}
			for _, s := range slots {
				t.StorageKeys = append(t.StorageKeys, word(s))
			}
			list = append(list, t)
		}
		res := g.call(uint64(head), callMsg{from: A, to: &to, data: input, accessList: list})
		if res.Err != nil {
			panic(res.Err)
		}
		return obj{"accessList": accessListJSON(list), "gasUsed": q(res.UsedGas)}
	}
	g.add(m, "create-al-simple-transfer", "a transfer touches no storage", al(tc.R, nil), obj{"from": addr(A), "to": addr(tc.R), "value": "0x1"}, "latest")
	g.add(m, "create-al-view", "C.get() reads slot 0; gasUsed is with the list applied", al(C, tc.CallGet(), 0), callObj(C, tc.CallGet()), "latest")
	g.add(m, "create-al-storage-writes", "C.set(5) writes slots 0 and 1", al(C, tc.CallSet(5), 0, 1), callObj(C, tc.CallSet(5)), "latest")
}

func (g *gen) feeCases() {
	m := "eth_feeHistory"
	head := uint64(tc.BlockLast)
	g.add(m, "fee-history-latest", "", g.feeHistory(4, head, []float64{25, 75}), "0x4", "latest", []any{25, 75})
	g.add(m, "fee-history-blob-block", "block 8 carries two blobs", g.feeHistory(1, 8, []float64{50}), "0x1", bn(8), []any{50})
	g.add(m, "fee-history-range", "blocks 5-9: legacy, 1559 and 7702 tips", g.feeHistory(5, 9, []float64{0, 50, 100}), "0x5", bn(9), []any{0, 50, 100})
	g.add(m, "fee-history-from-genesis", "more blocks than exist: the range starts at genesis", g.feeHistory(64, 3, []float64{10}), "0x40", bn(3), []any{10})
}

func (g *gen) miscCases() {
	g.add("eth_blockNumber", "simple-test", "", q(uint64(tc.BlockLast)))
	g.add("eth_chainId", "get-chain-id", "", q(tc.ChainID))
	g.add("eth_syncing", "check-syncing", "a node serving an imported chain is not syncing", false)
	g.add("net_version", "get-network-id", "the network id is the chain id, in decimal", strconv.FormatUint(tc.ChainID, 10))
	hello := []byte("hello world")
	g.add("web3_sha3", "sha3-hello-world", "", hash(crypto.Keccak256Hash(hello)), data(hello))
	g.add("web3_sha3", "sha3-empty", "", hash(crypto.Keccak256Hash(nil)), "0x")
	g.addErr("web3_sha3", "sha3-invalid-hex", "", errInvalidParams, "0xzz")
}
