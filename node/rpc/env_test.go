package rpc

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
	"github.com/stocknode/stocknode/node/txwait"
	"github.com/stocknode/stocknode/peer"
)

// testNode is an in-memory preview chain with a sequencer and an RPC server.
type testNode struct {
	t     testing.TB
	view  View       // the view its requests are answered in
	peer  *peer.Peer // the client its requests come from; nil: a local caller
	srv   *Server
	chain *chain.Chain
	pool  *txpool.Pool
	store *pending.Store
	keys  []*ecdsa.PrivateKey
	// waiters are eth_sendRawTransactionSync's, woken by the sequencer.
	waiters *txwait.Registry
}

// testConfig is a test node's configuration: its chain's, its server's
// and its call bound's.
type testConfig struct {
	chain  chain.Config
	rpc    Config
	calls  callbound.Config
	txwait txwait.Config
	// known is the backend's Known: a replica's question to its sequencer.
	known func(ctx context.Context, hash common.Hash) (bool, error)
}

// option adjusts a test node's configuration.
type option func(*testConfig)

// newTestNode starts a node producing a block every blockTime; options
// adjust its configuration.
func newTestNode(t testing.TB, blockTime, preconf time.Duration, options ...option) *testNode {
	t.Helper()
	genesis, err := chain.PreviewGenesis(common.Address{0xfa})
	if err != nil {
		t.Fatal(err)
	}
	tc := testConfig{
		chain:  chain.Config{InMemory: true, Genesis: genesis, Rules: chain.Rules{MinBaseFee: chain.PreviewMinBaseFee}},
		rpc:    DefaultConfig(),
		calls:  callbound.Config{Workers: 4, Queue: 64},
		txwait: txwait.DefaultConfig(),
	}
	for _, option := range options {
		option(&tc)
	}
	c, err := chain.Open(tc.chain)
	if err != nil {
		t.Fatal(err)
	}
	txs, err := txpool.New(c, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	calls := callbound.New(tc.calls)
	store := new(pending.Store)
	seq, err := sequencer.New(sequencer.Config{BlockTime: blockTime, PreconfInterval: preconf, GasCeil: chain.PreviewGasLimit},
		c, txs, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	waiters := txwait.New(tc.txwait)
	srv := New(tc.rpc, Backend{Chain: c, Pool: txs, Snapshots: store, Calls: calls, TxWait: waiters, Known: tc.known}, nil)
	seq.SetListener(sequencer.Listeners{srv, waiters}) // as the node: the server first
	if err := seq.PublishHead(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); seq.Run(ctx) }()
	// Run opens the first block at once: wait for it, so that a test's
	// first request never meets PublishHead's empty pending block.
	for deadline := time.Now().Add(5 * time.Second); blockTime > 0; time.Sleep(time.Millisecond) {
		if snap := store.Load(); snap.Pending.Header.Number.Cmp(snap.Head.Number()) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sequencer opened no block within 5s")
		}
	}
	t.Cleanup(func() {
		waiters.Close()
		cancel()
		<-done
		srv.Close()
		calls.Close()
		txs.Close()
		c.Close()
	})
	keys, err := chain.DevKeys(chain.DevAccountCount)
	if err != nil {
		t.Fatal(err)
	}
	return &testNode{t: t, srv: srv, chain: c, pool: txs, store: store, keys: keys, waiters: waiters}
}

// on is n for the test t, one of a fuzz test's inputs.
func (n *testNode) on(t *testing.T) *testNode {
	c := *n
	c.t = t
	return &c
}

// rpcResponse is one decoded JSON-RPC response.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// in is n answering in view v (/preconf for Preconf).
func (n *testNode) in(v View) *testNode {
	c := *n
	c.view = v
	return &c
}

// as is n's requests coming from the client p.
func (n *testNode) as(p *peer.Peer) *testNode {
	c := *n
	c.peer = p
	return &c
}

