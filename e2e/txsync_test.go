package e2e

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/stocknode/stocknode/node/pending"
)

// syncClients dials node n's two views with ethclient: / and /preconf.
func syncClients(t *testing.T, n *node) map[string]*ethclient.Client {
	t.Helper()
	out := map[string]*ethclient.Client{}
	for _, path := range []string{"/", "/preconf"} {
		rc, err := rpc.Dial(strings.TrimSuffix(n.URL, "/") + path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rc.Close)
		out[path] = ethclient.NewClient(rc)
	}
	return out
}

// checkSyncReceipt checks that receipt, eth_sendRawTransactionSync's
// answer for tx on path, is the sealed block's on / and the pre-confirmed
// one on /preconf: there the block is named by its PreconfHash, and
// everything else is what the sealed block says.
func checkSyncReceipt(t *testing.T, ctx context.Context, c *ethclient.Client, path string, tx *types.Transaction, receipt *types.Receipt) {
	t.Helper()
	if receipt.TxHash != tx.Hash() || receipt.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("%s: receipt %+v is not the successful %s's", path, receipt, tx.Hash())
	}
	sealed := waitSealed(t, ctx, c, tx.Hash())
	header, err := c.HeaderByNumber(ctx, sealed.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	want := header.Hash()
	if path == "/preconf" {
		want = pending.PreconfHashOf(header)
	}
	if receipt.BlockHash != want || receipt.BlockNumber.Cmp(sealed.BlockNumber) != 0 || receipt.TransactionIndex != sealed.TransactionIndex ||
		receipt.GasUsed != sealed.GasUsed || receipt.CumulativeGasUsed != sealed.CumulativeGasUsed {
		t.Fatalf("%s: receipt of block %d (%s) index %d, the sealed block %d (%s, preconf %s) index %d",
			path, receipt.BlockNumber, receipt.BlockHash, receipt.TransactionIndex, sealed.BlockNumber, header.Hash(), pending.PreconfHashOf(header), sealed.TransactionIndex)
	}
}

// TestSendRawTransactionSyncEthclient: go-ethereum's ethclient
// SendRawTransactionSync and SendTransactionSync on both views of the
// binary, its timeout in milliseconds or absent.
func TestSendRawTransactionSyncEthclient(t *testing.T) {
	n := startNode(t, "--block-time", "1s", "--preconf-interval", "100ms")
	clients := syncClients(t, n)
	ctx := testContext(t, time.Minute)
	from := devAccount(t, 0)
	timeout := 5 * time.Second
	for _, path := range []string{"/", "/preconf"} {
		for _, wait := range []*time.Duration{nil, &timeout} {
			c := clients[path]
			tx := signTx(t, ctx, c, from, ptr(freshAddress(t)), big.NewInt(1), nil)
			raw, _ := tx.MarshalBinary()
			receipt, err := c.SendRawTransactionSync(ctx, raw, wait)
			if err != nil {
				t.Fatalf("%s: SendRawTransactionSync: %v", path, err)
			}
			checkSyncReceipt(t, ctx, c, path, tx, receipt)
		}
		tx := signTx(t, ctx, clients[path], from, ptr(freshAddress(t)), big.NewInt(1), nil)
		receipt, err := clients[path].SendTransactionSync(ctx, tx, nil)
		if err != nil {
			t.Fatalf("%s: SendTransactionSync: %v", path, err)
		}
		checkSyncReceipt(t, ctx, clients[path], path, tx, receipt)
	}
}

// syncError is an EIP-7966 error as ethclient hands it over.
func syncError(t *testing.T, err error, code int) any {
	t.Helper()
	var rerr rpc.Error
	var derr rpc.DataError
	if !errors.As(err, &rerr) || rerr.ErrorCode() != code || !errors.As(err, &derr) {
		t.Fatalf("error %v (%T), want code %d with data", err, err, code)
	}
	return derr.ErrorData()
}

// TestSendRawTransactionSyncErrors: on a node whose block never seals in
// the test, / answers code 4 with the hash once the timeout passes; a
// nonce gap answers code 5 at once, on both views.
func TestSendRawTransactionSyncErrors(t *testing.T) {
	n := startNode(t, "--block-time", "1h", "--preconf-interval", "100ms", "--rpc.txsync.defaulttimeout", "300ms")
	clients := syncClients(t, n)
	ctx := testContext(t, time.Minute)
	from := devAccount(t, 1)
	tx := signTx(t, ctx, clients["/"], from, ptr(freshAddress(t)), big.NewInt(1), nil)
	raw, _ := tx.MarshalBinary()
	_, err := clients["/"].SendRawTransactionSync(ctx, raw, nil)
	if data := syncError(t, err, 4); data != tx.Hash().Hex() || !strings.Contains(err.Error(), "wasn't processed in 300ms") {
		t.Fatalf("timeout: %v, data %v; want the hash %s", err, data, tx.Hash())
	}
	for i, path := range []string{"/", "/preconf"} {
		next, err := clients[path].PendingNonceAt(ctx, from.addr)
		if err != nil {
			t.Fatal(err)
		}
		gapped := signTxNonce(t, ctx, clients[path], from, next+1+uint64(i), ptr(freshAddress(t)), big.NewInt(1), nil)
		raw, _ := gapped.MarshalBinary()
		_, err = clients[path].SendRawTransactionSync(ctx, raw, nil)
		data, _ := syncError(t, err, 5).(map[string]any)
		if data["transactionHash"] != gapped.Hash().Hex() || data["expectedNonce"] != hexNonce(next) {
			t.Fatalf("%s: nonce gap answered %v with data %v; want hash %s and nonce %d", path, err, data, gapped.Hash(), next)
		}
	}
}

