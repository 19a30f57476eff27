package app_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/fasthttp/websocket"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/httpserver"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/ws"
)

// testNode runs a whole in-memory node with the given WebSocket config.
type testNode struct {
	t    *testing.T
	node *app.Node
	url  string
	keys []*ecdsa.PrivateKey
}

func startNode(t *testing.T, blockTime time.Duration, wsCfg ws.Config) *testNode {
	t.Helper()
	return startNodeTLS(t, blockTime, wsCfg, "", "")
}

func startNodeTLS(t *testing.T, blockTime time.Duration, wsCfg ws.Config, certFile, keyFile string) *testNode {
	t.Helper()
	return startNodeWith(t, blockTime, wsCfg, func(cfg *app.Config) {
		cfg.HTTP.TLSCert, cfg.HTTP.TLSKey = certFile, keyFile
	})
}

// startNodeWith starts a node whose configuration configure adjusts.
func startNodeWith(t *testing.T, blockTime time.Duration, wsCfg ws.Config, configure func(*app.Config)) *testNode {
	t.Helper()
	cfg := app.Config{
		Dev:       true,
		Sequencer: sequencer.Config{BlockTime: blockTime, PreconfInterval: blockTime / 2},
		HTTP:      httpserver.DefaultConfig(),
		RPC:       rpc.DefaultConfig(),
		WS:        wsCfg,
	}
	cfg.HTTP.Addr = "127.0.0.1:0"
	configure(&cfg)
	certFile := cfg.HTTP.TLSCert
	n, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("node: %v", err)
		}
	})
	keys, err := chain.DevKeys(4)
	if err != nil {
		t.Fatal(err)
	}
	scheme := "ws://"
	if certFile != "" {
		scheme = "wss://"
	}
	return &testNode{t: t, node: n, url: scheme + n.HTTPAddr() + "/ws", keys: keys}
}

// client is a WebSocket connection that sorts what it reads into responses
// (by id) and notifications (by subscription).
type client struct {
	t     *testing.T
	conn  *websocket.Conn
	mu    sync.Mutex
	resp  map[string]json.RawMessage
	notes map[string][]json.RawMessage
	cond  *sync.Cond
	err   error
	id    int
}

func (n *testNode) dial() *client {
	n.t.Helper()
	return n.dialWith(websocket.DefaultDialer)
}

func (n *testNode) dialWith(dialer *websocket.Dialer) *client {
	n.t.Helper()
	conn, _, err := dialer.Dial(n.url, nil)
	if err != nil {
		n.t.Fatal(err)
	}
	c := &client{t: n.t, conn: conn, resp: map[string]json.RawMessage{}, notes: map[string][]json.RawMessage{}}
	c.cond = sync.NewCond(&c.mu)
	go c.readLoop()
	n.t.Cleanup(func() { conn.Close() })
	return c
}

func (c *client) readLoop() {
	for {
		_, msg, err := c.conn.ReadMessage()
		c.mu.Lock()
		if err != nil {
			c.err = err
			c.cond.Broadcast()
			c.mu.Unlock()
			return
		}
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Subscription string          `json:"subscription"`
				Result       json.RawMessage `json:"result"`
			} `json:"params"`
		}
		if msg[0] == '[' {
			var batch []json.RawMessage
			json.Unmarshal(msg, &batch)
			for _, m := range batch {
				json.Unmarshal(m, &env)
				c.resp[string(env.ID)] = m
			}
		} else if json.Unmarshal(msg, &env) == nil && env.Method == "eth_subscription" {
			c.notes[env.Params.Subscription] = append(c.notes[env.Params.Subscription], env.Params.Result)
		} else {
			c.resp[string(env.ID)] = msg
		}
		c.cond.Broadcast()
		c.mu.Unlock()
	}
}

// call sends a request and waits for its response.
func (c *client) call(method string, params ...any) json.RawMessage {
	c.t.Helper()
	c.mu.Lock()
	c.id++
	id := fmt.Sprint(c.id)
	c.mu.Unlock()
	p, _ := json.Marshal(params)
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, p))); err != nil {
		c.t.Fatal(err)
	}
	return c.waitResp(id)
}

func (c *client) waitResp(id string) json.RawMessage {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.resp[id] == nil {
		if c.err != nil || time.Now().After(deadline) {
			c.t.Fatalf("no response to %s: %v", id, c.err)
		}
		c.waitLocked(deadline)
	}
	return c.resp[id]
}

// waitLocked waits for a broadcast or the deadline.
func (c *client) waitLocked(deadline time.Time) {
	timer := time.AfterFunc(time.Until(deadline), func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	c.cond.Wait()
	timer.Stop()
}

func result(t *testing.T, resp json.RawMessage, v any) {
	t.Helper()
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp, &env); err != nil {
		t.Fatalf("%s: %v", resp, err)
	}
	if env.Error != nil {
		t.Fatalf("error %d %s", env.Error.Code, env.Error.Message)
	}
	if err := json.Unmarshal(env.Result, v); err != nil {
		t.Fatalf("%s: %v", env.Result, err)
	}
}

func (c *client) subscribe(params ...any) string {
	c.t.Helper()
	var id string
	result(c.t, c.call("eth_subscribe", params...), &id)
	if len(id) != 34 || !strings.HasPrefix(id, "0x") {
		c.t.Fatalf("subscription id %q is not 128-bit hex", id)
	}
	return id
}

// waitNotes waits until sub has at least n notifications and returns them.
func (c *client) waitNotes(sub string, n int, timeout time.Duration) []json.RawMessage {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.notes[sub]) < n {
		if c.err != nil || time.Now().After(deadline) {
			c.t.Fatalf("%d of %d notifications for %s: %v", len(c.notes[sub]), n, sub, c.err)
		}
		c.waitLocked(deadline)
	}
	return append([]json.RawMessage(nil), c.notes[sub]...)
}

func (c *client) noteCount(sub string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notes[sub])
}

func (n *testNode) sendTx(c *client, from int, to *common.Address, data []byte, gas uint64) common.Hash {
	n.t.Helper()
	var nonce hexutil.Uint64
	result(n.t, c.call("eth_getTransactionCount", crypto.PubkeyToAddress(n.keys[from].PublicKey), "pending"), &nonce)
	tx, err := types.SignNewTx(n.keys[from], types.LatestSigner(n.node.Chain().Config()), &types.DynamicFeeTx{
		ChainID: n.node.Chain().Config().ChainID, Nonce: uint64(nonce), GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei), Gas: gas, To: to, Data: data, Value: new(big.Int),
	})
	if err != nil {
		n.t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	var hash common.Hash
	result(n.t, c.call("eth_sendRawTransaction", hexutil.Bytes(raw)), &hash)
	return hash
}

func goroutines() int { return runtime.NumGoroutine() }
