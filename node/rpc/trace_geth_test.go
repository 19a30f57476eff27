package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/rlp"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/tracing/tracingtest"
	"github.com/stocknode/stocknode/node/txpool"
)

// conformanceChain is the conformance suite's test chain (made and
// validated by go-ethereum: legacy, access-list, dynamic-fee, blob and
// set-code transactions, two contract creations, reverts, logs).
const conformanceChain = "../../conformance/chain"

// forksChain is the execution-apis test chain that make compare traces:
// its forks come one after another, from Homestead, so its first blocks
// are before Byzantium (a state root in each receipt) and before EIP-158.
const forksChain = "../../compare/chains/execution-apis"

// tracePair serves one chain twice: through this package's handlers over
// node/chain, and through go-ethereum's own tracing API over a
// go-ethereum core.BlockChain that imported the same blocks.
type tracePair struct {
	t      testing.TB
	srv    *Server
	geth   *tracingtest.API
	blocks []*types.Block // by number, from 1
}

func newTracePair(t testing.TB) *tracePair {
	t.Helper()
	return newTracePairOf(t, conformanceChain)
}

// newTracePairOf is the pair over the chain in dir (genesis.json,
// chain.rlp).
func newTracePairOf(t testing.TB, dir string) *tracePair {
	t.Helper()
	genesisFile, chainFile := filepath.Join(dir, "genesis.json"), filepath.Join(dir, "chain.rlp")
	blocks := readBlocks(t, chainFile)

	// go-ethereum, as the conformance suite's geth: an archive chain.
	gethGenesis, err := chain.LoadGenesis(genesisFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := core.DefaultConfig()
	cfg.StateScheme, cfg.ArchiveMode = rawdb.HashScheme, true
	bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), gethGenesis, beacon.New(ethash.NewFaker()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bc.Stop)
	if n, err := bc.InsertChain(blocks); err != nil {
		t.Fatalf("go-ethereum rejects block %d: %v", blocks[n].NumberU64(), err)
	}

	// stocknode: the same blocks imported into node/chain, served with no
	// block production.
	genesis, err := chain.LoadGenesis(genesisFile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Import(context.Background(), chainFile); err != nil {
		t.Fatal(err)
	}
	txs, err := txpool.New(c, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	calls := callbound.New(callbound.Config{Workers: 2, Queue: 16})
	store := new(pending.Store)
	seq, err := sequencer.New(sequencer.Config{}, c, txs, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := seq.PublishHead(); err != nil {
		t.Fatal(err)
	}
	srv := New(DefaultConfig(), Backend{Chain: c, Pool: txs, Snapshots: store, Calls: calls}, nil)
	t.Cleanup(func() {
		srv.Close()
		calls.Close()
		txs.Close()
		c.Close()
	})
	return &tracePair{t: t, srv: srv, geth: tracingtest.New(bc, DefaultConfig().GasCap), blocks: blocks}
}

func readBlocks(t testing.TB, path string) []*types.Block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []*types.Block
	stream := rlp.NewStream(bufio.NewReader(f), 0)
	for {
		b := new(types.Block)
		if err := stream.Decode(b); errors.Is(err, io.EOF) {
			return blocks
		} else if err != nil {
			t.Fatal(err)
		}
		if b.NumberU64() > 0 {
			blocks = append(blocks, b)
		}
	}
}

// ours answers method(params...) through the server: the result, or the
// error's message.
func (p *tracePair) ours(method string, params ...any) (json.RawMessage, string) {
	p.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	var resp rpcResponse
	if err := json.Unmarshal(p.srv.Handle(body, nil), &resp); err != nil {
		p.t.Fatal(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.Message
	}
	return resp.Result, ""
}

// theirs is go-ethereum's answer, as its RPC server encodes it.
func theirs(t *testing.T, res any, err error) (json.RawMessage, string) {
	t.Helper()
	if err != nil {
		return nil, err.Error()
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b, ""
}

// sameJSON reports whether a and b are the same JSON value (numbers
// compared as written).
func sameJSON(a, b []byte) bool {
	decode := func(data []byte) any {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return fmt.Sprintf("invalid JSON %q", data)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// compare requires the same answer from both.
func (p *tracePair) compare(what string, ours json.RawMessage, ourErr string, gethRes json.RawMessage, gethErr string) {
	p.t.Helper()
	switch {
	case ourErr != "" || gethErr != "":
		if ourErr != gethErr {
			p.t.Errorf("%s: error %q, go-ethereum's %q", what, ourErr, gethErr)
		}
	case !sameJSON(ours, gethRes):
		p.t.Errorf("%s:\n ours %s\n geth %s", what, truncate(ours), truncate(gethRes))
	}
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

// traceConfigs are the configurations compared: the struct logger with
// its options, and every native tracer that tools call.
var traceConfigs = []map[string]any{
	nil,
	{},
	{"enableMemory": true, "enableReturnData": true},
	{"disableStack": true, "disableStorage": true},
	{"limit": 2000},
	{"tracer": "callTracer"},
	{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}},
	{"tracer": "callTracer", "tracerConfig": map[string]any{"onlyTopCall": true}},
	{"tracer": "prestateTracer"},
	{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}},
	{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true, "disableCode": true, "disableStorage": true}},
	{"tracer": "4byteTracer"},
	{"tracer": "noopTracer"},
	{"tracer": "flatCallTracer"},
	{"tracer": "erc7562Tracer", "tracerConfig": map[string]any{"withLog": true}},
	{"tracer": "keccak256PreimageTracer"},
	{"tracer": "muxTracer", "tracerConfig": map[string]any{"callTracer": map[string]any{"withLog": true}, "4byteTracer": nil, "prestateTracer": map[string]any{"diffMode": true}}},
	{"tracer": "muxTracer", "tracerConfig": map[string]any{"keccak256PreimageTracer": nil, "muxTracer": map[string]any{"erc7562Tracer": nil, "flatCallTracer": nil}}},
}

// gethConfig decodes cfg as go-ethereum's RPC server would.
func gethConfig[T any](t *testing.T, cfg map[string]any) *T {
	t.Helper()
	if cfg == nil {
		return nil
	}
	b, _ := json.Marshal(cfg)
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Every transaction of the conformance chain (incl. two creations, two
// reverts, a set-code and a blob transaction), traced with every
// configuration, answers what go-ethereum's debug_traceTransaction does.
//
// Each transaction traced leaves its block's state after it for later
// traces (tracing.Prefixes): the blocks are traced in order, then each
// block's transactions from the last, which replay from those states.
func TestTraceTransactionMatchesGeth(t *testing.T) {
	p := newTracePair(t)
	ctx := context.Background()
	for _, reversed := range []bool{false, true} {
		for _, b := range p.blocks {
			txs := slices.Clone(b.Transactions())
			if reversed {
				slices.Reverse(txs)
			}
			for _, tx := range txs {
				for _, cfg := range traceConfigs {
					what := fmt.Sprintf("block %d tx %s %v (reversed %v)", b.NumberU64(), tx.Hash().Hex()[:10], cfg, reversed)
					ours, ourErr := p.ours("debug_traceTransaction", tx.Hash(), cfg)
					res, err := p.geth.TraceTransaction(ctx, tx.Hash(), gethConfig[tracers.TraceConfig](t, cfg))
					gethRes, gethErr := theirs(t, res, err)
					p.compare(what, ours, ourErr, gethRes, gethErr)
				}
			}
		}
		if p.srv.tracePrefixes.Size() == 0 || p.srv.tracePrefixes.Hits() == 0 {
			t.Fatalf("the traces kept %d bytes of states and started from one %d times", p.srv.tracePrefixes.Size(), p.srv.tracePrefixes.Hits())
		}
	}
}

// Every block of the chain whose forks come one after another, before
// Byzantium and EIP-158 included, answers what go-ethereum's
// debug_traceBlockByNumber does, with every tracer.
func TestTraceForksMatchGeth(t *testing.T) {
	compareBlocks(t, newTracePairOf(t, forksChain))
}

// compareBlocks traces every block by number with every configuration,
// and the numbers past the head.
func compareBlocks(t *testing.T, p *tracePair) {
	t.Helper()
	ctx := context.Background()
	for n := 0; n <= len(p.blocks)+1; n++ {
		for _, cfg := range traceConfigs {
			what := fmt.Sprintf("block %d %v", n, cfg)
			ours, ourErr := p.ours("debug_traceBlockByNumber", fmt.Sprintf("%#x", n), cfg)
			res, err := p.geth.TraceBlockByNumber(ctx, gethrpc.BlockNumber(n), gethConfig[tracers.TraceConfig](t, cfg))
			gethRes, gethErr := theirs(t, res, err)
			p.compare(what, ours, ourErr, gethRes, gethErr)
		}
	}
}

// Every block, by number and by hash, answers what go-ethereum's
// debug_traceBlockByNumber and debug_traceBlockByHash do, empty ones and
// the genesis (not traceable) included.
func TestTraceBlockMatchesGeth(t *testing.T) {
	p := newTracePair(t)
	ctx := context.Background()
	compareBlocks(t, p)
	for _, b := range p.blocks {
		cfg := map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}}
		ours, ourErr := p.ours("debug_traceBlockByHash", b.Hash(), cfg)
		res, err := p.geth.TraceBlockByHash(ctx, b.Hash(), gethConfig[tracers.TraceConfig](t, cfg))
		gethRes, gethErr := theirs(t, res, err)
		p.compare(fmt.Sprintf("block %d by hash", b.NumberU64()), ours, ourErr, gethRes, gethErr)
	}
	for _, tag := range []string{"latest", "pending", "earliest", "finalized", "safe"} {
		ours, ourErr := p.ours("debug_traceBlockByNumber", tag, map[string]any{"tracer": "callTracer"})
		number := gethrpc.LatestBlockNumber
		if tag == "earliest" {
			number = gethrpc.EarliestBlockNumber
		}
		res, err := p.geth.TraceBlockByNumber(ctx, number, gethConfig[tracers.TraceConfig](t, map[string]any{"tracer": "callTracer"}))
		gethRes, gethErr := theirs(t, res, err)
		p.compare(tag, ours, ourErr, gethRes, gethErr)
	}
}

// Calls traced with debug_traceCall (state and block overrides, txIndex,
// a moved precompile, creations, reverts, every fee style) answer what
// go-ethereum's TraceCall does.
func TestTraceCallMatchesGeth(t *testing.T) {
	p := newTracePair(t)
	ctx := context.Background()
	signer := types.LatestSigner(p.srv.b.Chain.Config())
	a, err := types.Sender(signer, p.blocks[0].Transactions()[0])
	if err != nil {
		t.Fatal(err)
	}
	deploy := p.blocks[1].Transactions()[0] // block 2: A deploys C
	c := crypto.CreateAddress(a, deploy.Nonce())
	sel := func(sig string) string { return hexutil.Encode(crypto.Keccak256([]byte(sig))[:4]) }
	word := func(v int64) string { return common.BigToHash(big.NewInt(v)).Hex()[2:] }
	fresh := common.HexToAddress("0x00000000000000000000000000000000000f4e54")
	// blockhash(number-1), number, basefee, coinbase, prevrandao, timestamp
	envCode := "0x" + "4360019003406000524360205248604052416060524460805242" + "60a052" + "60c06000f3"
	calls := []struct {
		name  string
		call  map[string]any
		block any
		extra map[string]any // TraceCallConfig fields besides the tracer's
	}{
		{"set", map[string]any{"from": a, "to": c, "data": sel("set(uint256)") + word(7)}, "latest", nil},
		{"get-old-block", map[string]any{"from": a, "to": c, "data": sel("get()")}, "0x4", nil},
		{"get-block-hash", map[string]any{"to": c, "data": sel("get()")}, map[string]any{"blockHash": p.blocks[8].Hash()}, nil},
		{"fail", map[string]any{"from": a, "to": c, "data": sel("fail()")}, "latest", nil},
		{"fail-silently", map[string]any{"from": a, "to": c, "data": sel("failSilently()"), "gas": "0x10000"}, "latest", nil},
		{"emit", map[string]any{"from": a, "to": c, "data": sel("emitPair(uint256,uint256)") + word(1) + word(2)}, "latest", nil},
		{"create", map[string]any{"from": a, "data": hexutil.Encode(deployCode(answerRuntime))}, "latest", nil},
		{"transfer-legacy", map[string]any{"from": a, "to": fresh, "value": "0x1", "gasPrice": "0x3b9aca00"}, "latest", nil},
		{"transfer-1559", map[string]any{"from": a, "to": fresh, "value": "0x1", "maxFeePerGas": "0x77359400", "maxPriorityFeePerGas": "0x1"}, "latest", nil},
		{"access-list", map[string]any{"from": a, "to": c, "data": sel("get()"), "gasPrice": "0x3b9aca00",
			"accessList": []any{map[string]any{"address": c, "storageKeys": []any{common.Hash{}}}}}, "latest", nil},
		{"out-of-gas", map[string]any{"from": a, "to": c, "data": sel("set(uint256)") + word(9), "gas": "0x5300"}, "latest", nil},
		{"insufficient-funds", map[string]any{"from": fresh, "to": a, "value": "0x1"}, "latest", nil},
		{"state-override", map[string]any{"from": fresh, "to": fresh, "value": "0x5"}, "latest", map[string]any{
			"stateOverrides": map[string]any{fresh.Hex(): map[string]any{"balance": "0xde0b6b3a7640000", "code": envCode}}}},
		{"state-diff", map[string]any{"to": c, "data": sel("get()")}, "latest", map[string]any{
			"stateOverrides": map[string]any{c.Hex(): map[string]any{"stateDiff": map[string]any{common.Hash{}.Hex(): common.BigToHash(big.NewInt(99)).Hex()}}}}},
		{"block-override-next", map[string]any{"to": fresh}, "latest", map[string]any{
			"stateOverrides": map[string]any{fresh.Hex(): map[string]any{"code": envCode}},
			"blockOverrides": map[string]any{"number": fmt.Sprintf("%#x", len(p.blocks)+1), "time": "0x7fffffff", "baseFeePerGas": "0x7",
				"feeRecipient": fresh, "prevRandao": common.HexToHash("0x1234").Hex()}}},
		{"block-override-far", map[string]any{"to": fresh, "gasPrice": "0x9"}, "latest", map[string]any{
			"stateOverrides": map[string]any{fresh.Hex(): map[string]any{"code": envCode}},
			"blockOverrides": map[string]any{"number": "0x100", "baseFeePerGas": "0x7"}}},
		{"move-precompile", map[string]any{"to": fresh, "data": "0xabcdef"}, "latest", map[string]any{
			"stateOverrides": map[string]any{"0x0000000000000000000000000000000000000004": map[string]any{"movePrecompileToAddress": fresh}}}},
		{"tx-index", map[string]any{"to": c, "data": sel("get()")}, "0x9", map[string]any{"txIndex": "0x1"}},
		{"tx-index-empty-block", map[string]any{"to": c, "data": sel("get()")}, "0x6", map[string]any{"txIndex": "0x0"}},
		{"tx-index-out-of-range", map[string]any{"to": c, "data": sel("get()")}, "0x9", map[string]any{"txIndex": "0x3"}},
		{"unknown-block", map[string]any{"to": c}, "0x100", nil},
		{"unknown-block-hash", map[string]any{"to": c}, map[string]any{"blockHash": common.HexToHash("0xdead")}, nil},
		{"genesis", map[string]any{"to": c}, "0x0", nil},
	}
	for _, call := range calls {
		for _, cfg := range traceConfigs {
			full := map[string]any{}
			for k, v := range cfg {
				full[k] = v
			}
			for k, v := range call.extra {
				full[k] = v
			}
			if cfg == nil && call.extra == nil {
				full = nil
			}
			what := fmt.Sprintf("%s %v", call.name, cfg)
			ours, ourErr := p.ours("debug_traceCall", call.call, call.block, full)
			callJSON, _ := json.Marshal(call.call)
			blockJSON, _ := json.Marshal(call.block)
			var block gethrpc.BlockNumberOrHash
			if err := json.Unmarshal(blockJSON, &block); err != nil {
				t.Fatal(err)
			}
			res, err := p.geth.TraceCall(ctx, callJSON, block, gethConfig[tracers.TraceCallConfig](t, full))
			gethRes, gethErr := theirs(t, res, err)
			p.compare(what, ours, ourErr, gethRes, gethErr)
		}
	}
}
