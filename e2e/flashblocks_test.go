package e2e

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
// hash: the notifications and their logs name the block's PreconfHash,
// which eth_getBlockByHash on /preconf resolves to the sealed block once it
// is sealed (and / to nothing); bad parameters are -32602.
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
		if pre.BlockHash == nil || *pre.BlockHash == (common.Hash{}) || *pre.BlockHash == sealed.BlockHash {
			t.Fatalf("pre-confirmed %s names block %v, want the PreconfHash of block %d (not zero, not the sealed block's %s)", pre.Hash, pre.BlockHash, sealed.BlockNumber, sealed.BlockHash)
		}
		var viaPreconf, viaStandard *struct {
			Hash   common.Hash    `json:"hash"`
			Number hexutil.Uint64 `json:"number"`
		}
		if err := postJSONRPC(ctx, n.URL+"/preconf", "eth_getBlockByHash", &viaPreconf, *pre.BlockHash, false); err != nil || viaPreconf == nil ||
			viaPreconf.Hash != sealed.BlockHash || uint64(viaPreconf.Number) != sealed.BlockNumber.Uint64() {
			t.Fatalf("eth_getBlockByHash(%s) on /preconf after the seal = %+v, %v; want block %d %s", pre.BlockHash, viaPreconf, err, sealed.BlockNumber, sealed.BlockHash)
		}
		if err := postJSONRPC(ctx, n.URL, "eth_getBlockByHash", &viaStandard, *pre.BlockHash, false); err != nil || viaStandard != nil {
			t.Fatalf("eth_getBlockByHash(%s) on / = %+v, %v; want null: a PreconfHash is no block's hash", pre.BlockHash, viaStandard, err)
		}
		if uint64(pre.BlockNumber) != sealed.BlockNumber.Uint64() || uint(pre.TransactionIndex) != sealed.TransactionIndex ||
			uint64(pre.GasUsed) != sealed.GasUsed || uint64(pre.Status) != sealed.Status || uint64(pre.CumulativeGasUsed) != sealed.CumulativeGasUsed ||
			pre.LogsBloom != sealed.Bloom || pre.GasPrice.ToInt().Cmp(sealed.EffectiveGasPrice) != 0 {
			t.Fatalf("pre-confirmed %+v\nsealed %+v", pre, sealed)
		}
		if len(pre.Logs) != len(sealed.Logs) {
			t.Fatalf("%d logs pre-confirmed, %d sealed", len(pre.Logs), len(sealed.Logs))
		}
		for i, l := range pre.Logs {
			s := sealed.Logs[i]
			if l.BlockHash != *pre.BlockHash || l.Address != s.Address || l.Index != s.Index || l.TxIndex != s.TxIndex || l.BlockNumber != s.BlockNumber || string(l.Data) != string(s.Data) {
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

// viewBlock, viewTx and viewReceipt are as much of a block, a transaction
// and a receipt as TestPreconfAndStandardViews compares.
type viewBlock struct {
	Hash         *common.Hash    `json:"hash"`
	Number       hexutil.Uint64  `json:"number"`
	Miner        *common.Address `json:"miner"`
	Nonce        *hexutil.Bytes  `json:"nonce"`
	Transactions []common.Hash   `json:"transactions"`
}

type viewTx struct {
	Hash             common.Hash     `json:"hash"`
	BlockHash        *common.Hash    `json:"blockHash"`
	BlockNumber      *hexutil.Uint64 `json:"blockNumber"`
	TransactionIndex *hexutil.Uint64 `json:"transactionIndex"`
}

type viewReceipt struct {
	BlockHash        common.Hash    `json:"blockHash"`
	BlockNumber      hexutil.Uint64 `json:"blockNumber"`
	TransactionIndex hexutil.Uint64 `json:"transactionIndex"`
	Status           hexutil.Uint64 `json:"status"`
}

// The two views of one node, over HTTP and over WebSocket, while a
// transaction is pre-confirmed and after its block is sealed. /preconf and
// /preconf/ws answer as Base's Flashblocks RPC: the pre-confirmed
// transaction's receipt and block fields, naming the block's PreconfHash,
// and the pending block by that hash, with Base's hash, miner and nonce.
// / and /ws answer as every chain: no receipt, no block fields, no block by
// that hash, and a pending block without hash, miner or nonce. Once sealed,
// all four give the sealed block's receipt, and /preconf still finds the
// block by the PreconfHash its receipt had.
func TestPreconfAndStandardViews(t *testing.T) {
	n := startNode(t, "--block-time", "3s")
	ctx := testContext(t, 60*time.Second)
	c, standard := n.dial(t)
	_, standardWS := n.dialWS(t)
	dial := func(url string) *rpc.Client {
		rc, err := rpc.DialContext(ctx, url)
		if err != nil {
			t.Fatalf("rpc.Dial(%s): %v", url, err)
		}
		t.Cleanup(rc.Close)
		return rc
	}
	preconfURL, preconfWSURL := n.URL+"/preconf", strings.TrimSuffix(n.WS, "/ws")+"/preconf/ws"
	preconf, preconfWS := dial(preconfURL), dial(preconfWSURL)
	views := []struct {
		name    string
		c       *rpc.Client
		preconf bool
	}{{"/", standard, false}, {"/ws", standardWS, false}, {"/preconf", preconf, true}, {"/preconf/ws", preconfWS, true}}
	call := func(v string, c *rpc.Client, out any, method string, args ...any) {
		t.Helper()
		if err := c.CallContext(ctx, out, method, args...); err != nil {
			t.Fatalf("%s on %s: %v", method, v, err)
		}
	}
	headNow := func() uint64 {
		t.Helper()
		head, err := c.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return head
	}

	// Send right after a seal: the checks below then have most of a 3 s
	// block before the next one.
	head := headNow()
	poll(t, ctx, "the next block sealed", func() bool { return headNow() > head })
	to := freshAddress(t)
	tx := send(t, ctx, c, devAccount(t, 3), &to, big.NewInt(1), nil)
	var pre *viewReceipt
	var preRaw json.RawMessage
	poll(t, ctx, "the pre-confirmed receipt on /preconf", func() bool {
		call("/preconf", preconf, &preRaw, "eth_getTransactionReceipt", tx.Hash())
		return string(preRaw) != "null"
	})
	if err := json.Unmarshal(preRaw, &pre); err != nil {
		t.Fatal(err)
	}
	preconfHash, number := pre.BlockHash, uint64(pre.BlockNumber)
	if preconfHash == (common.Hash{}) || number <= head || pre.Status != 1 {
		t.Fatalf("pre-confirmed receipt %s: want the PreconfHash of a block after %d, status 1", preRaw, head)
	}

	for _, v := range views {
		var receipt json.RawMessage
		call(v.name, v.c, &receipt, "eth_getTransactionReceipt", tx.Hash())
		var txObj viewTx
		call(v.name, v.c, &txObj, "eth_getTransactionByHash", tx.Hash())
		var pendingBlock, byHash *viewBlock
		call(v.name, v.c, &pendingBlock, "eth_getBlockByNumber", "pending", false)
		call(v.name, v.c, &byHash, "eth_getBlockByHash", preconfHash, false)
		if pendingBlock == nil || uint64(pendingBlock.Number) != number || !slices.Contains(pendingBlock.Transactions, tx.Hash()) {
			t.Fatalf("%s: pending block %+v, want block %d holding %s", v.name, pendingBlock, number, tx.Hash())
		}
		if v.preconf {
			if string(receipt) != string(preRaw) {
				t.Errorf("%s: receipt %s, /preconf answered %s", v.name, receipt, preRaw)
			}
			if txObj.BlockHash == nil || *txObj.BlockHash != preconfHash || txObj.BlockNumber == nil || uint64(*txObj.BlockNumber) != number ||
				txObj.TransactionIndex == nil || *txObj.TransactionIndex != pre.TransactionIndex {
				t.Errorf("%s: transaction %+v, want block %s (%d) at index %d", v.name, txObj, preconfHash, number, pre.TransactionIndex)
			}
			if pendingBlock.Hash == nil || *pendingBlock.Hash != preconfHash || pendingBlock.Miner == nil || pendingBlock.Nonce == nil {
				t.Errorf("%s: pending block hash %v miner %v nonce %v, want %s and a miner and nonce, as Base's", v.name, pendingBlock.Hash, pendingBlock.Miner, pendingBlock.Nonce, preconfHash)
			}
			if byHash == nil || byHash.Hash == nil || *byHash.Hash != preconfHash || uint64(byHash.Number) != number ||
				int(pre.TransactionIndex) >= len(byHash.Transactions) || byHash.Transactions[pre.TransactionIndex] != tx.Hash() {
				t.Errorf("%s: eth_getBlockByHash(PreconfHash) = %+v, want the pending block %d with %s at %d", v.name, byHash, number, tx.Hash(), pre.TransactionIndex)
			}
		} else {
			if string(receipt) != "null" {
				t.Errorf("%s: receipt of a pre-confirmed, unsealed transaction %s, want null", v.name, receipt)
			}
			if txObj.Hash != tx.Hash() || txObj.BlockHash != nil || txObj.BlockNumber != nil || txObj.TransactionIndex != nil {
				t.Errorf("%s: transaction %+v, want it without block fields (pending)", v.name, txObj)
			}
			if pendingBlock.Hash != nil || pendingBlock.Miner != nil || pendingBlock.Nonce != nil {
				t.Errorf("%s: pending block hash %v miner %v nonce %v, want null, as geth's", v.name, pendingBlock.Hash, pendingBlock.Miner, pendingBlock.Nonce)
			}
			if byHash != nil {
				t.Errorf("%s: eth_getBlockByHash(PreconfHash) = %+v, want null", v.name, byHash)
			}
		}
	}
	if now := headNow(); now >= number {
		t.Fatalf("block %d was sealed (head %d) while the test read the transaction as pre-confirmed: the reads above may have seen the sealed block", number, now)
	}

	sealed := waitSealed(t, ctx, c, tx.Hash())
	if sealed.BlockNumber.Uint64() != number || sealed.TransactionIndex != uint(pre.TransactionIndex) {
		t.Fatalf("sealed in block %d at %d, pre-confirmed in %d at %d", sealed.BlockNumber, sealed.TransactionIndex, number, pre.TransactionIndex)
	}
	var want json.RawMessage
	call("/", standard, &want, "eth_getTransactionReceipt", tx.Hash())
	for _, v := range views {
		var receipt json.RawMessage
		call(v.name, v.c, &receipt, "eth_getTransactionReceipt", tx.Hash())
		if string(receipt) != string(want) {
			t.Errorf("%s: sealed receipt %s, / answers %s", v.name, receipt, want)
		}
		var txObj viewTx
		call(v.name, v.c, &txObj, "eth_getTransactionByHash", tx.Hash())
		if txObj.BlockHash == nil || *txObj.BlockHash != sealed.BlockHash {
			t.Errorf("%s: sealed transaction names block %v, want %s", v.name, txObj.BlockHash, sealed.BlockHash)
		}
		var byHash *viewBlock
		call(v.name, v.c, &byHash, "eth_getBlockByHash", preconfHash, false)
		switch {
		case v.preconf && (byHash == nil || byHash.Hash == nil || *byHash.Hash != sealed.BlockHash || uint64(byHash.Number) != number):
			t.Errorf("%s: eth_getBlockByHash(PreconfHash) after the seal = %+v, want the sealed block %d %s", v.name, byHash, number, sealed.BlockHash)
		case !v.preconf && byHash != nil:
			t.Errorf("%s: eth_getBlockByHash(PreconfHash) after the seal = %+v, want null", v.name, byHash)
		}
	}
}
