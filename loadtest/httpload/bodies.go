package httpload

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/loadtest/workload"
)

// The request kinds of the http mode. mix draws from the others.
const (
	kindGetBalance = "getBalance"
	kindCall       = "call"
	// kindCallDistinct is kindCall's balanceOf of an address that no other
	// request of the run asks for: no answer repeats, so a server that
	// remembers answers (stocknode's --rpc.call.results) runs every call.
	kindCallDistinct = "callDistinct"
	kindBlockNumber  = "blockNumber"
	kindTxCount      = "getTransactionCount"
	kindBlock        = "getBlockByNumber"
	kindEstimateGas  = "estimateGas"
	kindMix          = "mix"
	// kindGetProof asks eth_getProof for the token's account and one read
	// address's balance slot: an ERC-20 balance proven against the state root.
	kindGetProof = "getProof"
	// kindTraceTx asks debug_traceTransaction with callTracer for the
	// transactions given by -hashes, in turn.
	kindTraceTx = "traceTransaction"
	// kindTraceBlock asks debug_traceBlockByNumber with callTracer for the
	// blocks given by -blocks, in turn.
	kindTraceBlock = "traceBlockByNumber"
)

// mixWeights is the mix workload in percent: mostly state reads, as a wallet
// or a dapp front end sends them.
var mixWeights = []struct {
	kind   string
	weight int
}{
	{kindGetBalance, 40},
	{kindCall, 30},
	{kindBlockNumber, 10},
	{kindTxCount, 10},
	{kindBlock, 5},
	{kindEstimateGas, 5},
}

