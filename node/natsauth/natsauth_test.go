package natsauth_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/stocknode/stocknode/node/lease"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/seqlog"
)

const chainID = 84538453

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// sequencer is a sequencer's log on an embedded server that listens on
// loopback, with the users a node gives it, and its relay answering.
type sequencer struct {
	log     *seqlog.Log
	dir     string // its nats-auth directory
	replica nkeys.KeyPair
	pooled  chan common.Hash // what the relay handed to the pool
}

func startSequencer(t *testing.T) *sequencer {
	t.Helper()
	dir := t.TempDir()
	keys, created, err := natsauth.Load(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 2 {
		t.Fatalf("first load created %v, want the sequencer's and a replica's seed", created)
	}
	replica, err := natsauth.ReadSeed(natsauth.SeedFile(dir, natsauth.FirstReplica))
	if err != nil {
		t.Fatal(err)
	}
	l, err := seqlog.Open(context.Background(), seqlog.Config{
		ChainID: chainID, Dir: t.TempDir(), Listen: "127.0.0.1:0",
		Signer: keys.Sequencer, Users: keys.Users(scope()),
	}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	s := &sequencer{log: l, dir: dir, replica: replica, pooled: make(chan common.Hash, 100)}
	srv, err := relay.Serve(l.Conn(), chainID, relay.Handlers{Send: func(_ string, tx *types.Transaction) error {
		s.pooled <- tx.Hash()
		return nil
	}}, 0, quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if _, err := l.Append(context.Background(), seqlog.Accepted{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func scope() natsauth.Scope {
	return natsauth.Scope{Stream: seqlog.StreamName(chainID), RelayRequests: func(id string) string { return relay.Requests(chainID, id) }}
}

// connectReplica connects as the admitted replica does (natsauth.Client).
func (s *sequencer) connectReplica(t *testing.T, v *natsauth.Violations) *nats.Conn {
	t.Helper()
	opts, _, err := natsauth.Client{NKeyFile: natsauth.SeedFile(s.dir, natsauth.FirstReplica)}.Options()
	if err != nil {
		t.Fatal(err)
	}
	if v != nil {
		opts = append(opts, nats.ErrorHandler(v.Handler))
	}
	nc, err := nats.Connect(s.log.URL(), opts...)
	if err != nil {
		t.Fatalf("the admitted replica cannot connect: %v", err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func TestStrangersCannotConnect(t *testing.T) {
	s := startSequencer(t)
	stranger, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := stranger.PublicKey()
	for name, opts := range map[string][]nats.Option{
		"no credentials":   nil,
		"a user password":  {nats.UserInfo("replica", "replica")},
		"a key not listed": {nats.Nkey(pub, stranger.Sign)},
	} {
		nc, err := nats.Connect(s.log.URL(), append(opts, nats.MaxReconnects(0))...)
		if err == nil {
			nc.Close()
			t.Errorf("%s: connected", name)
		} else if !errors.Is(err, nats.ErrAuthorization) && !strings.Contains(err.Error(), "Authorization Violation") {
			t.Errorf("%s: %v, want an authorization violation", name, err)
		}
	}
}

// TestReplicaReadsAndRelays: with its key, a replica reads the log and
// relays a transaction over TCP, as it must.
func TestReplicaReadsAndRelays(t *testing.T) {
	s := startSequencer(t)
	opts, key, err := natsauth.Client{NKeyFile: natsauth.SeedFile(s.dir, natsauth.FirstReplica)}.Options()
	if err != nil {
		t.Fatal(err)
	}
	r, err := seqlog.Open(context.Background(), seqlog.Config{ChainID: chainID, URLs: []string{s.log.URL()}, Reader: true, Connect: opts}, quiet())
	if err != nil {
		t.Fatalf("the replica opens the log: %v", err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var read int
	for _, err := range r.Read(ctx, 1) {
		if err != nil {
			t.Fatalf("the replica reads the log: %v", err)
		}
		read++
	}
	if read != 1 {
		t.Errorf("the replica read %d entries, want 1", read)
	}
	// Follow takes a consumer of its own.
	for rec, err := range r.Follow(ctx, 1) {
		if err != nil || rec.Seq != 1 {
			t.Fatalf("the replica follows the log: %v at %d", err, rec.Seq)
		}
		break
	}
	tx := transfer(t)
	if err := relay.NewClient(r.Conn(), chainID, 5*time.Second, key).Send(tx); err != nil {
		t.Fatalf("the replica relays a transaction: %v", err)
	}
	if got := <-s.pooled; got != tx.Hash() {
		t.Fatalf("pooled %s, want %s", got, tx.Hash())
	}
}

// TestReplicaCannotWrite: a replica's key cannot append to the log, manage
// the stream, answer relayed requests or speak as another replica.
func TestReplicaCannotWrite(t *testing.T) {
	s := startSequencer(t)
	v := new(natsauth.Violations)
	nc := s.connectReplica(t, v)
	stream := seqlog.StreamName(chainID)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	for _, subj := range []string{
		"stocknode.84538453.log.preconfirmed",
		"$JS.API.STREAM.DELETE." + stream,
		"$JS.API.STREAM.PURGE." + stream,
		"$JS.API.STREAM.UPDATE." + stream,
		"$JS.API.STREAM.CREATE.OTHER",
		"$JS.API.STREAM.MSG.DELETE." + stream,
		"stocknode.84538453.relay.tx.UOTHERREPLICA",
	} {
		if err := nc.Publish(subj, []byte(`{"max_age":2000000000}`)); err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "a publish violation on "+subj, func() bool { return v.Has(`Publish to "` + subj + `"`) })
	}
	// The impostor sequencer: it cannot join the relay's queue group.
	if _, err := nc.QueueSubscribe("stocknode.84538453.relay.tx.*", "sequencer", func(m *nats.Msg) { _ = m.Respond([]byte{0}) }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a subscription violation", func() bool { return v.Has("Subscription to") })

	info, err := s.log.Info(ctx)
	if err != nil {
		t.Fatalf("the log after the attempts: %v", err)
	}
	if info.Entries != 1 || info.LastSeq != 1 {
		t.Errorf("the log after the attempts: %+v, want its one entry", info)
	}
	js, err := jetstream.New(s.log.Conn())
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := st.CachedInfo().Config; cfg.MaxAge != seqlog.DefaultMaxAge {
		t.Errorf("the stream's max age is %v after the attempts, want %v", cfg.MaxAge, seqlog.DefaultMaxAge)
	}
	// Every relayed transaction reaches the real sequencer.
	_, key, err := natsauth.Client{NKeyFile: natsauth.SeedFile(s.dir, natsauth.FirstReplica)}.Options()
	if err != nil {
		t.Fatal(err)
	}
	client := relay.NewClient(s.connectReplica(t, nil), chainID, 5*time.Second, key)
	for i := 0; i < 10; i++ {
		tx := transfer(t)
		if err := client.Send(tx); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if got := <-s.pooled; got != tx.Hash() {
			t.Fatalf("send %d: pooled %s, want %s", i, got, tx.Hash())
		}
	}
}

// TestSequencerCannotLoseTheLog: even the sequencer's own connection may
// not delete or purge the stream.
func TestSequencerCannotLoseTheLog(t *testing.T) {
	s := startSequencer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	js, err := jetstream.New(s.log.Conn())
	if err != nil {
		t.Fatal(err)
	}
	attempt, stop := context.WithTimeout(ctx, time.Second)
	defer stop()
	if err := js.DeleteStream(attempt, seqlog.StreamName(chainID)); err == nil {
		t.Error("the sequencer's connection deleted the stream")
	}
	if info, err := s.log.Info(ctx); err != nil || info.Entries != 1 {
		t.Errorf("the log after the attempt: %+v, %v", info, err)
	}
}

// TestAdmitAtRuntime: a replica added while the sequencer runs connects
// once the server has the new list.
func TestAdmitAtRuntime(t *testing.T) {
	s := startSequencer(t)
	seed, _, err := natsauth.AddReplica(s.dir, "second")
	if err != nil {
		t.Fatal(err)
	}
	opts, _, err := natsauth.Client{NKeyFile: seed}.Options()
	if err != nil {
		t.Fatal(err)
	}
	if nc, err := nats.Connect(s.log.URL(), append(opts, nats.MaxReconnects(0))...); err == nil {
		nc.Close()
		t.Fatal("a replica not yet admitted connected")
	}
	keys, _, err := natsauth.Load(s.dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.log.SetUsers(keys.Users(scope())); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(s.log.URL(), opts...)
	if err != nil {
		t.Fatalf("the admitted replica: %v", err)
	}
	nc.Close()
	if _, _, err := natsauth.AddReplica(s.dir, "second"); err == nil {
		t.Error("a second replica named second was admitted")
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 5s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func transfer(t *testing.T) *types.Transaction {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(chainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chainID), GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(10 * params.GWei),
		Gas: params.TxGas, To: &to, Value: big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestServerConfig: an external server configured with the authorization
// block ServerConfig prints admits the sequencer and the replica with
// their seeds, as the embedded server does, and gives the replica the same
// permissions.
func TestServerConfig(t *testing.T) {
	dir := t.TempDir()
	keys, _, err := natsauth.Load(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	text, err := keys.ServerConfig(scope())
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "stocknode.conf")
	if err := os.WriteFile(conf, []byte(text+"jetstream { store_dir: \""+t.TempDir()+"\" }\nmax_payload: 8MB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatalf("nats-server refuses the configuration:\n%s\n%v", text, err)
	}
	opts.Host, opts.Port, opts.NoSigs, opts.NoLog = "127.0.0.1", server.RANDOM_PORT, true, true
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	url := srv.ClientURL()
	seqOpts, _, err := natsauth.Client{NKeyFile: filepath.Join(dir, "sequencer.nk")}.Options()
	if err != nil {
		t.Fatal(err)
	}
	l, err := seqlog.Open(context.Background(), seqlog.Config{ChainID: chainID, URLs: []string{url}, Signer: keys.Sequencer, Connect: seqOpts}, quiet())
	if err != nil {
		t.Fatalf("the sequencer on the external server: %v", err)
	}
	defer l.Close()
	if _, err := l.Append(context.Background(), seqlog.Accepted{}); err != nil {
		t.Fatal(err)
	}
	s := &sequencer{log: l, dir: dir, pooled: make(chan common.Hash, 1)}
	relaySrv, err := relay.Serve(l.Conn(), chainID, relay.Handlers{Send: func(_ string, tx *types.Transaction) error { s.pooled <- tx.Hash(); return nil }}, 0, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer relaySrv.Close()

	v := new(natsauth.Violations)
	nc := s.connectReplica(t, v)
	if err := nc.Publish("stocknode.84538453.log.sealed", []byte{1}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a publish violation", func() bool { return v.Has("Publish to") })
	_, key, _ := natsauth.Client{NKeyFile: natsauth.SeedFile(dir, natsauth.FirstReplica)}.Options()
	tx := transfer(t)
	if err := relay.NewClient(nc, chainID, 5*time.Second, key).Send(tx); err != nil {
		t.Fatalf("the replica relays through the external server: %v", err)
	}
	if got := <-s.pooled; got != tx.Hash() {
		t.Fatalf("pooled %s", got)
	}
	if nc, err := nats.Connect(url, nats.MaxReconnects(0)); err == nil {
		nc.Close()
		t.Error("an anonymous client connected to the external server")
	}
}

// TestReplicaCannotTakeTheLease: the sequencer's credentials take the
// leader lease (node/lease) and keep it; a replica's can neither open the
// lease's bucket nor write its entry through the bucket's subjects, and
// the sequencer leads throughout.
func TestReplicaCannotTakeTheLease(t *testing.T) {
	s := startSequencer(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	seqJS, err := jetstream.New(s.log.Conn())
	if err != nil {
		t.Fatal(err)
	}
	held, err := lease.Open(ctx, seqJS, lease.Config{ChainID: chainID, Holder: "sequencer"})
	if err != nil {
		t.Fatalf("the sequencer opens the lease: %v", err)
	}
	leading, deposed := make(chan struct{}), make(chan struct{})
	campaign := make(chan struct{})
	terms := 0 // only the campaign's goroutine counts
	go func() {
		defer close(campaign)
		held.Campaign(ctx, quiet(), func(lead context.Context) {
			if terms++; terms > 1 {
				// A first term ended (deposed, below, says so) and the
				// sequencer took the lease again: fail, rather than close
				// leading twice and panic the package's tests.
				t.Errorf("the sequencer took the lease a second time")
				<-lead.Done()
				return
			}
			close(leading)
			<-lead.Done()
			if ctx.Err() == nil {
				close(deposed)
			}
		})
	}()
	defer func() { stop(); <-campaign }()
	select {
	case <-leading:
	case <-time.After(10 * time.Second):
		t.Fatal("the sequencer never took the lease")
	}

	v := new(natsauth.Violations)
	nc := s.connectReplica(t, v)
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := lease.Open(short, js, lease.Config{ChainID: chainID, Holder: "replica"}); err == nil {
		t.Error("a replica opened the lease's bucket")
	}
	// The bucket's subjects, without JetStream's API: a put of the lease.
	if err := nc.Publish("$KV."+lease.BucketName(chainID)+".leader", []byte("replica")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a publish violation", func() bool { return v.Has("Publish to") })
	time.Sleep(2 * lease.DefaultTTL)
	select {
	case <-deposed:
		t.Fatal("the sequencer lost the lease")
	default:
	}
	if who, err := held.Holder(ctx); who != "sequencer" || err != nil {
		t.Fatalf("the lease is held by %q (%v), want the sequencer", who, err)
	}
}