func hexNonce(n uint64) string { return "0x" + new(big.Int).SetUint64(n).Text(16) }

// TestSendRawTransactionSyncOnReplica: a read replica relays the
// transaction to the sequencer and answers from its own replay of the log,
// in the request's view.
func TestSendRawTransactionSyncOnReplica(t *testing.T) {
	seq := startNode(t, "--nats.listen", "127.0.0.1:0", "--block-time", "1s", "--preconf-interval", "100ms")
	replica := startNode(t, followFlags(t, seq)...)
	waitFollowing(t, replica)
	clients := syncClients(t, replica)
	seqClient, _ := seq.dial(t)
	ctx := testContext(t, time.Minute)
	from := devAccount(t, 2)
	for _, path := range []string{"/", "/preconf"} {
		c := clients[path]
		tx := signTx(t, ctx, c, from, ptr(freshAddress(t)), big.NewInt(1), nil)
		receipt, err := c.SendTransactionSync(ctx, tx, nil)
		if err != nil {
			t.Fatalf("%s: SendTransactionSync through the replica: %v", path, err)
		}
		checkSyncReceipt(t, ctx, c, path, tx, receipt)
		onSeq := waitSealed(t, ctx, seqClient, tx.Hash())
		if path == "/" && onSeq.BlockHash != receipt.BlockHash {
			t.Fatalf("the replica's receipt names block %s, the sequencer's %s", receipt.BlockHash, onSeq.BlockHash)
		}
	}
}

// TestSendRawTransactionSyncOnReplicaNotReady: the sequencer's word that a
// relayed transaction cannot run reaches the replica's client as code 5,
// with the sequencer's expected nonce; its block never seals during the
// test, so that the funds stay pooled.
func TestSendRawTransactionSyncOnReplicaNotReady(t *testing.T) {
	seq := startNode(t, "--nats.listen", "127.0.0.1:0", "--block-time", "1h", "--preconf-interval", "100ms")
	replica := startNode(t, followFlags(t, seq)...)
	waitFollowing(t, replica)
	c := syncClients(t, replica)["/preconf"]
	ctx := testContext(t, time.Minute)
	// Dev account 3 spends 6,000 of its 10,000 ETH, then asks for 6,000
	// more at the next nonce: refused by the sequencer's pool, at its
	// position.
	spender := devAccount(t, 3)
	big6000 := new(big.Int).Mul(big.NewInt(6000), big.NewInt(params.Ether))
	first := transferTx(t, spender, 0, big6000)
	if err := c.SendTransaction(ctx, first); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		tx    *types.Transaction
		words string
	}{
		{"nonce gap", transferTx(t, spender, 2, big.NewInt(1)), "leaves a gap"},
		{"no funds at its position", transferTx(t, spender, 1, big6000), "insufficient funds for gas * price + value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := tt.tx.MarshalBinary()
			_, err := c.SendRawTransactionSync(ctx, raw, nil)
			data, _ := syncError(t, err, 5).(map[string]any)
			if data["transactionHash"] != tt.tx.Hash().Hex() || data["expectedNonce"] != "0x1" || !strings.Contains(err.Error(), tt.words) {
				t.Fatalf("answered %v with data %v; want %q, hash %s, nonce 1", err, data, tt.words, tt.tx.Hash())
			}
		})
	}
}

// waitFollowing waits until replica has found its place in the log: a
// replica stopped before then exits with an error (left alone here).
func waitFollowing(t *testing.T, replica *node) {
	t.Helper()
	poll(t, testContext(t, 10*time.Second), "the replica following the log", func() bool {
		return strings.Contains(replica.tail(0), "Following the sequencer's log")
	})
}

// transferTx signs a transfer of value from `from` at nonce to a fresh
// address, at 10 gwei.
func transferTx(t *testing.T, from account, nonce uint64, value *big.Int) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(from.key, types.LatestSignerForChainID(big.NewInt(chainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chainID), Nonce: nonce, GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(10 * params.GWei),
		Gas: params.TxGas, To: ptr(freshAddress(t)), Value: value,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}
