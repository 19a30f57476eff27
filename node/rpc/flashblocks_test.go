package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// signed signs a dynamic-fee transaction from dev account `from` with
// an explicit nonce and tip (the fee cap ten times the tip), and returns
// it encoded with its hash.
func (n *testNode) signed(from int, nonce uint64, tip *big.Int, to *common.Address, data []byte, gas uint64) (hexutil.Bytes, common.Hash) {
	n.t.Helper()
	tx, err := types.SignNewTx(n.keys[from], types.LatestSigner(n.chain.Config()), &types.DynamicFeeTx{
		ChainID: n.chain.Config().ChainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Mul(tip, big.NewInt(10)),
		Gas: gas, To: to, Data: data,
	})
	if err != nil {
		n.t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return raw, tx.Hash()
}

// status is base_transactionStatus's answer for hash.
func (n *testNode) status(hash common.Hash) string {
	n.t.Helper()
	var out struct {
		Status string `json:"status"`
	}
	n.result(&out, "base_transactionStatus", hash)
	return out.Status
}

// preconfirmedReceipt polls, on n's view, for hash's receipt and returns
// it if it is a pre-confirmed one (not a sealed block's), nil if the first
// receipt served was already the sealed block's.
func (n *testNode) preconfirmedReceipt(hash common.Hash) map[string]any {
	n.t.Helper()
	var receipt map[string]any
	waitFor(n.t, "a receipt", func() bool {
		n.result(&receipt, "eth_getTransactionReceipt", hash)
		return receipt != nil
	})
	var block map[string]any
	if n.result(&block, "eth_getBlockByNumber", receipt["blockNumber"], false); block != nil && block["hash"] == receipt["blockHash"] {
		return nil // sealed
	}
	return receipt
}

// On /preconf a pre-confirmed transaction's receipt is served before its
// block seals, as Base's Flashblocks RPC serves it: the pending block's
// number, the block's PreconfHash, and otherwise exactly what the sealed
// block's receipt says (index, status, gas, logs). Its transaction object
// names the same block. eth_getBlockByHash finds the block by that hash,
// pending before the seal and sealed after.
func TestPreconfirmedReceiptIsTheSealedOne(t *testing.T) {
	n := newTestNode(t, 500*time.Millisecond, 50*time.Millisecond).in(Preconf)
	contract := common.HexToAddress(n.waitSealed(n.send(2, nil, new(big.Int), 200_000, deployCode(logRuntime)))["contractAddress"].(string))

	var hash common.Hash
	var early, earlyBlock map[string]any
	// A send that lands right at a seal may be sealed before the first
	// poll: send again.
	for attempt := 0; early == nil; attempt++ {
		if attempt == 5 {
			t.Fatal("no pre-confirmed receipt in five attempts")
		}
		n.send(2, &contract, new(big.Int), 100_000, []byte{1}) // not alone in its block
		hash = n.send(2, &contract, new(big.Int), 100_000, []byte{0xbe, 0xef})
		if early = n.preconfirmedReceipt(hash); early != nil {
			n.result(&earlyBlock, "eth_getBlockByHash", early["blockHash"], false)
		}
	}
	var earlyTx map[string]any
	n.result(&earlyTx, "eth_getTransactionByHash", hash)
	var head hexutil.Uint64
	n.result(&head, "eth_blockNumber")

	sealed := n.waitSealed(hash)
	var sealedTx, sealedBlock map[string]any
	n.result(&sealedTx, "eth_getTransactionByHash", hash)
	n.result(&sealedBlock, "eth_getBlockByHash", early["blockHash"], false)

	preconf := early["blockHash"]
	if earlyTx["blockHash"] != preconf || earlyTx["blockNumber"] != early["blockNumber"] || earlyTx["transactionIndex"] != early["transactionIndex"] {
		t.Fatalf("pre-confirmed transaction %v, receipt in block %v %v at %v", earlyTx, preconf, early["blockNumber"], early["transactionIndex"])
	}
	if earlyBlock == nil || earlyBlock["hash"] != preconf || earlyBlock["number"] != early["blockNumber"] || !slices.Contains(earlyBlock["transactions"].([]any), any(hash.Hex())) {
		t.Fatalf("eth_getBlockByHash(%v) before the seal: %v", preconf, earlyBlock)
	}
	if sealedBlock == nil || sealedBlock["hash"] != sealed["blockHash"] {
		t.Fatalf("eth_getBlockByHash(%v) after the seal: %v, want the sealed block %v", preconf, sealedBlock, sealed["blockHash"])
	}
	if earlyTx["gasPrice"] != early["effectiveGasPrice"] {
		t.Fatalf("pre-confirmed gasPrice %v, receipt's effectiveGasPrice %v", earlyTx["gasPrice"], early["effectiveGasPrice"])
	}
	if sealedTx["blockHash"] != sealed["blockHash"] {
		t.Fatalf("sealed transaction in %v, receipt in %v", sealedTx["blockHash"], sealed["blockHash"])
	}
	// What the seal changes: the block hash, in the receipt, its logs and
	// the transaction object. Nothing else.
	for _, l := range early["logs"].([]any) {
		if l.(map[string]any)["blockHash"] != preconf {
			t.Fatalf("pre-confirmed log %v does not name the receipt's block %v", l, preconf)
		}
		l.(map[string]any)["blockHash"] = sealed["blockHash"]
	}
	early["blockHash"] = sealed["blockHash"]
	earlyTx["blockHash"] = sealedTx["blockHash"]
	for what, pair := range map[string][2]map[string]any{"receipt": {early, sealed}, "transaction": {earlyTx, sealedTx}} {
		a, _ := json.Marshal(pair[0])
		b, _ := json.Marshal(pair[1])
		if string(a) != string(b) {
			t.Errorf("pre-confirmed %s differs from the sealed one:\n got %s\nwant %s", what, a, b)
		}
	}
	num, _ := hexutil.DecodeUint64(sealed["blockNumber"].(string))
	if num != uint64(head)+1 || len(sealed["logs"].([]any)) != 1 || sealed["transactionIndex"] == "0x0" {
		t.Fatalf("sealed receipt %v, head when pre-confirmed %d", sealed, head)
	}
}

// The Standard view (/) answers a pre-confirmed transaction as a pooled
// one until its block seals: no receipt, no block fields; the Preconf view
// (/preconf) answers its receipt; Config.PreconfirmedReceipts makes / answer
// as /preconf. The block stays open here, so the transaction stays
// pre-confirmed. Either way its status is Known.
func TestViews(t *testing.T) {
	tests := []struct {
		name      string
		view      View
		flag      bool
		receipt   bool
		blockHash bool // the pending block has a hash (Base's shape)
	}{
		{"/", Standard, false, false, false},
		{"/preconf", Preconf, false, true, true},
		{"/ with --rpc.preconfirmed-receipts", Standard, true, true, true},
		{"/preconf with --rpc.preconfirmed-receipts", Preconf, true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newTestNode(t, time.Hour, 20*time.Millisecond, func(c *testConfig) { c.rpc.PreconfirmedReceipts = tt.flag }).in(tt.view)
			to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
			hash := n.send(4, &to, big.NewInt(1), params.TxGas, nil)
			var block map[string]any
			waitFor(t, "the transaction pre-confirmed", func() bool {
				n.result(&block, "eth_getBlockByNumber", "pending", false)
				txs := block["transactions"].([]any)
				return len(txs) == 1 && txs[0] == hash.Hex()
			})
			var receipt, tx map[string]any
			n.result(&receipt, "eth_getTransactionReceipt", hash)
			n.result(&tx, "eth_getTransactionByHash", hash)
			if tt.receipt {
				if receipt == nil || receipt["blockNumber"] != "0x1" || receipt["status"] != "0x1" || tx["blockNumber"] != "0x1" || tx["transactionIndex"] != "0x0" ||
					receipt["blockHash"] != block["hash"] || tx["blockHash"] != block["hash"] {
					t.Fatalf("receipt %v, transaction %v, pending block %v", receipt, tx, block["hash"])
				}
			} else if receipt != nil || tx["blockNumber"] != nil || tx["transactionIndex"] != nil || tx["blockHash"] != nil {
				t.Fatalf("receipt %v, transaction %v; want no receipt and no block fields", receipt, tx)
			}
			if got := block["hash"] != nil; got != tt.blockHash {
				t.Errorf("pending block's hash %v, want one: %v", block["hash"], tt.blockHash)
			}
			var byHash map[string]any
			n.result(&byHash, "eth_getBlockByHash", n.store.Load().Pending.PreconfHash(), false)
			if got := byHash != nil; got != tt.blockHash {
				t.Errorf("eth_getBlockByHash(PreconfHash) = %v, want the pending block: %v", byHash, tt.blockHash)
			}
			if got := n.status(hash); got != "Known" {
				t.Fatalf("status of a pre-confirmed transaction = %s", got)
			}
		})
	}
}

