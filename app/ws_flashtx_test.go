package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/node/ws"
)

// flashTx is the part of a full newFlashblockTransactions notification
// the test compares.
type flashTx struct {
	Hash              common.Hash     `json:"hash"`
	BlockHash         *common.Hash    `json:"blockHash"`
	BlockNumber       hexutil.Uint64  `json:"blockNumber"`
	TransactionIndex  hexutil.Uint64  `json:"transactionIndex"`
	From              common.Address  `json:"from"`
	GasPrice          hexutil.Big     `json:"gasPrice"`
	GasUsed           hexutil.Uint64  `json:"gasUsed"`
	Status            hexutil.Uint64  `json:"status"`
	CumulativeGasUsed hexutil.Uint64  `json:"cumulativeGasUsed"`
	ContractAddress   *common.Address `json:"contractAddress"`
	LogsBloom         hexutil.Bytes   `json:"logsBloom"`
	Logs              []struct {
		BlockHash common.Hash     `json:"blockHash"`
		LogIndex  hexutil.Uint64  `json:"logIndex"`
		Data      hexutil.Bytes   `json:"data"`
		Address   common.Address  `json:"address"`
		Topics    []common.Hash   `json:"topics"`
		TxIndex   hexutil.Uint64  `json:"transactionIndex"`
		Number    hexutil.Uint64  `json:"blockNumber"`
		Removed   bool            `json:"removed"`
		Timestamp *hexutil.Uint64 `json:"blockTimestamp"`
	} `json:"logs"`
}

// newFlashblockTransactions as Base documents it: one notification per
// pre-confirmed transaction, its hash by default (or with false), the
// transaction with its receipt's fields with true, and with a filter object
// only the transactions with a matching log. What it says is what the
// sealed block then says, but for the block hash.
func TestNewFlashblockTransactions(t *testing.T) {
	n := startNodeWith(t, time.Second, ws.DefaultConfig(), func(cfg *app.Config) {
		cfg.Sequencer.PreconfInterval = 50 * time.Millisecond
	})
	c := n.dial()
	contract := n.deployLogContract(c)
	elsewhere := common.HexToAddress("0x00000000000000000000000000000000000000ee")

	hashes := c.subscribe("newFlashblockTransactions")
	hashesFalse := c.subscribe("newFlashblockTransactions", false)
	full := c.subscribe("newFlashblockTransactions", true)
	filtered := c.subscribe("newFlashblockTransactions", map[string]any{"address": contract, "topics": []any{logTopic}})
	anyLog := c.subscribe("newFlashblockTransactions", map[string]any{})
	other := c.subscribe("newFlashblockTransactions", map[string]any{"address": elsewhere})
	pendingLogs := c.subscribe("pendingLogs", map[string]any{"address": contract})

	sent := []common.Hash{
		n.sendTx(c, 1, &elsewhere, nil, params.TxGas),          // no log
		n.sendTx(c, 1, &contract, []byte{0xbe, 0xef}, 100_000), // a log
		n.sendTx(c, 2, &contract, []byte{0x01}, 100_000),       // a log, another sender
	}
	for _, sub := range []string{hashes, hashesFalse} {
		for i, raw := range c.waitNotes(sub, len(sent), 10*time.Second) {
			var h common.Hash
			if err := json.Unmarshal(raw, &h); err != nil || h != sent[i] {
				t.Fatalf("hash notification %d = %s, want %s in order", i, raw, sent[i])
			}
		}
	}
	fulls := c.waitNotes(full, len(sent), 10*time.Second)
	matching := c.waitNotes(filtered, 2, 10*time.Second)
	withLogs := c.waitNotes(anyLog, 2, 10*time.Second)
	logs := c.waitNotes(pendingLogs, 2, 10*time.Second)

	for i, raw := range fulls {
		var tx flashTx
		if err := json.Unmarshal(raw, &tx); err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		json.Unmarshal(raw, &fields)
		for _, f := range []string{"type", "chainId", "nonce", "gas", "maxFeePerGas", "maxPriorityFeePerGas", "to", "value", "accessList", "input", "r", "s", "yParity", "v", "hash", "blockHash", "blockNumber", "transactionIndex", "from", "gasPrice", "gasUsed", "status", "cumulativeGasUsed", "contractAddress", "logsBloom", "logs"} {
			if _, ok := fields[f]; !ok {
				t.Fatalf("full notification lacks %s: %s", f, raw)
			}
		}
		if tx.Hash != sent[i] || tx.BlockHash == nil || *tx.BlockHash == (common.Hash{}) {
			t.Fatalf("full notification %d: hash %s blockHash %v, want %s and the pending block's PreconfHash", i, tx.Hash, tx.BlockHash, sent[i])
		}
		// The sealed block says the same, but for the block hash.
		var sealed map[string]any
		for sealed == nil || sealed["blockHash"] == (common.Hash{}).Hex() {
			result(t, c.call("eth_getTransactionReceipt", tx.Hash), &sealed)
			var head hexutil.Uint64
			result(t, c.call("eth_blockNumber"), &head)
			if sealed != nil && hexutil.MustDecodeUint64(sealed["blockNumber"].(string)) > uint64(head) {
				sealed = nil
			}
			time.Sleep(20 * time.Millisecond)
		}
		var sealedTx map[string]any
		result(t, c.call("eth_getTransactionByHash", tx.Hash), &sealedTx)
		for key, want := range map[string]any{
			"blockNumber": sealed["blockNumber"], "transactionIndex": sealed["transactionIndex"], "gasUsed": sealed["gasUsed"],
			"status": sealed["status"], "cumulativeGasUsed": sealed["cumulativeGasUsed"], "logsBloom": sealed["logsBloom"],
			"contractAddress": sealed["contractAddress"], "gasPrice": sealedTx["gasPrice"], "from": sealedTx["from"],
		} {
			if fields[key] != want {
				t.Errorf("tx %d: %s = %v, the sealed block says %v", i, key, fields[key], want)
			}
		}
		sealedLogs := sealed["logs"].([]any)
		if len(tx.Logs) != len(sealedLogs) {
			t.Fatalf("tx %d: %d logs, the sealed receipt %d", i, len(tx.Logs), len(sealedLogs))
		}
		for j, l := range fields["logs"].([]any) {
			pre, post := l.(map[string]any), sealedLogs[j].(map[string]any)
			if pre["blockHash"] != tx.BlockHash.Hex() {
				t.Fatalf("a pre-confirmed log names block %v, its transaction %v", pre["blockHash"], tx.BlockHash)
			}
			pre["blockHash"] = post["blockHash"]
			if a, b := mustMarshal(pre), mustMarshal(post); a != b {
				t.Errorf("tx %d log %d: pre-confirmed %s, sealed %s", i, j, a, b)
			}
		}
	}
	for i, raw := range matching {
		var tx flashTx
		json.Unmarshal(raw, &tx)
		if tx.Hash != sent[i+1] || len(tx.Logs) != 1 || tx.Logs[0].Address != contract {
			t.Fatalf("filtered notification %d = %s, want %s with its log", i, raw, sent[i+1])
		}
	}
	for i, raw := range withLogs {
		var tx flashTx
		json.Unmarshal(raw, &tx)
		if tx.Hash != sent[i+1] {
			t.Fatalf("{} filter notification %d is of %s, want %s: a transaction without logs matches no filter", i, tx.Hash, sent[i+1])
		}
	}
	for i, raw := range logs {
		var l struct {
			BlockHash common.Hash `json:"blockHash"`
		}
		json.Unmarshal(raw, &l)
		var full flashTx
		json.Unmarshal(fulls[i+1], &full)
		if full.BlockHash == nil || l.BlockHash != *full.BlockHash {
			t.Fatalf("pendingLogs notification names block %s, its transaction's notification %v: %s", l.BlockHash, full.BlockHash, raw)
		}
	}
	// Every transaction above is sealed now, so all their notifications
	// went out: neither the unmatched filter nor the filtered ones got more.
	if got := c.noteCount(other); got != 0 {
		t.Fatalf("a filter no log matches got %d notifications", got)
	}
	if got := c.noteCount(filtered); got != 2 {
		t.Fatalf("the filtered subscription got %d notifications, want 2", got)
	}
	if got := c.noteCount(full); got != len(sent) {
		t.Fatalf("the full subscription got %d notifications, want %d: one per transaction, once", got, len(sent))
	}
}

func mustMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Bad parameters of newFlashblockTransactions get -32602 with what is wrong,
// and subscribe nothing.
func TestNewFlashblockTransactionsBadParams(t *testing.T) {
	n := startNode(t, 0, ws.DefaultConfig())
	c := n.dial()
	for _, tc := range []struct {
		params []any
		want   string
	}{
		{[]any{"newFlashblockTransactions", 5}, "expected a boolean or a filter object"},
		{[]any{"newFlashblockTransactions", "true"}, "expected a boolean or a filter object"},
		{[]any{"newFlashblockTransactions", []any{}}, "expected a boolean or a filter object"},
		{[]any{"newFlashblockTransactions", map[string]any{"address": "0x12"}}, "invalid address"},
		{[]any{"newFlashblockTransactions", map[string]any{"topics": []any{"0x12"}}}, "invalid argument 1"},
		{[]any{"newFlashblockTransactions", map[string]any{"topics": []any{nil, nil, nil, nil, nil}}}, "exceed max topics"},
		{[]any{"newFlashblockTransactions", true, true}, "too many arguments"},
	} {
		resp := string(c.call("eth_subscribe", tc.params...))
		if !strings.Contains(resp, `"code":-32602`) || !strings.Contains(resp, tc.want) {
			t.Errorf("eth_subscribe%v = %s, want -32602 with %q", tc.params, resp, tc.want)
		}
	}
	if _, subs, _ := n.node.WSStats(); subs != 0 {
		t.Fatalf("%d subscriptions after only refusals", subs)
	}
}
