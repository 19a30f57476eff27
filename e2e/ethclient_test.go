package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/gethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"
)

var (
	gwei  = big.NewInt(params.GWei)
	ether = big.NewInt(params.Ether)
)

func tokens(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), ether) }

// Chain identity, head, fee suggestions and fee history as ethclient reads them.
func TestEthclientChainInfo(t *testing.T) {
	n := startNode(t)
	c, _ := n.dial(t)
	ctx := testContext(t, 30*time.Second)

	id, err := c.ChainID(ctx)
	if err != nil || id.Int64() != chainID {
		t.Fatalf("ChainID = %v, %v; want %d", id, err, chainID)
	}
	netID, err := c.NetworkID(ctx)
	if err != nil || netID.Int64() != chainID {
		t.Fatalf("NetworkID = %v, %v; want %d", netID, err, chainID)
	}
	if sync, err := c.SyncProgress(ctx); err != nil || sync != nil {
		t.Fatalf("SyncProgress = %+v, %v; want nil (not syncing)", sync, err)
	}
	if peers, err := c.PeerCount(ctx); err != nil || peers != 0 {
		t.Fatalf("PeerCount = %d, %v", peers, err)
	}

	// The head moves: a block every 200 ms.
	first, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "eth_blockNumber never increased", func() bool {
		now, err := c.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return now >= max(first+2, 5) // five blocks for a four-block fee history
	})

	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatalf("HeaderByNumber(nil): %v", err)
	}
	if head.Number.Uint64() < max(first+2, 5) {
		t.Errorf("latest header %d is behind eth_blockNumber %d", head.Number, max(first+2, 5))
	}
	if head.BaseFee == nil || head.BaseFee.Cmp(gwei) < 0 {
		t.Errorf("baseFee %v below the 1 gwei floor", head.BaseFee)
	}
	if age := time.Since(time.Unix(int64(head.Time), 0)); age < -time.Second || age > time.Minute {
		t.Errorf("latest header's timestamp is %v away from now", age)
	}
	if head.GasLimit != 30_000_000 {
		t.Errorf("gasLimit %d, want 30,000,000", head.GasLimit)
	}
	byHash, err := c.HeaderByHash(ctx, head.Hash())
	if err != nil || byHash.Hash() != head.Hash() {
		t.Fatalf("HeaderByHash(%s) = %v, %v: the hash the node serves must be the header's RLP hash", head.Hash(), byHash, err)
	}
	block, err := c.BlockByNumber(ctx, head.Number)
	if err != nil || block.Hash() != head.Hash() {
		t.Fatalf("BlockByNumber(%d) = %v, %v", head.Number, block, err)
	}
	if _, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(head.Number.Uint64()+1_000_000)); !errors.Is(err, ethereum.NotFound) {
		t.Errorf("HeaderByNumber(far future) error = %v, want ethereum.NotFound (result null)", err)
	}

	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil || tip.Sign() < 0 {
		t.Fatalf("SuggestGasTipCap = %v, %v", tip, err)
	}
	price, err := c.SuggestGasPrice(ctx)
	if err != nil {
		t.Fatalf("SuggestGasPrice: %v", err)
	}
	if price.Cmp(gwei) < 0 {
		t.Errorf("SuggestGasPrice %v is below the base fee floor: a legacy transaction priced with it is never included", price)
	}

	hist, err := c.FeeHistory(ctx, 4, nil, []float64{25, 75})
	if err != nil {
		t.Fatalf("FeeHistory: %v", err)
	}
	if hist.OldestBlock.Uint64()+3 < head.Number.Uint64() || len(hist.BaseFee) != 5 || len(hist.GasUsedRatio) != 4 || len(hist.Reward) != 4 {
		t.Fatalf("FeeHistory(4, latest) = oldest %v, %d base fees, %d ratios, %d rewards; want 4 blocks ending at latest >= %d, 5 base fees",
			hist.OldestBlock, len(hist.BaseFee), len(hist.GasUsedRatio), len(hist.Reward), head.Number)
	}
	for i, r := range hist.Reward {
		if len(r) != 2 {
			t.Errorf("reward[%d] has %d percentiles, want 2", i, len(r))
		}
	}
	for i, fee := range hist.BaseFee {
		if fee.Cmp(gwei) < 0 {
			t.Errorf("baseFee[%d] = %v below the floor", i, fee)
		}
	}
}

