package relay

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/stocknode/stocknode/drip"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/seqlog"
)

func mustPub(t *testing.T, kp nkeys.KeyPair) string {
	t.Helper()
	pub, err := kp.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

const chainID = 84538453

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// network is a sequencer's embedded log server, reachable over TCP as a
// replica on another machine reaches it, with the permissions a node
// gives it (node/natsauth): one replica admitted.
type network struct {
	t       *testing.T
	seq     *nats.Conn // the sequencer's connection (its log's)
	url     string
	replica nkeys.KeyPair
}

func newNetwork(t *testing.T) *network {
	t.Helper()
	dir := t.TempDir()
	keys, _, err := natsauth.Load(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	replica, err := natsauth.ReadSeed(natsauth.SeedFile(dir, natsauth.FirstReplica))
	if err != nil {
		t.Fatal(err)
	}
	users := keys.Users(natsauth.Scope{Stream: seqlog.StreamName(chainID), RelayRequests: func(id string) string { return Requests(chainID, id) }})
	l, err := seqlog.Open(context.Background(), seqlog.Config{ChainID: chainID, InMemory: true, Listen: "127.0.0.1:0", Signer: keys.Sequencer, Users: users}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return &network{t: t, seq: l.Conn(), url: l.URL(), replica: replica}
}

// serve answers relayed requests with h until the test ends.
func (n *network) serve(h Handlers, concurrency int) {
	n.t.Helper()
	s, err := Serve(n.seq, chainID, h, concurrency, quiet())
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(s.Close)
	// Subscriptions reach the server asynchronously: a request sent
	// before would find no responder.
	if err := n.seq.Flush(); err != nil {
		n.t.Fatal(err)
	}
}

// client is the admitted replica's relay over its own connection.
func (n *network) client(timeout time.Duration) *Client {
	n.t.Helper()
	pub, _ := n.replica.PublicKey()
	nc, err := nats.Connect(n.url, nats.Nkey(pub, n.replica.Sign), nats.CustomInboxPrefix(natsauth.InboxPrefix(pub)))
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(nc.Close)
	return NewClient(nc, chainID, timeout, n.replica)
}

func transfer(t *testing.T, nonce uint64) *types.Transaction {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(chainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chainID), Nonce: nonce, GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(10 * params.GWei),
		Gas: params.TxGas, To: &to, Value: big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestSend: the sequencer's pool verdict is the replica's, its refusal
// word for word, so that a wallet reading "nonce too low" from a replica
// reacts as it would to the sequencer.
func TestSend(t *testing.T) {
	refusal := "nonce too low: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, tx: 0 state: 3"
	cases := []struct {
		name    string
		verdict error
	}{
		{"accepted", nil},
		{"refused", errors.New(refusal)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := newNetwork(t)
			got := make(chan common.Hash, 1)
			n.serve(Handlers{Send: func(_ string, tx *types.Transaction) error {
				got <- tx.Hash()
				return c.verdict
			}}, 0)
			tx := transfer(t, 0)
			err := n.client(0).Send(tx)
			if c.verdict == nil && err != nil {
				t.Fatalf("Send: %v", err)
			}
			if c.verdict != nil {
				var refused *RefusedError
				if !errors.As(err, &refused) || refused.Text != c.verdict.Error() || err.Error() != c.verdict.Error() {
					t.Fatalf("Send: %v (%T), want the RefusedError %q", err, err, c.verdict)
				}
			}
			if h := <-got; h != tx.Hash() {
				t.Fatalf("the sequencer got transaction %s, want %s", h, tx.Hash())
			}
		})
	}
}

// TestSendUnanswered: a replica tells its client why nothing came back, and
// that a transaction that timed out may still be pooled.
func TestSendUnanswered(t *testing.T) {
	t.Run("no sequencer", func(t *testing.T) {
		n := newNetwork(t)
		err := n.client(300 * time.Millisecond).Send(transfer(t, 0))
		if err == nil || !strings.Contains(err.Error(), "the sequencer is not reachable") {
			t.Fatalf("Send with no sequencer subscribed: %v", err)
		}
	})
	t.Run("slow sequencer", func(t *testing.T) {
		n := newNetwork(t)
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		n.serve(Handlers{Send: func(string, *types.Transaction) error { <-release; return nil }}, 0)
		err := n.client(50 * time.Millisecond).Send(transfer(t, 0))
		if err == nil || !strings.Contains(err.Error(), "the sequencer did not answer within 50ms; the transaction may still be pooled") {
			t.Fatalf("Send to a sequencer that does not answer: %v", err)
		}
	})
}

// TestConcurrencyBound: requests past the bound are refused at once, with
// a message saying so, rather than queued behind handlers that may be
// stuck; the ones in flight complete.
func TestConcurrencyBound(t *testing.T) {
	n := newNetwork(t)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	n.serve(Handlers{Send: func(string, *types.Transaction) error {
		entered <- struct{}{}
		<-release
		return nil
	}}, 1)
	c := n.client(0)
	first := make(chan error, 1)
	go func() { first <- c.Send(transfer(t, 0)) }()
	select {
	case <-entered:
	case err := <-first:
		t.Fatalf("Send answered without being handled: %v", err)
	}
	err := c.Send(transfer(t, 1))
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Text != "the sequencer is handling 1 relayed requests; retry in a moment" {
		t.Fatalf("Send past the bound: %v (%T)", err, err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("Send in flight: %v", err)
	}
	// The slot is free again.
	go func() { <-entered }()
	if err := c.Send(transfer(t, 2)); err != nil {
		t.Fatalf("Send after the bound freed: %v", err)
	}
}

// TestGarbage: a request that does not decode is refused with the decoding
// error, never handled.
func TestGarbage(t *testing.T) {
	n := newNetwork(t)
	n.serve(Handlers{
		Send: func(string, *types.Transaction) error { t.Error("a garbage transaction reached the pool"); return nil },
		Drip: func(context.Context, string, drip.Request) drip.Result {
			t.Error("a garbage drip reached the faucet")
			return drip.Result{}
		},
		Known: func(string, common.Hash) bool { t.Error("a garbage hash was looked up"); return false },
	}, 0)
	c := n.client(0)
	for _, tc := range []struct {
		what string
		data []byte
		want string
	}{
		{"tx", []byte{0xde, 0xad, 0xbe, 0xef}, "decode transaction: "},
		{"tx", nil, "decode transaction: "},
		{"drip", []byte(`{"to":`), "decode drip: "},
		{"drip", []byte(`{"client":"not an address"}`), "decode drip: "},
		{"status", nil, "decode status: "},
		{"status", make([]byte, 31), "decode status: "},
		{"status", make([]byte, 33), "decode status: "},
	} {
		_, _, err := c.request(context.Background(), tc.what, tc.data, false)
		var refused *RefusedError
		if !errors.As(err, &refused) || !strings.HasPrefix(refused.Text, tc.want) {
			t.Errorf("%s %q: %v, want a refusal starting %q", tc.what, tc.data, err, tc.want)
		}
	}
}

// TestDrip: a drip's request reaches the sequencer's faucet and its result
// the replica's client, every field intact (the replica writes the HTTP
// answer from it, Retry-After included).
func TestDrip(t *testing.T) {
	req := drip.Request{
		To:      common.HexToAddress("0x00000000000000000000000000000000000000d1"),
		Client:  netip.MustParseAddr("2001:db8::7"),
		Captcha: "token-123",
	}
	cases := []struct {
		name string
		res  drip.Result
	}{
		{"dripped", drip.Result{Status: 200, TxHash: common.HexToHash("0xabc"), AmountWei: "100000000000000000", To: req.To.Hex()}},
		{"cooldown", drip.Result{Status: 429, Code: 8, Message: "this address received a drip less than 24h ago", RetryAfter: 90 * time.Minute}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := newNetwork(t)
			got := make(chan drip.Request, 1)
			from := make(chan string, 1)
			n.serve(Handlers{Drip: func(_ context.Context, id string, r drip.Request) drip.Result {
				got <- r
				from <- id
				return c.res
			}}, 0)
			res := n.client(0).Drip(context.Background(), req)
			if !reflect.DeepEqual(res, c.res) {
				t.Fatalf("Drip result %+v, want the sequencer's %+v", res, c.res)
			}
			if r := <-got; r != req {
				t.Fatalf("the sequencer's faucet got %+v, want %+v", r, req)
			}
			if id, want := <-from, mustPub(t, n.replica); id != want {
				t.Fatalf("the sequencer's faucet was told the drip came from %q, want the replica's key %s", id, want)
			}
		})
	}
}

// TestDripRefused: a sequencer whose faucet is off, or that is handling
// too many requests, answers; the replica's client reads its words, not
// that the sequencer did not answer.
func TestDripRefused(t *testing.T) {
	t.Run("faucet off", func(t *testing.T) {
		n := newNetwork(t)
		n.serve(Handlers{Send: func(string, *types.Transaction) error { return nil }}, 0)
		res := n.client(300*time.Millisecond).Drip(context.Background(), drip.Request{To: common.HexToAddress("0xd1")})
		want := drip.Result{Status: 503, Code: 14, Message: "the faucet is off on the sequencer (--faucet=false)"}
		if !reflect.DeepEqual(res, want) {
			t.Fatalf("Drip with the sequencer's faucet off: %+v, want %+v", res, want)
		}
	})
	t.Run("no sequencer", func(t *testing.T) {
		n := newNetwork(t)
		res := n.client(300*time.Millisecond).Drip(context.Background(), drip.Request{To: common.HexToAddress("0xd1")})
		if res.Status != 503 || !strings.Contains(res.Message, "the sequencer is not reachable") {
			t.Fatalf("Drip with no sequencer: %+v", res)
		}
	})
}

// TestUnsignedRequestRefused: a request on an admitted replica's subject
// that the replica did not sign (anything else that can put a message
// there, such as a JetStream push consumer delivering where its creator
// says) is refused and never handled; a signed one from the same subject
// with another payload is too.
func TestUnsignedRequestRefused(t *testing.T) {
	n := newNetwork(t)
	n.serve(Handlers{
		Send: func(string, *types.Transaction) error {
			t.Error("an unsigned transaction reached the pool")
			return nil
		},
		Drip: func(context.Context, string, drip.Request) drip.Result {
			t.Error("an unsigned drip reached the faucet")
			return drip.Result{}
		},
		Known: func(string, common.Hash) bool { t.Error("an unsigned status request was answered"); return true },
	}, 0)
	raw, err := transfer(t, 0).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	signed, err := n.client(0).message("tx", raw)
	if err != nil {
		t.Fatal(err)
	}
	tampered := &nats.Msg{Subject: signed.Subject, Header: signed.Header, Data: append([]byte{}, raw...)}
	tampered.Data[len(tampered.Data)-1] ^= 1
	for name, m := range map[string]*nats.Msg{
		"unsigned": {Subject: signed.Subject, Data: raw},
		"tampered": tampered,
		"drip":     {Subject: subject(chainID, "drip", mustPub(t, n.replica)), Data: []byte(`{"to":"0x00000000000000000000000000000000000000d1"}`)},
		"status":   {Subject: subject(chainID, "status", mustPub(t, n.replica)), Data: make([]byte, common.HashLength)},
	} {
		reply, err := n.seq.Request(m.Subject, m.Data, 5*time.Second)
		if m.Header != nil {
			reply, err = n.seq.RequestMsg(m, 5*time.Second)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if reply.Data[0] != statusRefused || !strings.Contains(string(reply.Data[1:]), mustPub(t, n.replica)) {
			t.Errorf("%s request answered %q, want a refusal naming the replica", name, reply.Data)
		}
	}
}

// TestKnown: the sequencer's word on a transaction's status, asked with
// its hash by the replica that names itself, is the replica's; a
// sequencer that cannot answer is an error, never Unknown, which
// clients take to mean the transaction was dropped.
func TestKnown(t *testing.T) {
	hash := common.HexToHash("0x5a5a")
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	cases := []struct {
		name    string
		serve   bool
		known   func(string, common.Hash) bool // the sequencer's handler
		timeout time.Duration
		want    bool
		wantErr string
	}{
		{"known", true, func(string, common.Hash) bool { return true }, 0, true, ""},
		{"unknown", true, func(string, common.Hash) bool { return false }, 0, false, ""},
		{"not answered by this sequencer", true, nil, 0, false, "the sequencer does not answer transaction statuses"},
		{"no sequencer", false, nil, 300 * time.Millisecond, false, "the sequencer is not reachable"},
		{"slow sequencer", true, func(string, common.Hash) bool { <-release; return true }, 50 * time.Millisecond, false, "the sequencer did not answer within 50ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := newNetwork(t)
			asked := make(chan string, 1)
			if c.serve {
				h := Handlers{Send: func(string, *types.Transaction) error { return nil }}
				if c.known != nil {
					h.Known = func(from string, h common.Hash) bool {
						if h != hash {
							t.Errorf("the sequencer was asked about %s, want %s", h, hash)
						}
						asked <- from
						return c.known(from, h)
					}
				}
				n.serve(h, 0)
			}
			known, err := n.client(c.timeout).Known(context.Background(), hash)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("Known: %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr) || strings.Contains(err.Error(), "pooled")):
				t.Fatalf("Known: %v, want an error saying %q", err, c.wantErr)
			case known != c.want:
				t.Fatalf("Known = %v, want %v", known, c.want)
			}
			if c.wantErr == "" {
				if from, want := <-asked, mustPub(t, n.replica); from != want {
					t.Fatalf("the sequencer was told the replica %q asked, want %s", from, want)
				}
			}
		})
	}
}
