package seqlog

import (
	"context"
	"crypto/ecdsa"
	"log/slog"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

const testChainID = 84538453

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// openTest opens a log on a fresh directory unless cfg says otherwise, and
// closes it at the end of the test.
func openTest(t testing.TB, cfg Config) *Log {
	t.Helper()
	if cfg.ChainID == 0 {
		cfg.ChainID = testChainID
	}
	if cfg.Dir == "" && !cfg.InMemory && len(cfg.URLs) == 0 {
		cfg.Dir = t.TempDir()
	}
	l, err := Open(context.Background(), cfg, testLogger(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(l.Close)
	return l
}

// writers makes n sequencer keys and the embedded server's users that
// admit them all (a second sequencer, a stale one, connects over TCP).
func writers(t testing.TB, n int) ([]nkeys.KeyPair, []*server.NkeyUser) {
	t.Helper()
	keys := make([]nkeys.KeyPair, n)
	users := make([]*server.NkeyUser, n)
	for i := range keys {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		keys[i], users[i] = kp, &server.NkeyUser{Nkey: pub}
	}
	return keys, users
}

// connectAs is Config's options for a connection with kp's key.
func connectAs(kp nkeys.KeyPair) []nats.Option { return []nats.Option{nkeyAuth(kp)} }

func mustAppend(t testing.TB, l *Log, e Entry) uint64 {
	t.Helper()
	seq, err := l.Append(context.Background(), e)
	if err != nil {
		t.Fatalf("Append %v: %v", e.Kind(), err)
	}
	return seq
}

// readAll reads the log from seq from to its end.
func readAll(t testing.TB, l *Log, from uint64) []Record {
	t.Helper()
	var recs []Record
	for rec, err := range l.Read(context.Background(), from) {
		if err != nil {
			t.Fatalf("Read from %d: %v", from, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// transfers signs n plain transfers of the kind a flood sends.
func transfers(t testing.TB, n int) types.Transactions {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(big.NewInt(testChainID))
	txs := make(types.Transactions, n)
	for i := range txs {
		txs[i] = signTransfer(t, key, signer, uint64(i))
	}
	return txs
}

func signTransfer(t testing.TB, key *ecdsa.PrivateKey, signer types.Signer, nonce uint64) *types.Transaction {
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{
		ChainID:   big.NewInt(testChainID),
		Nonce:     nonce,
		GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei),
		Gas:       params.TxGas,
		To:        &to,
		Value:     big.NewInt(int64(nonce) + 1),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// pendingHeader is a header as the sequencer's builder opens it on a
// Prague chain.
func pendingHeader(number uint64) *types.Header {
	excess := uint64(0)
	return &types.Header{
		ParentHash:       common.HexToHash("0x01"),
		Number:           new(big.Int).SetUint64(number),
		GasLimit:         60_000_000,
		Time:             1_700_000_000,
		Coinbase:         common.HexToAddress("0xc0"),
		Extra:            []byte("stocknode"),
		MixDigest:        common.HexToHash("0x5eed"),
		BaseFee:          big.NewInt(params.GWei),
		Difficulty:       new(big.Int),
		ParentBeaconRoot: new(common.Hash),
		ExcessBlobGas:    &excess,
		BlobGasUsed:      new(uint64),
	}
}

// sealedBlock is a block of the given transactions with their receipts.
func sealedBlock(t testing.TB, txs types.Transactions) (*types.Block, types.Receipts) {
	t.Helper()
	receipts := make(types.Receipts, len(txs))
	for i, tx := range txs {
		receipts[i] = &types.Receipt{
			Type:              tx.Type(),
			Status:            types.ReceiptStatusSuccessful,
			CumulativeGasUsed: uint64(i+1) * params.TxGas,
			TxHash:            tx.Hash(),
			GasUsed:           params.TxGas,
			Logs:              []*types.Log{},
		}
		receipts[i].Bloom = types.CreateBloom(receipts[i])
	}
	h := pendingHeader(7)
	h.GasUsed = uint64(len(txs)) * params.TxGas
	h.Root = common.HexToHash("0x0700")
	body := &types.Body{Transactions: txs, Withdrawals: []*types.Withdrawal{}}
	return types.NewBlock(h, body, receipts, trie.NewStackTrie(nil)), receipts
}

func rawTxs(t testing.TB, txs types.Transactions) [][]byte {
	t.Helper()
	raw, err := EncodeTxs(txs)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
