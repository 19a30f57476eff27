package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// TestFlashblocksJavaScript runs js/flashblocks-*.test.mjs against one node
// with 3 s blocks, through its two views: STOCKNODE_RPC (and STOCKNODE_WS)
// is its /preconf (and /preconf/ws), the Flashblocks RPC a client opts
// into, where ethers' tx.wait() and viem's waitForTransactionReceipt return
// before the block seals; STOCKNODE_RPC_STANDARD its /, the default, where
// they return once it is sealed.
func TestFlashblocksJavaScript(t *testing.T) {
	nodeBin := jsPrerequisites(t)
	n := startNode(t, "--block-time", "3s")
	runJSFiles(t, nodeBin, n, func(name string) bool { return strings.HasPrefix(name, "flashblocks") },
		"STOCKNODE_RPC="+n.URL+"/preconf", "STOCKNODE_WS="+strings.TrimSuffix(n.WS, "/ws")+"/preconf/ws", "STOCKNODE_RPC_STANDARD="+n.URL)
}

var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// flashblockTx is a full newFlashblockTransactions notification, as much of
// it as the test compares.
type flashblockTx struct {
	Hash              common.Hash     `json:"hash"`
	BlockHash         *common.Hash    `json:"blockHash"`
	BlockNumber       hexutil.Uint64  `json:"blockNumber"`
	TransactionIndex  hexutil.Uint64  `json:"transactionIndex"`
	From              common.Address  `json:"from"`
	GasPrice          *hexutil.Big    `json:"gasPrice"`
	GasUsed           hexutil.Uint64  `json:"gasUsed"`
	Status            hexutil.Uint64  `json:"status"`
	CumulativeGasUsed hexutil.Uint64  `json:"cumulativeGasUsed"`
	ContractAddress   *common.Address `json:"contractAddress"`
	LogsBloom         types.Bloom     `json:"logsBloom"`
	Logs              []*types.Log    `json:"logs"`
}

// subscribe subscribes to newFlashblockTransactions with arg (nil: none).
func subscribeFlashTxs[T any](t *testing.T, ctx context.Context, c *rpc.Client, arg any) chan T {
	t.Helper()
	ch := make(chan T, 64)
	args := []any{"newFlashblockTransactions"}
	if arg != nil {
		args = append(args, arg)
	}
	sub, err := c.EthSubscribe(ctx, ch, args...)
	if err != nil {
		t.Fatalf("eth_subscribe%v: %v", args, err)
	}
	t.Cleanup(sub.Unsubscribe)
	return ch
}

func next[T any](t *testing.T, ch chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
	}
	panic("unreachable")
}

// newFlashblockTransactions over the real binary's WebSocket, through
// go-ethereum's client: hashes, full transactions with their receipt
// fields and, with a filter, only the transactions with a matching log.
// Each notification is what the sealed block then says, but for the block
// hash; bad parameters are -32602.
func TestFlashblockTransactionsOverWebSocket(t *testing.T) {
	n := startNode(t, "--block-time", "1s")
	ctx := testContext(t, 60*time.Second)
	c, _ := n.dial(t)
	_, ws := n.dialWS(t)
	deployer, other := devAccount(t, 0), devAccount(t, 1)
	token := deployToken(t, ctx, c, deployer, tokens(1000))
	a, _ := loadToken(t)

	hashes := subscribeFlashTxs[common.Hash](t, ctx, ws, nil)
	full := subscribeFlashTxs[flashblockTx](t, ctx, ws, true)
	filtered := subscribeFlashTxs[flashblockTx](t, ctx, ws, map[string]any{"address": token, "topics": [][]common.Hash{{transferTopic}}})
	elsewhere := subscribeFlashTxs[flashblockTx](t, ctx, ws, map[string]any{"address": freshAddress(t)})

	to := freshAddress(t)
	plain := send(t, ctx, c, other, &to, big.NewInt(1), nil)
	if got := next(t, hashes, "first hash"); got != plain.Hash() {
		t.Fatalf("hash notification %s, want %s", got, plain.Hash())
	}
	transfer := send(t, ctx, c, deployer, &token, nil, pack(t, a, "transfer", to, tokens(2)))
	if got := next(t, hashes, "second hash"); got != transfer.Hash() {
		t.Fatalf("hash notification %s, want %s", got, transfer.Hash())
	}

	var fulls []flashblockTx
	for len(fulls) < 2 {
		if tx := next(t, full, "full transaction"); tx.Hash == plain.Hash() || tx.Hash == transfer.Hash() {
			fulls = append(fulls, tx)
		}
	}
	if got := next(t, filtered, "filtered transaction"); got.Hash != transfer.Hash() || len(got.Logs) != 1 {
		t.Fatalf("filtered notification %s with %d logs, want %s with its Transfer", got.Hash, len(got.Logs), transfer.Hash())
	}
	for _, pre := range fulls {
		sealed := waitSealed(t, ctx, c, pre.Hash)
		if pre.BlockHash != nil || uint64(pre.BlockNumber) != sealed.BlockNumber.Uint64() || uint(pre.TransactionIndex) != sealed.TransactionIndex ||
			uint64(pre.GasUsed) != sealed.GasUsed || uint64(pre.Status) != sealed.Status || uint64(pre.CumulativeGasUsed) != sealed.CumulativeGasUsed ||
			pre.LogsBloom != sealed.Bloom || pre.GasPrice.ToInt().Cmp(sealed.EffectiveGasPrice) != 0 {
			t.Fatalf("pre-confirmed %+v\nsealed %+v", pre, sealed)
		}
		if len(pre.Logs) != len(sealed.Logs) {
			t.Fatalf("%d logs pre-confirmed, %d sealed", len(pre.Logs), len(sealed.Logs))
		}
		for i, l := range pre.Logs {
			s := sealed.Logs[i]
			if l.BlockHash != (common.Hash{}) || l.Address != s.Address || l.Index != s.Index || l.TxIndex != s.TxIndex || l.BlockNumber != s.BlockNumber || string(l.Data) != string(s.Data) {
				t.Fatalf("log %d pre-confirmed %+v, sealed %+v", i, l, s)
			}
		}
	}
	select {
	case tx := <-elsewhere:
		t.Fatalf("a filter no log matches announced %s", tx.Hash)
	default:
	}

	for _, bad := range []struct {
		args []any
		want string
	}{
		{[]any{"newFlashblockTransactions", 1}, "expected a boolean or a filter object"},
		{[]any{"newFlashblockTransactions", map[string]any{"address": "0x1234"}}, "invalid address"},
		{[]any{"newFlashblockTransactions", map[string]any{"topics": []any{"0xzz"}}}, "invalid argument 1"},
		{[]any{"newFlashblockTransactions", true, "extra"}, "too many arguments"},
	} {
		_, err := ws.EthSubscribe(ctx, make(chan json.RawMessage), bad.args...)
		var rpcErr rpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32602 || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("eth_subscribe%v: %v, want -32602 with %q", bad.args, err, bad.want)
		}
	}
}