// raw sends body and returns the raw response.
func (n *testNode) raw(body string) string {
	out, _ := n.srv.HandleFrom(n.peer, n.view, []byte(body), nil, nil)
	return string(out)
}

// call sends one request with params given as Go values (JSON-encoded).
func (n *testNode) call(method string, params ...any) rpcResponse {
	n.t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		n.t.Fatal(err)
	}
	out := n.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, p))
	var resp rpcResponse
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		n.t.Fatalf("%s: response %q is not JSON: %v", method, out, err)
	}
	if resp.JSONRPC != "2.0" || string(resp.ID) != "7" {
		n.t.Fatalf("%s: bad envelope %q", method, out)
	}
	return resp
}

// result calls and decodes the result into v, failing on an error response.
func (n *testNode) result(v any, method string, params ...any) {
	n.t.Helper()
	resp := n.call(method, params...)
	if resp.Error != nil {
		n.t.Fatalf("%s(%v): error %d %s", method, params, resp.Error.Code, resp.Error.Message)
	}
	if err := json.Unmarshal(resp.Result, v); err != nil {
		n.t.Fatalf("%s: result %s: %v", method, resp.Result, err)
	}
}

func (n *testNode) addr(i int) common.Address { return crypto.PubkeyToAddress(n.keys[i].PublicKey) }

// send signs and submits a transaction through eth_sendRawTransaction.
func (n *testNode) send(from int, to *common.Address, value *big.Int, gas uint64, data []byte) common.Hash {
	n.t.Helper()
	var nonce hexutil.Uint64
	n.result(&nonce, "eth_getTransactionCount", n.addr(from), "pending")
	tx, err := types.SignNewTx(n.keys[from], types.LatestSigner(n.chain.Config()), &types.DynamicFeeTx{
		ChainID: n.chain.Config().ChainID, Nonce: uint64(nonce), GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei), Gas: gas, To: to, Value: value, Data: data,
	})
	if err != nil {
		n.t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	var hash common.Hash
	n.result(&hash, "eth_sendRawTransaction", hexutil.Bytes(raw))
	if hash != tx.Hash() {
		n.t.Fatalf("sendRawTransaction returned %s, want %s", hash, tx.Hash())
	}
	return hash
}

// waitSealed waits until the transaction is in a sealed block and returns its receipt.
// The head is read first: a receipt read after it whose block is at most
// that head is the sealed block's, not a pre-confirmed one.
func (n *testNode) waitSealed(hash common.Hash) map[string]any {
	n.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var latest hexutil.Uint64
		n.result(&latest, "eth_blockNumber")
		var receipt map[string]any
		n.result(&receipt, "eth_getTransactionReceipt", hash)
		if receipt != nil {
			num, _ := hexutil.DecodeUint64(receipt["blockNumber"].(string))
			if num <= uint64(latest) {
				return receipt
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	n.t.Fatalf("transaction %s not sealed", hash)
	return nil
}

// deployCode wraps runtime code in init code that returns it.
func deployCode(runtime []byte) []byte {
	n := byte(len(runtime))
	return append([]byte{0x60, n, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3}, runtime...)
}

var (
	// revertRuntime always reverts with Error("nope").
	revertRuntime = hexutil.MustDecode("0x" +
		"7f" + "08c379a0" + strings.Repeat("00", 28) + "600052" + // mstore(0, selector)
		"6020600452" + // mstore(4, 0x20)
		"6004602452" + // mstore(0x24, 4)
		"7f" + "6e6f7065" + strings.Repeat("00", 28) + "604452" + // mstore(0x44, "nope")
		"60646000fd") // revert(0, 0x64)
	// answerRuntime returns the word 42.
	answerRuntime = hexutil.MustDecode("0x602a60005260206000f3")
	// logRuntime emits LOG1(logTopic) with the calldata as data.
	logTopic   = common.HexToHash("0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	logRuntime = hexutil.MustDecode("0x366000600037" + "7f" + logTopic.Hex()[2:] + "366000a100")
)
