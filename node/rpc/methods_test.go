package rpc

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/callbound"
)

func bigOf(t *testing.T, s string) *big.Int {
	t.Helper()
	v, err := hexutil.DecodeBig(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// A transfer is visible in pending before latest, at every block tag.
func TestBalancesAcrossTags(t *testing.T) {
	n := newTestNode(t, 500*time.Millisecond, 50*time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000ab")
	hash := n.send(0, &to, big.NewInt(777), 21000, nil)

	var pend, latest string
	waitFor(t, "pending balance", func() bool {
		n.result(&pend, "eth_getBalance", to, "pending")
		return pend == "0x309"
	})
	receipt := n.waitSealed(hash)
	block := receipt["blockNumber"].(string)
	blockHash := receipt["blockHash"].(string)
	for _, tag := range []any{"latest", "safe", "finalized", block, map[string]any{"blockHash": blockHash}, map[string]any{"blockNumber": block}, map[string]any{"blockHash": blockHash, "requireCanonical": true}} {
		n.result(&latest, "eth_getBalance", to, tag)
		if latest != "0x309" {
			t.Errorf("balance at %v = %s, want 0x309", tag, latest)
		}
	}
	for _, tag := range []any{"earliest", "0x0"} {
		n.result(&latest, "eth_getBalance", to, tag)
		if latest != "0x0" {
			t.Errorf("balance at %v = %s, want 0x0", tag, latest)
		}
	}
	// Omitted block parameter means latest.
	n.result(&latest, "eth_getBalance", to)
	if latest != "0x309" {
		t.Errorf("balance without a tag = %s", latest)
	}
	// Dev account 0 paid value and fees: its nonce moved.
	var nonce string
	n.result(&nonce, "eth_getTransactionCount", n.addr(0), "latest")
	if nonce != "0x1" {
		t.Errorf("nonce = %s", nonce)
	}
	// Unknown blocks answer as geth.
	if resp := n.call("eth_getBalance", to, "0xffffff"); resp.Error == nil || resp.Error.Message != "header not found" {
		t.Errorf("future block: %+v", resp.Error)
	}
	if resp := n.call("eth_getBalance", to, map[string]any{"blockHash": "0x" + strings.Repeat("12", 32)}); resp.Error == nil || resp.Error.Message != "header for hash not found" {
		t.Errorf("unknown hash: %+v", resp.Error)
	}
}

func TestCallCodeStorageAndReverts(t *testing.T) {
	n := newTestNode(t, 100*time.Millisecond, 20*time.Millisecond)
	// Deploy answerRuntime and read it at pending and latest.
	hash := n.send(1, nil, new(big.Int), 200_000, deployCode(answerRuntime))
	receipt := n.waitSealed(hash)
	contract := common.HexToAddress(receipt["contractAddress"].(string))
	if contract != crypto.CreateAddress(n.addr(1), 0) {
		t.Fatalf("contractAddress = %s", contract)
	}
	var code, ret string
	n.result(&code, "eth_getCode", contract, "latest")
	if code != hexutil.Encode(answerRuntime) {
		t.Fatalf("code = %s", code)
	}
	for _, tag := range []string{"latest", "pending"} {
		n.result(&ret, "eth_call", map[string]any{"to": contract}, tag)
		if ret != "0x"+strings.Repeat("0", 62)+"2a" {
			t.Fatalf("call at %s = %s", tag, ret)
		}
	}
	// A revert with a reason: -32000, the reason, and the revert data.
	target := common.HexToAddress("0x00000000000000000000000000000000000000cd")
	resp := n.call("eth_call", map[string]any{"to": target}, "latest", map[string]any{target.Hex(): map[string]any{"code": hexutil.Encode(revertRuntime)}})
	if resp.Error == nil || resp.Error.Code != -32000 || resp.Error.Message != "execution reverted" {
		t.Fatalf("revert: %+v", resp.Error)
	}
	var data hexutil.Bytes
	if err := json.Unmarshal(resp.Error.Data, &data); err != nil {
		t.Fatalf("revert data %s: %v", resp.Error.Data, err)
	}
	if reason, err := abi.UnpackRevert(data); err != nil || reason != "nope" {
		t.Fatalf("revert data %s decodes to %q, %v", resp.Error.Data, reason, err)
	}
	// State override of a balance, and storage reads.
	var bal string
	n.result(&ret, "eth_call", map[string]any{"to": target, "value": "0x1", "from": n.addr(9)}, "latest", map[string]any{n.addr(9).Hex(): map[string]any{"balance": "0x10"}})
	n.result(&bal, "eth_getBalance", n.addr(9), "latest")
	if bigOf(t, bal).Cmp(big.NewInt(0x10)) == 0 {
		t.Fatal("state override leaked into the chain")
	}
	var slot string
	n.result(&slot, "eth_getStorageAt", "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02", "0x0", "latest")
	if len(slot) != 66 {
		t.Fatalf("storage = %s", slot)
	}
	// Gas estimation of a transfer and of the deployment.
	var gas string
	n.result(&gas, "eth_estimateGas", map[string]any{"from": n.addr(2), "to": target, "value": "0x1"})
	if gas != "0x5208" {
		t.Fatalf("estimateGas(transfer) = %s", gas)
	}
	if resp := n.call("eth_estimateGas", map[string]any{"to": target}, "latest", map[string]any{target.Hex(): map[string]any{"code": hexutil.Encode(revertRuntime)}}); resp.Error == nil || resp.Error.Message != "execution reverted" || len(resp.Error.Data) == 0 {
		t.Fatalf("estimateGas(revert) = %+v", resp.Error)
	}
	var al map[string]any
	n.result(&al, "eth_createAccessList", map[string]any{"from": n.addr(2), "to": contract})
	if _, ok := al["accessList"]; !ok || al["gasUsed"] == nil {
		t.Fatalf("createAccessList = %v", al)
	}
}

func TestBlocksTransactionsReceiptsLogs(t *testing.T) {
	n := newTestNode(t, 300*time.Millisecond, 30*time.Millisecond)
	hash := n.send(3, nil, new(big.Int), 200_000, deployCode(logRuntime))
	contract := common.HexToAddress(n.waitSealed(hash)["contractAddress"].(string))

	logTx := n.send(3, &contract, new(big.Int), 100_000, []byte{0xbe, 0xef})
	// Pre-confirmed: the receipt and log are visible through the pending
	// block; by hash the transaction has no block and no receipt yet.
	var tx map[string]any
	var pendingReceipts []map[string]any
	waitFor(t, "pre-confirmed receipt", func() bool {
		n.result(&pendingReceipts, "eth_getBlockReceipts", "pending")
		return len(pendingReceipts) == 1
	})
	if pendingReceipts[0]["transactionHash"] != logTx.Hex() || len(pendingReceipts[0]["logs"].([]any)) != 1 {
		t.Fatalf("pending receipts = %v", pendingReceipts)
	}
	var early map[string]any
	n.result(&early, "eth_getTransactionReceipt", logTx)
	n.result(&tx, "eth_getTransactionByHash", logTx)
	if tx["hash"] != logTx.Hex() || tx["from"] != strings.ToLower(n.addr(3).Hex()) {
		t.Fatalf("tx = %v", tx)
	}
	if early == nil && tx["blockHash"] != nil {
		t.Fatalf("a transaction without receipt names block %v", tx["blockHash"])
	}
	var pendingLogs []map[string]any
	n.result(&pendingLogs, "eth_getLogs", map[string]any{"fromBlock": "pending", "toBlock": "pending", "address": contract})
	var filterID string
	n.result(&filterID, "eth_newFilter", map[string]any{"address": contract, "topics": []any{logTopic}})
	var blockFilter string
	n.result(&blockFilter, "eth_newBlockFilter")

	receipt := n.waitSealed(logTx)
	if receipt["status"] != "0x1" || len(receipt["logs"].([]any)) != 1 {
		t.Fatalf("receipt = %v", receipt)
	}
	var logs []map[string]any
	n.result(&logs, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest", "topics": []any{[]any{logTopic, nil}}})
	if len(logs) != 1 || logs[0]["data"] != "0xbeef" || logs[0]["transactionHash"] != logTx.Hex() {
		t.Fatalf("logs = %v", logs)
	}
	if len(pendingLogs) > 1 {
		t.Fatalf("pending logs = %v", pendingLogs)
	}
	var changes []map[string]any
	waitFor(t, "filter changes", func() bool {
		n.result(&changes, "eth_getFilterChanges", filterID)
		return len(changes) > 0
	})
	if changes[0]["transactionHash"] != logTx.Hex() {
		t.Fatalf("filter changes = %v", changes)
	}
	var hashes []string
	n.result(&hashes, "eth_getFilterChanges", blockFilter)
	if len(hashes) == 0 {
		t.Fatal("block filter reported no blocks")
	}
	var ok bool
	n.result(&ok, "eth_uninstallFilter", filterID)
	if !ok {
		t.Fatal("uninstall failed")
	}
	if resp := n.call("eth_getFilterChanges", filterID); resp.Error == nil || resp.Error.Message != "filter not found" {
		t.Fatalf("removed filter: %+v", resp.Error)
	}

	// Blocks by number and hash, with and without full transactions.
	block := receipt["blockNumber"].(string)
	var byNum, byHash map[string]any
	n.result(&byNum, "eth_getBlockByNumber", block, true)
	n.result(&byHash, "eth_getBlockByHash", receipt["blockHash"], false)
	if byNum["hash"] != receipt["blockHash"] || byHash["number"] != block {
		t.Fatalf("blocks differ: %v / %v", byNum["hash"], byHash["number"])
	}
	if txs := byNum["transactions"].([]any); len(txs) != 1 || txs[0].(map[string]any)["hash"] != logTx.Hex() {
		t.Fatalf("full transactions = %v", txs)
	}
	var count string
	n.result(&count, "eth_getBlockTransactionCountByHash", receipt["blockHash"])
	if count != "0x1" {
		t.Fatalf("tx count = %s", count)
	}
	var byIndex map[string]any
	n.result(&byIndex, "eth_getTransactionByBlockNumberAndIndex", block, "0x0")
	if byIndex["hash"] != logTx.Hex() {
		t.Fatalf("by index = %v", byIndex)
	}
	var receipts []map[string]any
	n.result(&receipts, "eth_getBlockReceipts", block)
	if len(receipts) != 1 || receipts[0]["transactionHash"] != logTx.Hex() {
		t.Fatalf("block receipts = %v", receipts)
	}
	var pendingBlock map[string]any
	n.result(&pendingBlock, "eth_getBlockByNumber", "pending", false)
	if pendingBlock["hash"] != nil || pendingBlock["miner"] != nil {
		t.Fatalf("pending block has hash/miner: %v", pendingBlock)
	}
	var missing map[string]any
	n.result(&missing, "eth_getBlockByNumber", "0xfffffff", false)
	if missing != nil {
		t.Fatalf("future block = %v", missing)
	}
	n.result(&missing, "eth_getTransactionByHash", "0x"+strings.Repeat("ab", 32))
	if missing != nil {
		t.Fatalf("unknown tx = %v", missing)
	}
	var history map[string]any
	n.result(&history, "eth_feeHistory", "0x2", "latest", []float64{25, 75})
	if len(history["baseFeePerGas"].([]any)) != 3 || len(history["reward"].([]any)) != 2 || len(history["gasUsedRatio"].([]any)) != 2 {
		t.Fatalf("feeHistory = %v", history)
	}
}

// Pool rejections reach the client as -32000 with geth's message.
func TestSendRawTransactionErrors(t *testing.T) {
	n := newTestNode(t, 0, 0)
	if resp := n.call("eth_sendRawTransaction", "0x02c0"); resp.Error == nil || !strings.Contains(resp.Error.Message, "decode transaction") {
		t.Fatalf("garbage tx: %+v", resp.Error)
	}
	to := common.Address{1}
	tx, err := types.SignNewTx(n.keys[0], types.HomesteadSigner{}, &types.LegacyTx{Nonce: 0, GasPrice: big.NewInt(10 * params.GWei), Gas: 21000, To: &to, Value: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	if resp := n.call("eth_sendRawTransaction", hexutil.Bytes(raw)); resp.Error == nil || resp.Error.Message != "only replay-protected (EIP-155) transactions allowed over RPC" {
		t.Fatalf("unprotected tx: %+v", resp.Error)
	}
	n.srv.cfg.AllowUnprotectedTxs = true
	if resp := n.call("eth_sendRawTransaction", hexutil.Bytes(raw)); resp.Error != nil {
		t.Fatalf("unprotected tx with the flag: %+v", resp.Error)
	}
}

// An unknown transaction is null, also on a chain that has only its genesis.
func TestUnknownTransactionOnFreshChain(t *testing.T) {
	n := newTestNode(t, 0, 0)
	resp := n.call("eth_getTransactionByHash", "0x"+strings.Repeat("ab", 32))
	if resp.Error != nil || string(resp.Result) != "null" {
		t.Fatalf("got %s / %+v", resp.Result, resp.Error)
	}
}

// With every eth_call worker busy and the wait list full, a call is
// answered at once with -32005; the busy ones end at the EVM time limit.
func TestCallPoolOverload(t *testing.T) {
	n := newTestNode(t, 0, 0)
	calls := callbound.New(callbound.Config{Workers: 1, Queue: 1})
	cfg := DefaultConfig()
	// Far below what 50M gas of this loop takes (about 40 ms on a fast
	// core without the race detector: 50 ms could run out of gas first).
	cfg.EVMTimeout = 10 * time.Millisecond
	b := n.srv.b
	b.Calls = calls
	n.srv = New(cfg, b, nil)
	defer n.srv.Close()

	loop := common.HexToAddress("0x00000000000000000000000000000000000000ee")
	override := map[string]any{loop.Hex(): map[string]any{"code": "0x5b600056"}} // JUMPDEST PUSH1 0 JUMP
	type outcome struct {
		code int
		msg  string
	}
	results := make(chan outcome, 4)
	for i := 0; i < 4; i++ {
		go func() {
			resp := n.call("eth_call", map[string]any{"to": loop}, "latest", override)
			if resp.Error == nil {
				results <- outcome{}
				return
			}
			results <- outcome{resp.Error.Code, resp.Error.Message}
		}()
		time.Sleep(time.Millisecond)
	}
	var limited, timedOut int
	for i := 0; i < 4; i++ {
		switch o := <-results; {
		case o.code == -32005 && o.msg == "request limit exceeded":
			limited++
		case o.code == -32000 && strings.Contains(o.msg, "execution aborted (timeout = 10ms)"):
			timedOut++
		default:
			t.Errorf("unexpected outcome %+v", o)
		}
	}
	if limited == 0 || timedOut == 0 {
		t.Fatalf("%d limited, %d timed out; want both", limited, timedOut)
	}
}