// base_transactionStatus through a transaction's life: Unknown, Known while
// pooled, pre-confirmed and sealed; a replaced transaction is Unknown
// again. Bad arguments are -32602.
func TestBaseTransactionStatus(t *testing.T) {
	n := newTestNode(t, 300*time.Millisecond, 30*time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	unknown := common.HexToHash("0x" + strings.Repeat("ab", 32))
	if got := n.status(unknown); got != "Unknown" {
		t.Fatalf("a hash never seen: %s", got)
	}

	// Pooled: a nonce gap keeps it queued, never executed.
	var next hexutil.Uint64
	n.result(&next, "eth_getTransactionCount", n.addr(5), "pending")
	queuedRaw, queued := n.signed(5, uint64(next)+1, big.NewInt(params.GWei), &to, nil, params.TxGas)
	var got common.Hash
	n.result(&got, "eth_sendRawTransaction", queuedRaw)
	if s := n.status(queued); s != "Known" {
		t.Fatalf("pooled: %s", s)
	}
	var receipt map[string]any
	if n.result(&receipt, "eth_getTransactionReceipt", queued); receipt != nil {
		t.Fatalf("a queued transaction has a receipt: %v", receipt)
	}
	// Replaced by a better-paying one: the first is gone.
	replacementRaw, replacement := n.signed(5, uint64(next)+1, big.NewInt(2*params.GWei), &to, nil, params.TxGas)
	n.result(&got, "eth_sendRawTransaction", replacementRaw)
	if s, r := n.status(queued), n.status(replacement); s != "Unknown" || r != "Known" {
		t.Fatalf("after replacement: replaced %s, replacement %s", s, r)
	}

	// Pre-confirmed, then sealed (filling the gap lets both run).
	fillRaw, fill := n.signed(5, uint64(next), big.NewInt(params.GWei), &to, nil, params.TxGas)
	n.result(&got, "eth_sendRawTransaction", fillRaw)
	if receipt := n.preconfirmedReceipt(fill); receipt != nil {
		if s := n.status(fill); s != "Known" {
			t.Fatalf("pre-confirmed: %s", s)
		}
	}
	n.waitSealed(replacement)
	if s, r := n.status(fill), n.status(replacement); s != "Known" || r != "Known" {
		t.Fatalf("sealed: %s, %s", s, r)
	}

	for _, params := range []string{`[]`, `["0x12"]`, `[5]`, `["` + unknown.Hex() + `","latest"]`, `{"hash":"` + unknown.Hex() + `"}`} {
		var resp rpcResponse
		json.Unmarshal([]byte(n.raw(`{"jsonrpc":"2.0","id":1,"method":"base_transactionStatus","params":`+params+`}`)), &resp)
		if resp.Error == nil || resp.Error.Code != -32602 {
			t.Errorf("base_transactionStatus(%s) = %s, %+v; want -32602", params, resp.Result, resp.Error)
		}
	}
}

// On a read replica, base_transactionStatus asks the sequencer about a
// transaction the replica does not know, within the request's deadline,
// and only then; when the sequencer does not say, the answer is an error,
// not Unknown.
func TestBaseTransactionStatusAsksSequencer(t *testing.T) {
	var (
		answer error // the sequencer's failure; nil: it answers known
		known  bool
		asked  []common.Hash
	)
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond, func(tc *testConfig) {
		tc.known = func(ctx context.Context, hash common.Hash) (bool, error) {
			if _, ok := ctx.Deadline(); !ok {
				t.Error("the sequencer is asked without a deadline")
			}
			asked = append(asked, hash)
			return known, answer
		}
	})
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	raw, local := n.signed(6, 0, big.NewInt(params.GWei), &to, nil, params.TxGas)
	var sent common.Hash
	n.result(&sent, "eth_sendRawTransaction", raw)
	n.waitSealed(local)
	elsewhere := common.HexToHash("0x" + strings.Repeat("cd", 32))

	cases := []struct {
		name    string
		hash    common.Hash
		known   bool
		answer  error
		want    string // the status, or the error's words
		asksSeq bool
	}{
		{"known to the replica", local, false, nil, "Known", false},
		{"known to the sequencer", elsewhere, true, nil, "Known", true},
		{"known to neither", elsewhere, false, nil, "Unknown", true},
		{"the sequencer does not answer", elsewhere, false, errors.New("the sequencer is not reachable"), "the sequencer is not reachable", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			known, answer, asked = c.known, c.answer, nil
			resp := n.call("base_transactionStatus", c.hash)
			got := string(resp.Result)
			if resp.Error != nil {
				got = resp.Error.Message
			}
			if !strings.Contains(got, c.want) || (c.answer == nil) != (resp.Error == nil) {
				t.Errorf("base_transactionStatus = %s, %+v; want %s", resp.Result, resp.Error, c.want)
			}
			if asksSeq := len(asked) > 0; asksSeq != c.asksSeq || (asksSeq && asked[0] != c.hash) {
				t.Errorf("the sequencer was asked about %v, want asked %v about %s", asked, c.asksSeq, c.hash)
			}
		})
	}
}