// mixTable is the mix spread over 100 slots in a fixed shuffled order, so
// that every 100 consecutive requests of a worker follow mixWeights exactly.
var mixTable = func() []string {
	var t []string
	for _, w := range mixWeights {
		for range w.weight {
			t = append(t, w.kind)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(t), func(i, j int) { t[i], t[j] = t[j], t[i] })
	return t
}()

// hexAddrs are the read addresses as 40 lowercase hex digits, without 0x.
var hexAddrs = func() []string {
	out := make([]string, workload.NumAddresses)
	for i := range out {
		a := workload.Address(i)
		out[i] = hex.EncodeToString(a[:])
	}
	return out
}()

// hexSlots are the read addresses' balance slots in the token (a mapping at
// slot 0) as 64 lowercase hex digits, without 0x.
var hexSlots = func() []string {
	out := make([]string, workload.NumAddresses)
	for i := range out {
		slot := workload.BalanceSlot(workload.Address(i))
		out[i] = hex.EncodeToString(slot[:])
	}
	return out
}()

// bodyGen writes the JSON-RPC request bodies of one worker. Every body differs
// from the previous one: the address index advances by one per request (1,024
// addresses), the id by one, and the worker's starting offset spreads workers
// over the addresses. next appends into a reused buffer: no allocation.
type bodyGen struct {
	kind  string
	tag   string // "latest" or "pending"
	token string // 0x-prefixed lowercase
	seq   uint64
	addr  int
	// hashes are the transactions kindTraceTx traces, 0x-prefixed.
	hashes []string
	// blocks are the blocks kindTraceBlock traces, as 0x-prefixed quantities.
	blocks []string
}

func validKind(kind string) bool {
	switch kind {
	case kindGetBalance, kindCall, kindCallDistinct, kindBlockNumber, kindTxCount, kindBlock, kindEstimateGas, kindMix, kindGetProof, kindTraceTx, kindTraceBlock:
		return true
	}
	return false
}

func newBodyGen(kind, tag string, token common.Address, worker int, hashes, blocks []string) *bodyGen {
	return &bodyGen{kind: kind, tag: tag, token: strings.ToLower(token.Hex()),
		seq: uint64(worker) << 32, addr: (worker * 97) % workload.NumAddresses, hashes: hashes, blocks: blocks}
}

// Next appends the next request's body to dst and returns it with the kind of
// request it is.
func (g *bodyGen) next(dst []byte) ([]byte, string) {
	g.seq++
	g.addr = (g.addr + 1) % workload.NumAddresses
	kind := g.kind
	if kind == kindMix {
		kind = mixTable[g.seq%uint64(len(mixTable))]
	}
	a := hexAddrs[g.addr]
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendUint(dst, g.seq, 10)
	switch kind {
	case kindGetBalance, kindTxCount:
		if kind == kindGetBalance {
			dst = append(dst, `,"method":"eth_getBalance","params":["0x`...)
		} else {
			dst = append(dst, `,"method":"eth_getTransactionCount","params":["0x`...)
		}
		dst = append(dst, a...)
		dst = append(dst, `","`...)
		dst = append(dst, g.tag...)
		dst = append(dst, `"]}`...)
	case kindCall:
		dst = append(dst, `,"method":"eth_call","params":[{"to":"`...)
		dst = append(dst, g.token...)
		dst = append(dst, `","data":"0x`+workload.BalanceOfSelector+`000000000000000000000000`...)
		dst = append(dst, a...)
		dst = append(dst, `"},"`...)
		dst = append(dst, g.tag...)
		dst = append(dst, `"]}`...)
	case kindCallDistinct:
		// The address is 0xca11 followed by the request's id, which no
		// other request of the run has (workers own disjoint id ranges).
		dst = append(dst, `,"method":"eth_call","params":[{"to":"`...)
		dst = append(dst, g.token...)
		dst = append(dst, `","data":"0x`+workload.BalanceOfSelector+`000000000000000000000000ca1100000000000000000000`...)
		dst = appendHex64(dst, g.seq)
		dst = append(dst, `"},"`...)
		dst = append(dst, g.tag...)
		dst = append(dst, `"]}`...)
	case kindBlockNumber:
		dst = append(dst, `,"method":"eth_blockNumber","params":[]}`...)
	case kindBlock:
		dst = append(dst, `,"method":"eth_getBlockByNumber","params":["`...)
		dst = append(dst, g.tag...)
		dst = append(dst, `",false]}`...)
	case kindEstimateGas:
		// transfer(1 unit) of the token from this address to the next one:
		// every read address holds a token balance in compare's genesis.
		to := hexAddrs[(g.addr+1)%workload.NumAddresses]
		dst = append(dst, `,"method":"eth_estimateGas","params":[{"from":"0x`...)
		dst = append(dst, a...)
		dst = append(dst, `","to":"`...)
		dst = append(dst, g.token...)
		dst = append(dst, `","data":"0x`+workload.TransferSelector+`000000000000000000000000`...)
		dst = append(dst, to...)
		dst = append(dst, `0000000000000000000000000000000000000000000000000000000000000001"},"`...)
		dst = append(dst, g.tag...)
		dst = append(dst, `"]}`...)
	case kindGetProof:
		dst = append(dst, `,"method":"eth_getProof","params":["`...)
		dst = append(dst, g.token...)
		dst = append(dst, `",["0x`...)
		dst = append(dst, hexSlots[g.addr]...)
		dst = append(dst, `"],"`...)
		dst = append(dst, g.tag...)
		dst = append(dst, `"]}`...)
	case kindTraceTx:
		dst = append(dst, `,"method":"debug_traceTransaction","params":["`...)
		dst = append(dst, g.hashes[g.seq%uint64(len(g.hashes))]...)
		dst = append(dst, `",{"tracer":"callTracer"}]}`...)
	case kindTraceBlock:
		dst = append(dst, `,"method":"debug_traceBlockByNumber","params":["`...)
		dst = append(dst, g.blocks[g.seq%uint64(len(g.blocks))]...)
		dst = append(dst, `",{"tracer":"callTracer"}]}`...)
	default:
		panic(fmt.Sprintf("unknown request kind %q", kind))
	}
	return dst, kind
}

// appendHex64 appends v as 16 lowercase hex digits.
func appendHex64(dst []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		dst = append(dst, digits[v>>uint(shift)&0xf])
	}
	return dst
}
