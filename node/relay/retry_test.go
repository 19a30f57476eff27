package relay

import (
	"errors"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

const testChainID = 84538453

func startNATS(t *testing.T) *nats.Conn {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func testTx(t *testing.T) *types.Transaction {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(testChainID)), &types.DynamicFeeTx{ChainID: big.NewInt(testChainID), Gas: 21000})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// A replica's transaction reaches a sequencer that subscribes a moment
// late (one reconnecting after its NATS server was lost) instead of being
// refused at once; with no sequencer at all it is refused, saying so; the
// sequencer's refusal reads as the sequencer worded it.
func TestClientSend(t *testing.T) {
	refusal := errors.New("nonce too low: next nonce 7, tx nonce 3")
	tests := []struct {
		name    string
		after   time.Duration // when the sequencer subscribes; < 0: never
		refuse  error
		wantErr string
	}{
		{"sequencer subscribed", 0, nil, ""},
		{"sequencer subscribing late", 300 * time.Millisecond, nil, ""},
		{"no sequencer", -1, nil, "the sequencer is not reachable"},
		{"refused", 0, refusal, refusal.Error()},
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := startNATS(t)
			served := make(chan error, 1)
			if tt.after >= 0 {
				go func() {
					time.Sleep(tt.after)
					s, err := Serve(nc, testChainID, Handlers{Send: func(string, *types.Transaction) error { return tt.refuse }}, 0, log)
					if err == nil {
						defer s.Close()
					}
					served <- err
					<-t.Context().Done()
				}()
			}
			if tt.after == 0 {
				if err := <-served; err != nil {
					t.Fatal(err)
				}
			}
			// A relay timeout long enough for the late sequencer, short
			// enough that waiting it out for no sequencer is quick.
			err := NewClient(nc, testChainID, time.Second, nil).Send(testTx(t))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Send: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Send: %v, want an error saying %q", err, tt.wantErr)
			}
		})
	}
}

// A sequencer that dies holding a relayed transaction never answers; the
// replica asks again after attemptTimeout, and the next sequencer, which
// the log gave the transaction to, says it already knows it: the send
// succeeded.
func TestSendToASequencerThatDied(t *testing.T) {
	nc := startNATS(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	held := make(chan struct{})
	var dead *Server
	dead, err := Serve(nc, testChainID, Handlers{Send: func(string, *types.Transaction) error {
		close(held)
		<-t.Context().Done() // dies holding it: no answer while the test runs
		return nil
	}}, 0, log)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-held
		dead.Close()
		next, err := Serve(nc, testChainID, Handlers{Send: func(string, *types.Transaction) error { return txpool.ErrAlreadyKnown }}, 0, log)
		if err != nil {
			t.Error(err)
			return
		}
		t.Cleanup(next.Close)
	}()
	if err := NewClient(nc, testChainID, 5*time.Second, nil).Send(testTx(t)); err != nil {
		t.Fatalf("Send: %v, want it taken by the sequencer after the one that died", err)
	}
}
