package e2e

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stocknode/stocknode/drip"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/seqlog"
)

// waitViolation waits for the server to report a permissions violation
// naming what.
func waitViolation(t *testing.T, v *natsauth.Violations, what string) {
	t.Helper()
	poll(t, testContext(t, 5*time.Second), "a permissions violation for "+what, func() bool { return v.Has(what) })
}

// TestNATSListenerAttacks: the attacks of the hardening issue on a
// sequencer's --nats.listen, over TCP. A client without the replica's key
// cannot connect at all; with it, a client cannot forge a log entry,
// delete or reconfigure the stream, answer the relay in the sequencer's
// place, speak as another replica, or drip past the replica's cooldown
// by inventing client addresses. Through it all the chain goes on and a
// real replica's sends land.
func TestNATSListenerAttacks(t *testing.T) {
	seq := startNode(t, "--nats.listen", "127.0.0.1:0", "--faucet.cooldown", "1h")
	url, nkey := natsURL(t, seq)
	ctx := testContext(t, 2*time.Minute)

	for name, opts := range map[string][]nats.Option{"anonymous": nil, "user and password": {nats.UserInfo("sequencer", "")}} {
		if nc, err := nats.Connect(url, append(opts, nats.MaxReconnects(0))...); err == nil {
			nc.Close()
			t.Fatalf("%s client connected to the sequencer's NATS listener", name)
		}
	}

	perms := new(natsauth.Violations)
	opts, key, err := natsauth.Client{NKeyFile: nkey}.Options()
	if err != nil {
		t.Fatal(err)
	}
	insider, err := nats.Connect(url, append(opts, nats.ErrorHandler(perms.Handler))...)
	if err != nil {
		t.Fatal(err)
	}
	defer insider.Close()
	stream := seqlog.StreamName(chainID)
	for _, subj := range []string{
		"stocknode.84538453.log.preconfirmed",
		"$JS.API.STREAM.DELETE." + stream,
		"$JS.API.STREAM.UPDATE." + stream,
		"$JS.API.STREAM.PURGE." + stream,
		"stocknode.84538453.relay.drip.UANOTHERREPLICA",
	} {
		payload := []byte{1, 2, 3}
		if strings.Contains(subj, "UPDATE") {
			payload, _ = json.Marshal(map[string]any{"name": stream, "subjects": []string{"stocknode.84538453.log.>"}, "max_age": 2e9, "max_msgs": 1})
		}
		if err := insider.Publish(subj, payload); err != nil {
			t.Fatal(err)
		}
		waitViolation(t, perms, `Publish to "`+subj+`"`)
	}
	if _, err := insider.QueueSubscribe("stocknode.84538453.relay.tx.*", "sequencer", func(m *nats.Msg) { _ = m.Respond([]byte{0}) }); err != nil {
		t.Fatal(err)
	}
	waitViolation(t, perms, "Subscription to")

	js, err := jetstream.New(insider)
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatalf("the stream after the attempts: %v", err)
	}
	if cfg := st.CachedInfo().Config; cfg.MaxAge != seqlog.DefaultMaxAge || cfg.MaxMsgs != -1 {
		t.Errorf("the stream's limits after the attempts: max_age %v, max_msgs %d", cfg.MaxAge, cfg.MaxMsgs)
	}

	// Drips with made-up client addresses share the replica's cooldown.
	drips := relay.NewClient(insider, chainID, 10*time.Second, key)
	var ok int
	for i := range 50 {
		res := drips.Drip(ctx, drip.Request{To: freshAddress(t), Client: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})})
		switch {
		case res.Status == 200:
			ok++
		case res.Status != 429 || !strings.Contains(res.Message, "replica"):
			t.Fatalf("drip %d: %+v, want 429 naming the replica's cooldown", i, res)
		}
	}
	if ok != 1 {
		t.Errorf("%d of 50 drips with invented client addresses went out, want 1", ok)
	}

	// A real replica: its sends land, none eaten by the impostor.
	replica := startNode(t, followFlags(t, seq)...)
	client, _ := replica.dial(t)
	from := devAccount(t, 1)
	var hashes []common.Hash
	for range 10 {
		hashes = append(hashes, send(t, ctx, client, from, ptr(freshAddress(t)), big.NewInt(1), nil).Hash())
	}
	for _, h := range hashes {
		waitSealed(t, ctx, client, h)
	}
}