// The Token contract through its whole life with ethclient, on a chain slow
// enough (1 s blocks, pre-confirmations every 100 ms) that pending and latest
// visibly differ: deploy, views, ETH and token transfers seen in pending
// before latest, receipts and logs, blocks and transactions.
func TestEthclientTokenPendingBeforeLatest(t *testing.T) {
	n := startNode(t, "--block-time", "1s", "--preconf-interval", "100ms")
	c, _ := n.dial(t)
	ctx := testContext(t, 90*time.Second)
	a, _ := loadToken(t)
	deployer, sender := devAccount(t, 0), devAccount(t, 1)
	supply := tokens(1_000_000)

	token := deployToken(t, ctx, c, deployer, supply)

	t.Run("views", func(t *testing.T) {
		code, err := c.CodeAt(ctx, token, nil)
		if err != nil || len(code) == 0 {
			t.Fatalf("CodeAt(token, latest) = %d bytes, %v", len(code), err)
		}
		call := func(method string, args ...any) []any {
			out, err := c.CallContract(ctx, ethCallMsg(common.Address{}, &token, nil, pack(t, a, method, args...)), nil)
			if err != nil {
				t.Fatalf("%s: %v", method, err)
			}
			vals, err := a.Unpack(method, out)
			if err != nil {
				t.Fatalf("unpack %s(%x): %v", method, out, err)
			}
			return vals
		}
		if got := call("name")[0].(string); got != "Stock Token" {
			t.Errorf("name() = %q", got)
		}
		if got := call("symbol")[0].(string); got != "STK" {
			t.Errorf("symbol() = %q", got)
		}
		if got := call("decimals")[0].(uint8); got != 18 {
			t.Errorf("decimals() = %d", got)
		}
		if got := call("totalSupply")[0].(*big.Int); got.Cmp(supply) != 0 {
			t.Errorf("totalSupply() = %v", got)
		}
		if got := call("balanceOf", deployer.addr)[0].(*big.Int); got.Cmp(supply) != 0 {
			t.Errorf("balanceOf(deployer) = %v, want %v", got, supply)
		}
	})

	t.Run("ETH transfer in pending before latest", func(t *testing.T) {
		value := new(big.Int).Mul(big.NewInt(3), ether)
		read := func(to common.Address, pending bool) *big.Int {
			var bal *big.Int
			var err error
			if pending {
				bal, err = c.PendingBalanceAt(ctx, to)
			} else {
				bal, err = c.BalanceAt(ctx, to, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			return bal
		}
		pendingBeforeLatest(t, ctx, func() (common.Address, *types.Transaction) {
			to := freshAddress(t)
			return to, send(t, ctx, c, sender, &to, value, nil)
		}, func(to common.Address, pending bool) bool {
			bal := read(to, pending)
			if bal.Sign() != 0 && bal.Cmp(value) != 0 {
				t.Fatalf("balance %v, want 0 or %v", bal, value)
			}
			return bal.Sign() != 0
		})
	})

	t.Run("token transfer in pending before latest", func(t *testing.T) {
		value := tokens(250)
		var last *types.Transaction
		pendingBeforeLatest(t, ctx, func() (common.Address, *types.Transaction) {
			to := freshAddress(t)
			last = send(t, ctx, c, deployer, &token, nil, pack(t, a, "transfer", to, value))
			return to, last
		}, func(to common.Address, pending bool) bool {
			msg := ethCallMsg(common.Address{}, &token, nil, pack(t, a, "balanceOf", to))
			var out []byte
			var err error
			if pending {
				out, err = c.PendingCallContract(ctx, msg)
			} else {
				out, err = c.CallContract(ctx, msg, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			bal := new(big.Int).SetBytes(out)
			if bal.Sign() != 0 && bal.Cmp(value) != 0 {
				t.Fatalf("balanceOf %v, want 0 or %v", bal, value)
			}
			return bal.Sign() != 0
		})
	})

	t.Run("nonce in pending before latest", func(t *testing.T) {
		// The pending nonce counts an accepted transaction (wallets send the
		// next one with it); latest counts it once it is sealed.
		from := devAccount(t, 2)
		var before uint64
		pendingBeforeLatest(t, ctx, func() (common.Address, *types.Transaction) {
			var err error
			if before, err = c.NonceAt(ctx, from.addr, nil); err != nil {
				t.Fatal(err)
			}
			to := freshAddress(t)
			return to, send(t, ctx, c, from, &to, big.NewInt(1), nil)
		}, func(_ common.Address, pending bool) bool {
			var nonce uint64
			var err error
			if pending {
				nonce, err = c.PendingNonceAt(ctx, from.addr)
			} else {
				nonce, err = c.NonceAt(ctx, from.addr, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			if nonce != before && nonce != before+1 {
				t.Fatalf("nonce %d (pending %v), want %d or %d", nonce, pending, before, before+1)
			}
			return nonce == before+1
		})
	})

	t.Run("receipt, logs, block and transaction", func(t *testing.T) {
		to := freshAddress(t)
		value := tokens(7)
		data := pack(t, a, "transfer", to, value)
		estimate, err := c.EstimateGas(ctx, ethCallMsg(deployer.addr, &token, nil, data))
		if err != nil {
			t.Fatal(err)
		}
		tx := send(t, ctx, c, deployer, &token, nil, data)
		if got, pending, err := c.TransactionByHash(ctx, tx.Hash()); err != nil || got.Hash() != tx.Hash() {
			t.Fatalf("TransactionByHash right after sending = %v, %v, %v", got, pending, err)
		}

		// bind.WaitMined returns the first receipt the node serves: on / the
		// sealed block's (TestEthclientReceiptOnlyForSealedTransactions).
		wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		receipt, err := bind.WaitMined(wctx, c, tx.Hash())
		if err != nil {
			t.Fatalf("WaitMined: %v", err)
		}
		if receipt.TxHash != tx.Hash() || receipt.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("WaitMined receipt: txHash %s status %d", receipt.TxHash, receipt.Status)
		}
		sealed := waitSealed(t, ctx, c, tx.Hash())
		if receipt.BlockHash != sealed.BlockHash || receipt.BlockNumber.Cmp(sealed.BlockNumber) != 0 {
			t.Fatalf("WaitMined returned a receipt of block %d %s, the sealed block is %d %s", receipt.BlockNumber, receipt.BlockHash, sealed.BlockNumber, sealed.BlockHash)
		}
		checkTransferReceipt(t, a, sealed, tx, token, deployer.addr, to, value)
		if sealed.GasUsed > estimate {
			t.Errorf("gasUsed %d exceeds the estimate %d", sealed.GasUsed, estimate)
		}
		if sealed.EffectiveGasPrice == nil || sealed.EffectiveGasPrice.Cmp(gwei) < 0 || sealed.EffectiveGasPrice.Cmp(tx.GasFeeCap()) > 0 {
			t.Errorf("effectiveGasPrice %v outside [1 gwei, feeCap %v]", sealed.EffectiveGasPrice, tx.GasFeeCap())
		}

		block, err := c.BlockByNumber(ctx, sealed.BlockNumber)
		if err != nil {
			t.Fatalf("BlockByNumber(%d): %v", sealed.BlockNumber, err)
		}
		if block.Hash() != sealed.BlockHash {
			t.Fatalf("block %d hash %s, receipt says %s", block.Number(), block.Hash(), sealed.BlockHash)
		}
		if int(sealed.TransactionIndex) >= len(block.Transactions()) || block.Transactions()[sealed.TransactionIndex].Hash() != tx.Hash() {
			t.Fatalf("block %d does not hold %s at index %d", block.Number(), tx.Hash(), sealed.TransactionIndex)
		}
		if got := types.DeriveSha(block.Transactions(), trieHasher()); got != block.TxHash() {
			t.Errorf("transactionsRoot %s, transactions hash to %s", block.TxHash(), got)
		}
		got, isPending, err := c.TransactionByHash(ctx, tx.Hash())
		if err != nil || isPending || got.Hash() != tx.Hash() {
			t.Fatalf("TransactionByHash after the seal = %v, pending %v, %v", got, isPending, err)
		}
		sender, err := c.TransactionSender(ctx, got, sealed.BlockHash, sealed.TransactionIndex)
		if err != nil || sender != deployer.addr {
			t.Errorf("TransactionSender = %s, %v; want %s", sender, err, deployer.addr)
		}
		if count, err := c.TransactionCount(ctx, sealed.BlockHash); err != nil || count != uint(len(block.Transactions())) {
			t.Errorf("TransactionCount(block) = %d, %v; want %d", count, err, len(block.Transactions()))
		}
		inBlock, err := c.TransactionInBlock(ctx, sealed.BlockHash, sealed.TransactionIndex)
		if err != nil || inBlock.Hash() != tx.Hash() {
			t.Errorf("TransactionInBlock = %v, %v", inBlock, err)
		}
		receipts, err := c.BlockReceipts(ctx, rpc.BlockNumberOrHashWithHash(sealed.BlockHash, true))
		if err != nil || len(receipts) != len(block.Transactions()) || receipts[sealed.TransactionIndex].TxHash != tx.Hash() {
			t.Errorf("BlockReceipts = %d receipts, %v", len(receipts), err)
		}
		if got := types.DeriveSha(types.Receipts(receipts), trieHasher()); got != block.ReceiptHash() {
			t.Errorf("receiptsRoot %s, the served receipts hash to %s", block.ReceiptHash(), got)
		}
		if bal, err := c.BalanceAt(ctx, to, sealed.BlockNumber); err != nil || bal.Sign() != 0 {
			t.Errorf("ETH balance of the token recipient = %v, %v", bal, err)
		}
	})
}

// On / in the default configuration (the Standard view), a transaction
// that is pre-confirmed but not yet sealed is pending: per execution-apis
// (and geth) eth_getTransactionReceipt answers null until the transaction
// is in a block of the chain, and eth_getTransactionByHash answers it with
// blockHash, blockNumber and transactionIndex null. Clients rely on it:
// ethclient's TransactionByHash reports isPending from blockNumber == null,
// bind.WaitMined, ethers' tx.wait() and viem's waitForTransactionReceipt
// resolve on the first receipt, and the application then reads `latest`
// state or fetches the receipt's block by hash. Polled every 10 ms through a
// 1 s block, a receipt must never name a block above eth_blockNumber or a
// block hash the chain does not have. (/preconf, which a client opts into,
// answers it before the seal: TestPreconfAndStandardViews.)
func TestEthclientReceiptOnlyForSealedTransactions(t *testing.T) {
	n := startNode(t, "--block-time", "1s", "--preconf-interval", "100ms")
	c, rc := n.dial(t)
	ctx := testContext(t, 30*time.Second)
	to := freshAddress(t)
	tx := send(t, ctx, c, devAccount(t, 1), &to, big.NewInt(1), nil)

	type rpcTx struct {
		BlockHash   *common.Hash    `json:"blockHash"`
		BlockNumber *hexutil.Big    `json:"blockNumber"`
		Index       *hexutil.Uint64 `json:"transactionIndex"`
	}
	var earlyReceipt, earlyTx []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		receipt, rerr := c.TransactionReceipt(ctx, tx.Hash())
		var raw *rpcTx
		if err := rc.CallContext(ctx, &raw, "eth_getTransactionByHash", tx.Hash()); err != nil || raw == nil {
			t.Fatalf("eth_getTransactionByHash of an accepted transaction = %v, %v", raw, err)
		}
		head, err := c.BlockNumber(ctx) // read after: a sealed receipt's block is <= head
		if err != nil {
			t.Fatal(err)
		}
		if rerr == nil && receipt.BlockNumber.Uint64() > head && len(earlyReceipt) == 0 {
			_, berr := c.BlockByHash(ctx, receipt.BlockHash)
			earlyReceipt = append(earlyReceipt, fmt.Sprintf("receipt with blockNumber %d blockHash %s while eth_blockNumber was %d (eth_getBlockByHash of that hash: %v)",
				receipt.BlockNumber, receipt.BlockHash.Hex(), head, berr))
		} else if rerr != nil && !errors.Is(rerr, ethereum.NotFound) {
			t.Fatalf("TransactionReceipt: %v", rerr)
		}
		if raw.BlockNumber != nil && raw.BlockNumber.ToInt().Uint64() > head && len(earlyTx) == 0 {
			earlyTx = append(earlyTx, fmt.Sprintf("transaction with blockNumber %v blockHash %s (want null: pending) while eth_blockNumber was %d",
				raw.BlockNumber.ToInt(), raw.BlockHash.Hex(), head))
		}
		if rerr == nil && receipt.BlockNumber.Uint64() <= head {
			if _, err := c.BlockByHash(ctx, receipt.BlockHash); err != nil {
				t.Fatalf("sealed receipt's block %s: %v", receipt.BlockHash.Hex(), err)
			}
			if len(earlyReceipt)+len(earlyTx) > 0 {
				t.Logf("the transaction was then sealed in block %d %s", receipt.BlockNumber, receipt.BlockHash.Hex())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("transaction not sealed within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, s := range earlyReceipt {
		t.Errorf("eth_getTransactionReceipt answered a pre-confirmed, unsealed transaction: %s", s)
	}
	for _, s := range earlyTx {
		t.Errorf("eth_getTransactionByHash answered a pre-confirmed, unsealed transaction as mined: %s", s)
	}
}

// pendingBeforeLatest sends with do and polls shows (pending, then latest,
// then pending again) until latest shows the effect. It asserts that some
// moment had pending show it while latest did not, and that latest never
// showed it while pending did not. With 1 s blocks and 100 ms
// pre-confirmations the window is nearly always wide; a narrow one is retried.
func pendingBeforeLatest(t *testing.T, ctx context.Context, do func() (common.Address, *types.Transaction), shows func(to common.Address, pending bool) bool) {
	t.Helper()
	for attempt := 0; attempt < 3; attempt++ {
		to, tx := do()
		sent := time.Now()
		var window, inPending time.Duration
		for {
			p1 := shows(to, true)
			l := shows(to, false)
			p2 := shows(to, true)
			if l && !p2 {
				t.Fatalf("tx %s: latest shows it and pending read after it does not: pending is behind latest", tx.Hash())
			}
			if p1 && !l {
				if inPending == 0 {
					inPending = time.Since(sent)
				}
				window = time.Since(sent) - inPending
			}
			if l {
				break
			}
			if ctx.Err() != nil || time.Since(sent) > 10*time.Second {
				t.Fatalf("tx %s not in latest after 10s (pending shows it: %v)", tx.Hash(), p1)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if inPending > 0 {
			t.Logf("tx %s: in pending after %v, in latest %v later", tx.Hash(), inPending.Round(time.Millisecond), window.Round(time.Millisecond))
			if inPending > 2*time.Second {
				t.Errorf("pending showed the transaction only %v after it was sent: more than a pre-confirmation interval", inPending)
			}
			return
		}
		t.Logf("attempt %d: tx %s reached latest before a poll saw it in pending only; retrying", attempt, tx.Hash())
	}
	t.Fatal("no moment in three attempts where pending showed the transfer and latest did not")
}

// checkTransferReceipt checks a successful token transfer's receipt and
// decodes its Transfer log with the ABI.
func checkTransferReceipt(t *testing.T, a abi.ABI, r *types.Receipt, tx *types.Transaction, token, from, to common.Address, value *big.Int) {
	t.Helper()
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("status %d", r.Status)
	}
	if r.TxHash != tx.Hash() || r.Type != tx.Type() || r.ContractAddress != (common.Address{}) {
		t.Errorf("receipt txHash %s type %d contractAddress %s", r.TxHash, r.Type, r.ContractAddress)
	}
	if r.GasUsed == 0 || r.CumulativeGasUsed < r.GasUsed {
		t.Errorf("gasUsed %d cumulativeGasUsed %d", r.GasUsed, r.CumulativeGasUsed)
	}
	if len(r.Logs) != 1 {
		t.Fatalf("%d logs, want 1 Transfer", len(r.Logs))
	}
	l := r.Logs[0]
	checkTransferLog(t, a, l, token, from, to, value)
	if l.TxHash != tx.Hash() || l.BlockHash != r.BlockHash || l.BlockNumber != r.BlockNumber.Uint64() || l.TxIndex != r.TransactionIndex {
		t.Errorf("log position %+v does not match the receipt (block %d %s index %d)", l, r.BlockNumber, r.BlockHash, r.TransactionIndex)
	}
	if !types.BloomLookup(r.Bloom, token) || !types.BloomLookup(r.Bloom, a.Events["Transfer"].ID) {
		t.Errorf("receipt logsBloom lacks the token address or the Transfer topic")
	}
}

func checkTransferLog(t *testing.T, a abi.ABI, l *types.Log, token, from, to common.Address, value *big.Int) {
	t.Helper()
	ev := a.Events["Transfer"]
	if l.Address != token || len(l.Topics) != 3 || l.Topics[0] != ev.ID {
		t.Fatalf("log address %s topics %v, want Transfer from %s", l.Address, l.Topics, token)
	}
	var decoded struct {
		From, To common.Address
		Value    *big.Int
	}
	if err := a.UnpackIntoInterface(&decoded, "Transfer", l.Data); err != nil {
		t.Fatalf("unpack Transfer data %x: %v", l.Data, err)
	}
	if err := abi.ParseTopics(&decoded, indexed(ev.Inputs), l.Topics[1:]); err != nil {
		t.Fatalf("parse Transfer topics: %v", err)
	}
	if decoded.From != from || decoded.To != to || decoded.Value.Cmp(value) != 0 {
		t.Errorf("Transfer(%s, %s, %v), want (%s, %s, %v)", decoded.From, decoded.To, decoded.Value, from, to, value)
	}
	if l.Removed {
		t.Errorf("log marked removed")
	}
}

func indexed(args abi.Arguments) abi.Arguments {
	var out abi.Arguments
	for _, arg := range args {
		if arg.Indexed {
			out = append(out, arg)
		}
	}
	return out
}

// Revert reasons reach the client: eth_call and eth_estimateGas answer
// "execution reverted" (-32000) with the ABI-encoded Error(string) as data, and
// a custom error's selector and arguments as data. A reverting transaction
// is included with status 0.
func TestEthclientRevertReasons(t *testing.T) {
	n := startNode(t)
	c, _ := n.dial(t)
	ctx := testContext(t, 60*time.Second)
	a, _ := loadToken(t)
	caller := devAccount(t, 0)
	token := deployToken(t, ctx, c, caller, tokens(1000))

	failData := pack(t, a, "fail")
	wantData := append(common.FromHex("0x08c379a0"), mustPack(t, abi.Arguments{{Type: mustType(t, "string")}}, "nope")...)
	checkRevert := func(t *testing.T, what string, err error, wantMsg string, wantData []byte) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if err.Error() != wantMsg {
			t.Errorf("%s: message %q, want %q", what, err.Error(), wantMsg)
		}
		// The service spec says -32000; geth and execution-apis say 3.
		// ethclient reads message and data either way.
		var rerr rpc.Error
		if !errors.As(err, &rerr) || (rerr.ErrorCode() != -32000 && rerr.ErrorCode() != 3) {
			t.Errorf("%s: error %T %v without code -32000 or 3", what, err, err)
		}
		var derr rpc.DataError
		if !errors.As(err, &derr) {
			t.Fatalf("%s: error %T %v carries no data", what, err, err)
		}
		hexData, ok := derr.ErrorData().(string)
		if !ok {
			t.Fatalf("%s: data %#v is not a hex string", what, derr.ErrorData())
		}
		data, herr := hexutil.Decode(hexData)
		if herr != nil {
			t.Fatalf("%s: data %q: %v", what, hexData, herr)
		}
		if string(data) != string(wantData) {
			t.Errorf("%s: data %x, want %x", what, data, wantData)
		}
	}

	t.Run("Error(string) from eth_call latest and pending", func(t *testing.T) {
		msg := ethCallMsg(caller.addr, &token, nil, failData)
		_, err := c.CallContract(ctx, msg, nil)
		checkRevert(t, "eth_call latest", err, "execution reverted", wantData)
		var derr rpc.DataError
		if errors.As(err, &derr) {
			reason, uerr := abi.UnpackRevert(common.FromHex(derr.ErrorData().(string)))
			if uerr != nil || reason != "nope" {
				t.Errorf("abi.UnpackRevert = %q, %v", reason, uerr)
			}
		}
		_, err = c.PendingCallContract(ctx, msg)
		checkRevert(t, "eth_call pending", err, "execution reverted", wantData)
	})

	t.Run("Error(string) from eth_estimateGas", func(t *testing.T) {
		_, err := c.EstimateGas(ctx, ethCallMsg(caller.addr, &token, nil, failData))
		checkRevert(t, "eth_estimateGas", err, "execution reverted", wantData)
	})

	t.Run("custom error", func(t *testing.T) {
		_, err := c.CallContract(ctx, ethCallMsg(caller.addr, &token, nil, pack(t, a, "failCustom")), nil)
		custom := a.Errors["Unauthorized"]
		want := append(append([]byte{}, custom.ID[:4]...), mustPack(t, custom.Inputs, caller.addr, big.NewInt(42))...)
		checkRevert(t, "eth_call failCustom", err, "execution reverted", want)
		var derr rpc.DataError
		if errors.As(err, &derr) {
			vals, uerr := custom.Unpack(common.FromHex(derr.ErrorData().(string)))
			if uerr != nil {
				t.Fatalf("unpack Unauthorized: %v", uerr)
			}
			args := vals.([]any)
			if args[0].(common.Address) != caller.addr || args[1].(*big.Int).Int64() != 42 {
				t.Errorf("Unauthorized%v, want (%s, 42)", args, caller.addr)
			}
		}
	})

	t.Run("reverting transaction is mined with status 0", func(t *testing.T) {
		// Estimation refuses a reverting call, so the gas is set by hand.
		nonce, err := c.PendingNonceAt(ctx, caller.addr)
		if err != nil {
			t.Fatal(err)
		}
		head, err := c.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{
			ChainID: big.NewInt(chainID), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: new(big.Int).Mul(head.BaseFee, big.NewInt(2)),
			Gas: 100_000, To: &token, Data: pack(t, a, "transfer", freshAddress(t), tokens(1_000_000)),
		}), types.LatestSignerForChainID(big.NewInt(chainID)), caller.key)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		r := waitSealed(t, ctx, c, tx.Hash())
		if r.Status != types.ReceiptStatusFailed || len(r.Logs) != 0 || r.GasUsed == 0 || r.GasUsed >= 100_000 {
			t.Fatalf("receipt status %d, %d logs, gasUsed %d; want status 0, no logs, some gas", r.Status, len(r.Logs), r.GasUsed)
		}
	})
}

func mustType(t testing.TB, s string) abi.Type {
	t.Helper()
	typ, err := abi.NewType(s, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

func mustPack(t testing.TB, args abi.Arguments, vals ...any) []byte {
	t.Helper()
	out, err := args.Pack(vals...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Logs: eth_getLogs by address and topics and by block hash, and the polling
// filters that HTTP clients use instead of subscriptions.
func TestEthclientLogsAndFilters(t *testing.T) {
	n := startNode(t)
	c, rc := n.dial(t)
	ctx := testContext(t, 60*time.Second)
	a, _ := loadToken(t)
	owner := devAccount(t, 0)
	token := deployToken(t, ctx, c, owner, tokens(1000))
	transferID := a.Events["Transfer"].ID

	// Subscriptions need a WebSocket; over HTTP ethclient says so itself.
	if _, err := c.SubscribeFilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{token}}, make(chan types.Log)); !errors.Is(err, rpc.ErrNotificationsUnsupported) {
		t.Errorf("SubscribeFilterLogs over HTTP: %v, want rpc.ErrNotificationsUnsupported", err)
	}

	// The block filter first: the head it is installed at is at most the
	// start read after it, however the deployment's hold (the sender's view
	// on /) moves on in between.
	var logFilter, blockFilter string
	if err := rc.CallContext(ctx, &blockFilter, "eth_newBlockFilter"); err != nil {
		t.Fatalf("eth_newBlockFilter: %v", err)
	}
	start, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// From start on: eth_getFilterLogs reads the filter's own range, and
	// one from latest (the default) would read only the head block, as on
	// geth. The owner's transfers only: the deployment's mint may be in
	// that range.
	filter := map[string]any{"address": token, "topics": [][]common.Hash{{transferID}, {common.BytesToHash(owner.addr.Bytes())}}, "fromBlock": hexutil.Uint64(start)}
	if err := rc.CallContext(ctx, &logFilter, "eth_newFilter", filter); err != nil {
		t.Fatalf("eth_newFilter: %v", err)
	}

	recipients := []common.Address{freshAddress(t), freshAddress(t), freshAddress(t)}
	var txs []*types.Transaction
	for i, to := range recipients {
		txs = append(txs, send(t, ctx, c, owner, &token, nil, pack(t, a, "transfer", to, tokens(int64(i+1)))))
	}
	var receipts []*types.Receipt
	for _, tx := range txs {
		receipts = append(receipts, waitSealed(t, ctx, c, tx.Hash()))
	}

	// eth_getFilterChanges: every Transfer once, across as many polls as it takes.
	var changes []types.Log
	poll(t, ctx, "eth_getFilterChanges never reported the three transfers", func() bool {
		var got []types.Log
		if err := rc.CallContext(ctx, &got, "eth_getFilterChanges", logFilter); err != nil {
			t.Fatalf("eth_getFilterChanges: %v", err)
		}
		changes = append(changes, got...)
		return len(changes) >= len(txs)
	})
	if len(changes) != len(txs) {
		t.Fatalf("eth_getFilterChanges reported %d logs, want %d", len(changes), len(txs))
	}
	for i := range changes {
		checkTransferLog(t, a, &changes[i], token, owner.addr, recipients[i], tokens(int64(i+1)))
		if changes[i].TxHash != txs[i].Hash() {
			t.Errorf("change %d is from %s, want %s", i, changes[i].TxHash, txs[i].Hash())
		}
	}
	var again []types.Log
	if err := rc.CallContext(ctx, &again, "eth_getFilterChanges", logFilter); err != nil || len(again) != 0 {
		t.Errorf("a second poll reported %d logs again (%v)", len(again), err)
	}
	var all []types.Log
	if err := rc.CallContext(ctx, &all, "eth_getFilterLogs", logFilter); err != nil || len(all) != len(txs) {
		t.Errorf("eth_getFilterLogs = %d logs, %v; want %d", len(all), err, len(txs))
	}

	// The block filter reports each sealed block once, in order, without gaps.
	var hashes []common.Hash
	if err := rc.CallContext(ctx, &hashes, "eth_getFilterChanges", blockFilter); err != nil {
		t.Fatalf("eth_getFilterChanges(block filter): %v", err)
	}
	if len(hashes) == 0 {
		t.Fatal("block filter reported no blocks")
	}
	var prev uint64
	for i, h := range hashes {
		header, err := c.HeaderByHash(ctx, h)
		if err != nil {
			t.Fatalf("block filter hash %s: %v", h, err)
		}
		num := header.Number.Uint64()
		if i == 0 && num > start+1 {
			t.Errorf("first reported block %d, filter installed at head <= %d", num, start)
		}
		if i > 0 && num != prev+1 {
			t.Errorf("block filter jumped from %d to %d", prev, num)
		}
		prev = num
	}
	if last := receipts[len(receipts)-1].BlockNumber.Uint64(); prev < last {
		t.Errorf("block filter reported up to %d, the transfers were sealed up to %d", prev, last)
	}

	var ok bool
	if err := rc.CallContext(ctx, &ok, "eth_uninstallFilter", logFilter); err != nil || !ok {
		t.Errorf("eth_uninstallFilter = %v, %v", ok, err)
	}
	if err := rc.CallContext(ctx, &again, "eth_getFilterChanges", logFilter); err == nil || !strings.Contains(err.Error(), "filter not found") {
		t.Errorf("eth_getFilterChanges after uninstall: %v, want \"filter not found\"", err)
	}

	// eth_getLogs: by address and topic, by recipient (third topic), by block hash.
	from := receipts[0].BlockNumber
	logs, err := c.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: from, Addresses: []common.Address{token}, Topics: [][]common.Hash{{transferID}}})
	if err != nil || len(logs) != len(txs) {
		t.Fatalf("FilterLogs(address, Transfer) = %d logs, %v; want %d", len(logs), err, len(txs))
	}
	toTopic := common.BytesToHash(recipients[1].Bytes())
	logs, err = c.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{token}, Topics: [][]common.Hash{{transferID}, nil, {toTopic}}})
	if err != nil || len(logs) != 1 {
		t.Fatalf("FilterLogs(to = recipient 1) from block 0 = %d logs, %v; want 1", len(logs), err)
	}
	checkTransferLog(t, a, &logs[0], token, owner.addr, recipients[1], tokens(2))
	blockHash := receipts[2].BlockHash
	logs, err = c.FilterLogs(ctx, ethereum.FilterQuery{BlockHash: &blockHash, Addresses: []common.Address{token}})
	if err != nil || len(logs) == 0 {
		t.Fatalf("FilterLogs(blockHash) = %d logs, %v", len(logs), err)
	}
	for _, l := range logs {
		if l.BlockHash != blockHash {
			t.Errorf("log from block %s in a query for %s", l.BlockHash, blockHash)
		}
	}
	logs, err = c.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{freshAddress(t)}})
	if err != nil || len(logs) != 0 {
		t.Errorf("FilterLogs(unused address) = %d logs, %v", len(logs), err)
	}
}

// JSON-RPC batches through rpc.Client, state overrides through gethclient,
// and gas estimation.
func TestEthclientBatchOverridesEstimate(t *testing.T) {
	n := startNode(t)
	c, rc := n.dial(t)
	ctx := testContext(t, 60*time.Second)
	a, _ := loadToken(t)
	owner := devAccount(t, 0)

	t.Run("batch", func(t *testing.T) {
		var id, number hexutil.Uint64
		var latest, pending hexutil.Big
		var missing any
		batch := []rpc.BatchElem{
			{Method: "eth_chainId", Result: &id},
			{Method: "eth_blockNumber", Result: &number},
			{Method: "eth_getBalance", Args: []any{owner.addr, "latest"}, Result: &latest},
			{Method: "eth_getBalance", Args: []any{owner.addr, "pending"}, Result: &pending},
			{Method: "eth_noSuchMethod", Result: &missing},
		}
		if err := rc.BatchCallContext(ctx, batch); err != nil {
			t.Fatalf("BatchCallContext: %v", err)
		}
		for i, el := range batch[:4] {
			if el.Error != nil {
				t.Errorf("batch[%d] %s: %v", i, el.Method, el.Error)
			}
		}
		if id != chainID || latest.ToInt().Sign() == 0 || pending.ToInt().Sign() == 0 {
			t.Errorf("batch answered chainId %d, blockNumber %d, balances %v / %v", id, number, latest.ToInt(), pending.ToInt())
		}
		var rerr rpc.Error
		if !errors.As(batch[4].Error, &rerr) || rerr.ErrorCode() != -32601 {
			t.Errorf("unknown method in a batch: %v, want code -32601", batch[4].Error)
		}
	})

	token := deployToken(t, ctx, c, owner, tokens(1000))

	t.Run("estimateGas", func(t *testing.T) {
		to := freshAddress(t)
		gas, err := c.EstimateGas(ctx, ethCallMsg(owner.addr, &to, big.NewInt(1), nil))
		if err != nil || gas != 21_000 {
			t.Errorf("EstimateGas(plain transfer) = %d, %v; want 21000", gas, err)
		}
		gas, err = c.EstimateGas(ctx, ethCallMsg(owner.addr, &token, nil, pack(t, a, "transfer", to, tokens(1))))
		if err != nil || gas < 30_000 || gas > 80_000 {
			t.Errorf("EstimateGas(token transfer) = %d, %v", gas, err)
		}
		// More than the sender holds: the estimate reports the revert, with
		// the reason in the error data.
		_, err = c.EstimateGas(ctx, ethCallMsg(to, &token, nil, pack(t, a, "transfer", owner.addr, tokens(1))))
		var derr rpc.DataError
		if err == nil || !errors.As(err, &derr) {
			t.Fatalf("EstimateGas(transfer without balance) = %v, want a revert with data", err)
		}
		hexData, _ := derr.ErrorData().(string)
		if reason, uerr := abi.UnpackRevert(common.FromHex(hexData)); uerr != nil || reason != "insufficient balance" {
			t.Errorf("EstimateGas(transfer without balance): revert reason %q, %v; want insufficient balance", reason, uerr)
		}
		_, err = c.EstimateGas(ctx, ethCallMsg(to, &owner.addr, ether, nil))
		if err == nil || !strings.Contains(err.Error(), "insufficient funds") {
			t.Errorf("EstimateGas(value from an empty account) = %v, want insufficient funds", err)
		}
	})

	t.Run("eth_call with state overrides", func(t *testing.T) {
		gc := gethclient.New(rc)
		rich := freshAddress(t)
		// Give a fresh address 5 ETH and replace the token's code by itself:
		// balanceOf(rich) is still zero, the ETH override shows in BALANCE.
		overrides := map[common.Address]gethclient.OverrideAccount{rich: {Balance: new(big.Int).Mul(big.NewInt(5), ether)}}
		out, err := gc.CallContract(ctx, ethCallMsg(common.Address{}, &token, nil, pack(t, a, "balanceOf", rich)), nil, &overrides)
		if err != nil || new(big.Int).SetBytes(out).Sign() != 0 {
			t.Fatalf("eth_call with a balance override = %x, %v", out, err)
		}
		// A storage override of the balance slot: balanceOf is mapping slot 3.
		slot := crypto256(common.LeftPadBytes(rich.Bytes(), 32), common.LeftPadBytes(big.NewInt(3).Bytes(), 32))
		overrides = map[common.Address]gethclient.OverrideAccount{token: {StateDiff: map[common.Hash]common.Hash{slot: common.BigToHash(big.NewInt(77))}}}
		out, err = gc.CallContract(ctx, ethCallMsg(common.Address{}, &token, nil, pack(t, a, "balanceOf", rich)), nil, &overrides)
		if err != nil || new(big.Int).SetBytes(out).Int64() != 77 {
			t.Fatalf("eth_call with a stateDiff override of balanceOf(rich) = %x, %v; want 77", out, err)
		}
	})
}

func trieHasher() types.ListHasher { return trie.NewStackTrie(nil) }

func crypto256(parts ...[]byte) common.Hash { return crypto.Keccak256Hash(parts...) }

// Every transaction type a Prague chain takes, signed and sent as wallets do:
// legacy (EIP-155), access list (EIP-2930), dynamic fee (EIP-1559, in the
// other tests) and set code (EIP-7702).
func TestEthclientTransactionTypes(t *testing.T) {
	n := startNode(t)
	c, _ := n.dial(t)
	ctx := testContext(t, 60*time.Second)
	a, _ := loadToken(t)
	owner, sender := devAccount(t, 0), devAccount(t, 2)
	token := deployToken(t, ctx, c, owner, tokens(1000))
	signer := types.LatestSignerForChainID(big.NewInt(chainID))
	nonce := func(addr common.Address) uint64 {
		n, err := c.PendingNonceAt(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	sendSigned := func(t *testing.T, inner types.TxData, key *account) *types.Receipt {
		t.Helper()
		tx, err := types.SignNewTx(key.key, signer, inner)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("SendTransaction(type %d): %v", tx.Type(), err)
		}
		r := waitSealed(t, ctx, c, tx.Hash())
		if r.Status != types.ReceiptStatusSuccessful || r.Type != tx.Type() {
			t.Fatalf("type %d: receipt status %d type %d", tx.Type(), r.Status, r.Type)
		}
		got, _, err := c.TransactionByHash(ctx, tx.Hash())
		if err != nil || got.Hash() != tx.Hash() || got.Type() != tx.Type() {
			t.Fatalf("TransactionByHash(type %d) = %v, %v", tx.Type(), got, err)
		}
		return r
	}
	price, err := c.SuggestGasPrice(ctx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("legacy EIP-155", func(t *testing.T) {
		to := freshAddress(t)
		r := sendSigned(t, &types.LegacyTx{Nonce: nonce(sender.addr), GasPrice: price, Gas: 21_000, To: &to, Value: big.NewInt(5)}, &sender)
		if r.EffectiveGasPrice.Cmp(price) != 0 {
			t.Errorf("effectiveGasPrice %v, want the gas price %v", r.EffectiveGasPrice, price)
		}
	})

	t.Run("access list EIP-2930", func(t *testing.T) {
		// The list eth_createAccessList would give (see
		// TestEthclientCreateAccessList): the token's two balance slots.
		to := freshAddress(t)
		data := pack(t, a, "transfer", to, tokens(1))
		list := types.AccessList{{Address: token, StorageKeys: []common.Hash{balanceSlot(owner.addr), balanceSlot(to)}}}
		gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: owner.addr, To: &token, Data: data, AccessList: list})
		if err != nil {
			t.Fatal(err)
		}
		r := sendSigned(t, &types.AccessListTx{ChainID: big.NewInt(chainID), Nonce: nonce(owner.addr), GasPrice: price, Gas: gas, To: &token, Data: data, AccessList: list}, &owner)
		tx, _, err := c.TransactionByHash(ctx, r.TxHash)
		if err != nil || len(tx.AccessList()) != 1 || len(tx.AccessList()[0].StorageKeys) != 2 {
			t.Errorf("the served transaction's access list %+v (%v)", tx.AccessList(), err)
		}
	})

	t.Run("set code EIP-7702", func(t *testing.T) {
		authority := devAccount(t, 3)
		auth, err := types.SignSetCode(authority.key, types.SetCodeAuthorization{
			ChainID: *uint256.NewInt(chainID), Address: token, Nonce: nonce(authority.addr),
		})
		if err != nil {
			t.Fatal(err)
		}
		head, err := c.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		feeCap := uint256.MustFromBig(new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
		sendSigned(t, &types.SetCodeTx{
			ChainID: uint256.NewInt(chainID), Nonce: nonce(sender.addr), GasTipCap: uint256.NewInt(1), GasFeeCap: feeCap,
			Gas: 100_000, To: authority.addr, Data: pack(t, a, "decimals"), AuthList: []types.SetCodeAuthorization{auth},
		}, &sender)
		// The authority now runs the token's code (on its own storage).
		out, err := c.CallContract(ctx, ethCallMsg(common.Address{}, &authority.addr, nil, pack(t, a, "decimals")), nil)
		if err != nil || new(big.Int).SetBytes(out).Int64() != 18 {
			t.Errorf("decimals() on the delegated authority = %x, %v", out, err)
		}
		code, err := c.CodeAt(ctx, authority.addr, nil)
		if want := append(common.FromHex("0xef0100"), token.Bytes()...); err != nil || string(code) != string(want) {
			t.Fatalf("code of the authority after the delegation = %x, %v; want %x", code, err, want)
		}
	})

}

// balanceSlot is the storage slot of Token.balanceOf[addr] (mapping at slot 3).
func balanceSlot(addr common.Address) common.Hash {
	return crypto256(common.LeftPadBytes(addr.Bytes(), 32), common.LeftPadBytes([]byte{3}, 32))
}

// eth_createAccessList of a token transfer answers, within the EVM time
// limit, the list geth gives: the token with the sender's and the
// recipient's balance slots (storage of the call's target is listed; only
// the target's address entry itself would be redundant), and the gas used
// with that list.
func TestEthclientCreateAccessList(t *testing.T) {
	n := startNode(t)
	c, rc := n.dial(t)
	ctx := testContext(t, 60*time.Second)
	a, _ := loadToken(t)
	owner := devAccount(t, 0)
	token := deployToken(t, ctx, c, owner, tokens(1000))
	gc := gethclient.New(rc)

	to := freshAddress(t)
	plain := ethCallMsg(owner.addr, &to, big.NewInt(1), nil)
	list, gas, vmErr, err := gc.CreateAccessList(ctx, plain)
	if err != nil || list == nil || len(*list) != 0 || gas != 21_000 || vmErr != "" {
		t.Fatalf("eth_createAccessList(plain transfer) = %v, %d, %q, %v; want [], 21000", list, gas, vmErr, err)
	}

	data := pack(t, a, "transfer", to, tokens(1))
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	list, gas, vmErr, err = gc.CreateAccessList(cctx, ethCallMsg(owner.addr, &token, nil, data))
	if err != nil {
		t.Fatalf("eth_createAccessList(token transfer) after %v: %v (the node's EVM time limit is 5s)", time.Since(start).Round(time.Millisecond), err)
	}
	want := types.AccessList{{Address: token, StorageKeys: []common.Hash{balanceSlot(owner.addr), balanceSlot(to)}}}
	if vmErr != "" || len(*list) != 1 || (*list)[0].Address != token || len((*list)[0].StorageKeys) != 2 {
		t.Fatalf("eth_createAccessList(token transfer) = %+v, gas %d, vmErr %q; want %+v", *list, gas, vmErr, want)
	}
	for _, slot := range want[0].StorageKeys {
		if !slices.Contains((*list)[0].StorageKeys, slot) {
			t.Errorf("access list lacks the balance slot %s", slot)
		}
	}
	estimate, err := c.EstimateGas(ctx, ethereum.CallMsg{From: owner.addr, To: &token, Data: data, AccessList: *list})
	if err != nil || gas > estimate+estimate/50 || gas+gas/50 < estimate {
		t.Errorf("gasUsed with the list %d, eth_estimateGas with it %d (%v)", gas, estimate, err)
	}
}

// A legacy transaction without EIP-155 replay protection is refused over
// RPC, as geth refuses it by default ("--rpc.allow-unprotected-txs" off): the
// dev accounts are the well-known anvil/hardhat keys, and an unprotected
// transaction signed for any chain would replay here and back.
func TestUnprotectedTransactionRefused(t *testing.T) {
	n := startNode(t)
	c, _ := n.dial(t)
	ctx := testContext(t, 30*time.Second)
	sender := devAccount(t, 2)
	nonce, err := c.PendingNonceAt(ctx, sender.addr)
	if err != nil {
		t.Fatal(err)
	}
	price, err := c.SuggestGasPrice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	to := freshAddress(t)
	tx, err := types.SignNewTx(sender.key, types.HomesteadSigner{}, &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: 21_000, To: &to, Value: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	err = c.SendTransaction(ctx, tx)
	if err == nil || !strings.Contains(err.Error(), "only replay-protected (EIP-155) transactions allowed over RPC") {
		t.Errorf("eth_sendRawTransaction of an unprotected (pre-EIP-155) transaction: error %v, want geth's \"only replay-protected (EIP-155) transactions allowed over RPC\"", err)
	}
}
