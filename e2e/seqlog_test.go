package e2e

import (
	"context"
	"io"
	"log/slog"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/seqlog"
)

var followRe = regexp.MustCompile(`msg="A read replica follows this sequencer with" replica=replica flags="--follow --nats.url (nats://\S+) --nats.nkey (\S+)"`)

// followFlags are the flags that node n, started with --nats.listen, logs
// for its first replica: --follow, its log's URL and the replica's key.
func followFlags(t *testing.T, n *node) []string {
	t.Helper()
	var m []string
	poll(t, testContext(t, 5*time.Second), "the replica's flags in the startup lines", func() bool {
		m = followRe.FindStringSubmatch(n.tail(0))
		return m != nil
	})
	return []string{"--follow", "--nats.url", m[1], "--nats.nkey", m[2]}
}

// natsURL is where node n, started with --nats.listen, exposes its log;
// nkey is the seed its first replica authenticates with.
func natsURL(t *testing.T, n *node) (url, nkey string) {
	t.Helper()
	f := followFlags(t, n)
	return f[2], f[4]
}

// TestSequencerLogOverNATS: a node exposing its embedded JetStream
// (--nats.listen) writes what it decides to its log, readable by another
// process over TCP as a replica will: the block opened, the pre-confirmation
// with the transaction, then the sealed block holding it.
func TestSequencerLogOverNATS(t *testing.T) {
	n := startNode(t, "--nats.listen", "127.0.0.1:0", "--block-time", "500ms", "--preconf-interval", "100ms")
	url, nkey := natsURL(t, n)
	client, _ := n.dial(t)
	ctx := testContext(t, 20*time.Second)
	to := freshAddress(t)
	tx := sendTransfer(t, ctx, client, to, 1)
	receipt := waitSealed(t, ctx, client, tx.Hash())

	connect, _, err := natsauth.Client{NKeyFile: nkey}.Options()
	if err != nil {
		t.Fatal(err)
	}
	l, err := seqlog.Open(ctx, seqlog.Config{ChainID: chain.PreviewChainID, URLs: []string{url}, Reader: true, Connect: connect}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("open the node's log at %s: %v", url, err)
	}
	defer l.Close()
	var preconfirmedAt, sealedAt, openedAt uint64
	readCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	for rec, err := range l.Read(readCtx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := rec.Entry.(type) {
		case seqlog.Opened:
			if e.Number == receipt.BlockNumber.Uint64() {
				openedAt = rec.Seq
			}
		case seqlog.Preconfirmed:
			txs, err := seqlog.DecodeTxs(e.Transactions)
			if err != nil {
				t.Fatal(err)
			}
			for _, logged := range txs {
				if logged.Hash() == tx.Hash() && preconfirmedAt == 0 {
					preconfirmedAt = rec.Seq
				}
			}
		case seqlog.Sealed:
			if e.Number == receipt.BlockNumber.Uint64() && e.Hash == receipt.BlockHash {
				sealedAt = rec.Seq
			}
		}
		if sealedAt > 0 {
			break
		}
	}
	if !(openedAt > 0 && openedAt < preconfirmedAt && preconfirmedAt < sealedAt) {
		t.Fatalf("log entries of block %d: opened at %d, the transaction pre-confirmed at %d, sealed at %d; want them in that order", receipt.BlockNumber, openedAt, preconfirmedAt, sealedAt)
	}
}

// TestPreconfirmationSurvivesKill is the user story: a transfer
// seen in pending, the node killed before its block seals, restarted: the
// transfer is pending again at once, and then sealed in the block it was
// promised to.
func TestPreconfirmationSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dev=false", "--datadir", dir, "--block-time", "6s", "--preconf-interval", "100ms", "--preview.examples=false"}
	n := startNode(t, args...)
	client, _ := n.dial(t)
	ctx := testContext(t, 40*time.Second)
	to := freshAddress(t)
	tx := sendTransfer(t, ctx, client, to, 12345)
	pendingHas := func() bool {
		b, err := client.PendingBalanceAt(ctx, to)
		return err == nil && b.Int64() == 12345
	}
	poll(t, ctx, "the transfer in pending", pendingHas)
	head, err := client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n.kill()

	n = startNode(t, args...)
	client, _ = n.dial(t)
	// Within a second of the start, far inside the 6 s block: the pool
	// keeps nothing across a kill, so only the log can have brought it back.
	poll(t, testContext(t, time.Second), "the pre-confirmed transfer pending again after kill -9 and a restart", pendingHas)
	receipt := waitSealed(t, ctx, client, tx.Hash())
	if receipt.BlockNumber.Uint64() != head+1 {
		t.Errorf("the transfer sealed in block %d, want %d, the block it was pre-confirmed in", receipt.BlockNumber, head+1)
	}
	if !strings.Contains(n.tail(0), "Resumed the block being built from the log") {
		t.Errorf("no resume line in the log:\n%s", n.tail(30))
	}
}

// TestAcceptedSurvivesKill: a transfer accepted (eth_sendRawTransaction
// answered its hash) but not yet pre-confirmed when the node is killed is
// pooled again at the restart and pre-confirmed at once.
func TestAcceptedSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	// No eager pre-confirmation and one tick per block: a transfer waits
	// for the block's end, 6 s, to be pre-confirmed.
	args := []string{"--dev=false", "--datadir", dir, "--block-time", "6s", "--preconf-interval", "6s", "--preconf-min-gap", "0", "--preview.examples=false"}
	n := startNode(t, args...)
	client, _ := n.dial(t)
	ctx := testContext(t, 40*time.Second)
	// The opening tick of block 1 executes whatever the pool holds: send
	// after it, or the transfer is pre-confirmed at once.
	poll(t, ctx, "block 1 opened", func() bool {
		h, err := client.HeaderByNumber(ctx, big.NewInt(int64(rpc.PendingBlockNumber)))
		return err == nil && h.Number.Int64() == 1
	})
	to := freshAddress(t)
	sendTransfer(t, ctx, client, to, 777)
	if b, err := client.PendingBalanceAt(ctx, to); err != nil || b.Sign() != 0 {
		t.Fatalf("the transfer is pre-confirmed already (%v, %v): the test needs it only accepted", b, err)
	}
	n.kill()

	n = startNode(t, args...)
	client, _ = n.dial(t)
	poll(t, testContext(t, 2*time.Second), "the accepted transfer pre-confirmed after kill -9 and a restart", func() bool {
		b, err := client.PendingBalanceAt(ctx, to)
		return err == nil && b.Int64() == 777
	})
}

// sendTransfer sends value wei from the first development account to to.
func sendTransfer(t *testing.T, ctx context.Context, client *ethclient.Client, to common.Address, value int64) *types.Transaction {
	t.Helper()
	keys, err := chain.DevKeys(1)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := client.PendingNonceAt(ctx, crypto.PubkeyToAddress(keys[0].PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(keys[0], types.LatestSignerForChainID(big.NewInt(chain.PreviewChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chain.PreviewChainID), Nonce: nonce, GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(100 * params.GWei),
		Gas: params.TxGas, To: &to, Value: big.NewInt(value),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	return tx
}