func ptr[T any](v T) *T { return &v }

// TestForgedLogEntries: entries that something other than the sequencer
// put in its log (a well-formed Opened for the next block with another
// coinbase, 3 bytes of garbage) stop nothing: the node starts again,
// resumes the block it was building as it logged it, seals it with its own
// coinbase; `stocknode log-repair` then removes them.
func TestForgedLogEntries(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dev=false", "--datadir", dir, "--block-time", "6s", "--preconf-interval", "100ms", "--preview.examples=false"}
	n := startNode(t, args...)
	client, _ := n.dial(t)
	ctx := testContext(t, 2*time.Minute)
	to := freshAddress(t)
	tx := sendTransfer(t, ctx, client, to, 777)
	poll(t, ctx, "the transfer in pending", func() bool {
		b, err := client.PendingBalanceAt(ctx, to)
		return err == nil && b.Int64() == 777
	})
	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.kill()

	attacker := common.HexToAddress("0x00000000000000000000000000000000000bad01")
	forgeEntries(t, filepath.Join(dir, "nats"), seqlog.Opened{
		Number: head.Number.Uint64() + 1, ParentHash: head.Hash(), Timestamp: head.Time, Coinbase: attacker,
		GasLimit: 1, ExtraData: []byte("forged"), HasBaseFee: true, BaseFee: big.NewInt(1),
	})

	n = startNode(t, args...)
	client, _ = n.dial(t)
	receipt := waitSealed(t, ctx, client, tx.Hash())
	block, err := client.BlockByNumber(ctx, receipt.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if block.Coinbase() == attacker || string(block.Extra()) == "forged" || block.GasLimit() == 1 {
		t.Fatalf("block %d took the forged opening's header: coinbase %s, extra %q, gas limit %d", block.Number(), block.Coinbase(), block.Extra(), block.GasLimit())
	}
	if !strings.Contains(n.tail(0), "Sequencer log entry ignored") {
		t.Error("the node did not warn about the forged entries")
	}
	n.stop()

	out := runStocknode(t, "log-repair", "--datadir", dir, "--dry-run")
	if !strings.Contains(out, "Would drop 2 of the") {
		t.Fatalf("log-repair --dry-run:\n%s", out)
	}
	out = runStocknode(t, "log-repair", "--datadir", dir)
	if !strings.Contains(out, "Rebuilt STOCKNODE_84538453") {
		t.Fatalf("log-repair:\n%s", out)
	}
	n = startNode(t, args...)
	client, _ = n.dial(t)
	poll(t, ctx, "a block after the repair", func() bool {
		h, err := client.BlockNumber(ctx)
		return err == nil && h > receipt.BlockNumber.Uint64()
	})
	if strings.Contains(n.tail(0), "Sequencer log entry ignored") {
		t.Error("forged entries are still in the repaired log")
	}
}

// forgeEntries publishes, on the sequencer's stopped log in storeDir, a
// forged Opened and a 3-byte garbage entry, as a client that could publish
// on the log's subjects would: through a NATS server of its own on the
// same store.
func forgeEntries(t *testing.T, storeDir string, opened seqlog.Opened) {
	t.Helper()
	srv, err := server.NewServer(&server.Options{ServerName: "stocknode", JetStream: true, StoreDir: storeDir, DontListen: true, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	if !srv.ReadyForConnections(30 * time.Second) {
		t.Fatal("NATS server on the log's store not ready")
	}
	nc, err := nats.Connect("", nats.InProcessServer(srv))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := rlp.EncodeToBytes(opened)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t, 10*time.Second)
	prefix := fmt.Sprintf("stocknode.%d.log.", chainID)
	for subj, data := range map[string][]byte{prefix + "preconfirmed": {1, 2, 3}, prefix + "opened": enc} {
		if _, err := js.Publish(ctx, subj, data); err != nil {
			t.Fatalf("forge an entry on %s: %v", subj, err)
		}
	}
}

// runStocknode runs a subcommand of the binary and returns its output.
func runStocknode(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(binary, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("stocknode %v: %v\n%s", args, err, out)
	}
	return string(out)
}