// base_transactionStatus through a transaction's life on the real binary:
// Unknown; Known while pooled (a nonce gap keeps it waiting); Unknown once
// replaced; Known pre-confirmed and sealed. Bad arguments are -32602.
func TestBaseTransactionStatusLifecycle(t *testing.T) {
	n := startNode(t, "--block-time", "1s")
	ctx := testContext(t, 60*time.Second)
	c, rc := n.dial(t)
	from := devAccount(t, 2)
	status := func(hash common.Hash) string {
		t.Helper()
		var out struct {
			Status string `json:"status"`
		}
		if err := rc.CallContext(ctx, &out, "base_transactionStatus", hash); err != nil {
			t.Fatalf("base_transactionStatus: %v", err)
		}
		return out.Status
	}
	if got := status(common.HexToHash("0x1234")); got != "Unknown" {
		t.Fatalf("a hash never seen: %s", got)
	}
	nonce, err := c.PendingNonceAt(ctx, from.addr)
	if err != nil {
		t.Fatal(err)
	}
	to := freshAddress(t)
	sign := func(nonce uint64, tip int64) *types.Transaction {
		tx, err := types.SignNewTx(from.key, types.LatestSignerForChainID(big.NewInt(chainID)), &types.DynamicFeeTx{
			ChainID: big.NewInt(chainID), Nonce: nonce, GasTipCap: big.NewInt(tip * params.GWei),
			GasFeeCap: big.NewInt(10 * tip * params.GWei), Gas: params.TxGas, To: &to, Value: big.NewInt(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("SendTransaction(nonce %d): %v", nonce, err)
		}
		return tx
	}
	queued := sign(nonce+1, 1)
	if got := status(queued.Hash()); got != "Known" {
		t.Fatalf("pooled behind a nonce gap: %s", got)
	}
	replacement := sign(nonce+1, 2)
	if got, r := status(queued.Hash()), status(replacement.Hash()); got != "Unknown" || r != "Known" {
		t.Fatalf("replaced: %s, the replacement: %s", got, r)
	}
	gap := sign(nonce, 1)
	poll(t, ctx, "the transactions pre-confirmed", func() bool {
		var block struct {
			Transactions []common.Hash `json:"transactions"`
		}
		if err := rc.CallContext(ctx, &block, "eth_getBlockByNumber", "pending", false); err != nil {
			t.Fatal(err)
		}
		return len(block.Transactions) > 0 && block.Transactions[len(block.Transactions)-1] == replacement.Hash()
	})
	if got, r := status(gap.Hash()), status(replacement.Hash()); got != "Known" || r != "Known" {
		t.Fatalf("pre-confirmed: %s, %s", got, r)
	}
	waitSealed(t, ctx, c, replacement.Hash())
	if got, r := status(gap.Hash()), status(replacement.Hash()); got != "Known" || r != "Known" {
		t.Fatalf("sealed: %s, %s", got, r)
	}
	for _, args := range [][]any{{}, {"0x1234"}, {42}, {gap.Hash(), "latest"}} {
		var out any
		err := rc.CallContext(ctx, &out, "base_transactionStatus", args...)
		var rpcErr rpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32602 {
			t.Errorf("base_transactionStatus%v = %v, %v; want -32602", args, out, err)
		}
	}
}
