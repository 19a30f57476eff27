package app_test

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/fasthttp/websocket"

	"github.com/stocknode/stocknode/internal/testcert"
	"github.com/stocknode/stocknode/node/ws"
)

var logTopic = common.HexToHash("0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")

// logContract's runtime emits LOG1(logTopic) with the calldata as data.
func logContract() []byte {
	runtime := hexutil.MustDecode("0x366000600037" + "7f" + logTopic.Hex()[2:] + "366000a100")
	n := byte(len(runtime))
	return append([]byte{0x60, n, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3}, runtime...)
}

// deployLogContract deploys logContract from account 0 and waits for its
// receipt.
func (n *testNode) deployLogContract(c *client) common.Address {
	n.t.Helper()
	deploy := n.sendTx(c, 0, nil, logContract(), 200_000)
	var receipt map[string]any
	for receipt == nil || receipt["contractAddress"] == nil {
		result(n.t, c.call("eth_getTransactionReceipt", deploy), &receipt)
		time.Sleep(20 * time.Millisecond)
	}
	return common.HexToAddress(receipt["contractAddress"].(string))
}

func number(t *testing.T, raw json.RawMessage) uint64 {
	t.Helper()
	var h struct {
		Number hexutil.Uint64 `json:"number"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return uint64(h.Number)
}

// newHeads arrive one per sealed block, in order, with geth's header
// fields; unsubscribing stops them; calls share the connection.
func TestNewHeadsLifecycle(t *testing.T) {
	n := startNode(t, 50*time.Millisecond, ws.DefaultConfig())
	c := n.dial()
	var chainID string
	result(t, c.call("eth_chainId"), &chainID)
	if chainID != "0x509f455" {
		t.Fatalf("chainId over ws = %s", chainID)
	}
	sub := c.subscribe("newHeads")
	heads := c.waitNotes(sub, 5, 5*time.Second)
	first := number(t, heads[0])
	for i, h := range heads {
		if got := number(t, h); got != first+uint64(i) {
			t.Fatalf("head %d is block %d, want %d", i, got, first+uint64(i))
		}
		var fields map[string]any
		json.Unmarshal(h, &fields)
		for _, f := range []string{"hash", "parentHash", "stateRoot", "timestamp", "baseFeePerGas", "miner", "gasLimit", "logsBloom"} {
			if _, ok := fields[f]; !ok {
				t.Fatalf("head lacks %s: %s", f, h)
			}
		}
	}
	var ok bool
	result(t, c.call("eth_unsubscribe", sub), &ok)
	if !ok {
		t.Fatal("unsubscribe returned false")
	}
	after := c.noteCount(sub)
	time.Sleep(300 * time.Millisecond)
	if got := c.noteCount(sub); got > after {
		t.Fatalf("%d notifications after unsubscribing", got-after)
	}
	if resp := string(c.call("eth_unsubscribe", sub)); !strings.Contains(resp, "subscription not found") {
		t.Fatalf("second unsubscribe: %s", resp)
	}
	if resp := string(c.call("eth_subscribe", "nope")); !strings.Contains(resp, `no \"nope\" subscription in eth namespace`) {
		t.Fatalf("unknown kind: %s", resp)
	}
	// A batch over the socket.
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte(`[{"jsonrpc":"2.0","id":"a","method":"eth_blockNumber"},{"jsonrpc":"2.0","id":"b","method":"net_version"}]`)); err != nil {
		t.Fatal(err)
	}
	if resp := string(c.waitResp(`"b"`)); !strings.Contains(resp, `"84538453"`) {
		t.Fatalf("batch: %s", resp)
	}
}

// logs notifications equal what eth_getLogs returns for the same blocks;
// pendingLogs and newFlashblocks report them before the seal.
func TestLogsEqualGetLogs(t *testing.T) {
	n := startNode(t, 200*time.Millisecond, ws.DefaultConfig())
	c := n.dial()
	contract := n.deployLogContract(c)
	filter := map[string]any{"address": contract, "topics": []any{logTopic}}
	logsSub := c.subscribe("logs", filter)
	pendingSub := c.subscribe("pendingLogs", filter)
	flashSub := c.subscribe("newFlashblocks")
	txSub := c.subscribe("newPendingTransactions")

	const txs = 6
	var hashes []common.Hash
	for i := 0; i < txs; i++ {
		hashes = append(hashes, n.sendTx(c, 1, &contract, []byte{byte(i)}, 100_000))
		time.Sleep(70 * time.Millisecond) // spread over several blocks
	}
	notes := c.waitNotes(logsSub, txs, 10*time.Second)
	pendingNotes := c.waitNotes(pendingSub, txs, 10*time.Second)
	txNotes := c.waitNotes(txSub, txs, 10*time.Second)
	if len(c.waitNotes(flashSub, 3, 5*time.Second)) < 3 {
		t.Fatal("too few flashblocks")
	}
	type logJSON struct {
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
		TxHash      common.Hash    `json:"transactionHash"`
		Data        hexutil.Bytes  `json:"data"`
		Removed     bool           `json:"removed"`
	}
	var first, last uint64
	for i, raw := range notes {
		var l logJSON
		json.Unmarshal(raw, &l)
		if l.TxHash != hashes[i] || l.Removed {
			t.Fatalf("log %d is of tx %s, want %s in order", i, l.TxHash, hashes[i])
		}
		if i == 0 {
			first = uint64(l.BlockNumber)
		}
		last = uint64(l.BlockNumber)
	}
	var got []json.RawMessage
	result(t, c.call("eth_getLogs", map[string]any{"address": contract, "fromBlock": hexutil.Uint64(first), "toBlock": hexutil.Uint64(last)}), &got)
	if len(got) != len(notes) {
		t.Fatalf("eth_getLogs returned %d logs, subscription %d", len(got), len(notes))
	}
	for i := range got {
		if !jsonEqual(got[i], notes[i]) {
			t.Fatalf("log %d differs:\n getLogs %s\n sub     %s", i, got[i], notes[i])
		}
	}
	for i, raw := range pendingNotes[:txs] {
		var l logJSON
		json.Unmarshal(raw, &l)
		if l.TxHash != hashes[i] {
			t.Fatalf("pending log %d is of tx %s, want %s", i, l.TxHash, hashes[i])
		}
	}
	var firstTx common.Hash
	json.Unmarshal(txNotes[0], &firstTx)
	if firstTx != hashes[0] {
		t.Fatalf("newPendingTransactions first = %s, want %s", firstTx, hashes[0])
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// A subscriber that stops reading is closed with a reason once its queue
// fills, while a reading subscriber keeps receiving every head; over WSS
// too, where the flusher writes through the TLS conn.
func TestSlowConsumerDropped(t *testing.T) {
	for _, wss := range []bool{false, true} {
		t.Run(map[bool]string{false: "ws", true: "wss"}[wss], func(t *testing.T) {
			cfg := ws.DefaultConfig()
			cfg.SendQueue = 8
			var n *testNode
			dialer := websocket.DefaultDialer
			if wss {
				certFile, keyFile, pool := testcert.SelfSigned(t)
				n = startNodeTLS(t, 20*time.Millisecond, cfg, certFile, keyFile)
				dialer = &websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: pool}}
			} else {
				n = startNode(t, 20*time.Millisecond, cfg)
			}
			slowConsumerDropped(t, n, dialer)
		})
	}
}

func slowConsumerDropped(t *testing.T, n *testNode, dialer *websocket.Dialer) {
	slow, _, err := dialer.Dial(n.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	// Subscribe many times over, then never read again: the TCP buffers
	// fill within a second, then the queue.
	for i := 0; i < 100; i++ {
		slow.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`))
	}

	fast := n.dialWith(dialer)
	sub := fast.subscribe("newHeads")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, _, dropped := n.node.WSStats(); dropped > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("slow subscriber never dropped")
		}
		time.Sleep(50 * time.Millisecond)
	}
	before := fast.noteCount(sub)
	fast.waitNotes(sub, before+5, 5*time.Second)
	heads := fast.waitNotes(sub, before+5, time.Second)
	for i := 1; i < len(heads); i++ {
		if number(t, heads[i]) != number(t, heads[i-1])+1 {
			t.Fatalf("fast subscriber missed a head: %d after %d", number(t, heads[i]), number(t, heads[i-1]))
		}
	}
	// The slow client finds a close frame saying why once it reads, after
	// well-formed frames.
	var closeErr *websocket.CloseError
	for {
		slow.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, _, err := slow.ReadMessage(); err != nil {
			if errors.As(err, &closeErr) && closeErr.Code == websocket.ClosePolicyViolation && strings.Contains(closeErr.Text, "too slow") {
				return
			}
			t.Fatalf("slow client read error %v, want close 1008 'too slow'", err)
		}
	}
}

// 1,000 connect/subscribe/disconnect cycles leave no goroutines or
// subscriptions behind, whoever closes: the client with a close frame or
// without, or the server (invalid UTF-8; a protocol error, where the
// library sends the close).
func TestNoLeaksAfterManyConnections(t *testing.T) {
	n := startNode(t, 50*time.Millisecond, ws.DefaultConfig())
	warm := n.dial()
	warm.subscribe("newHeads")
	warm.conn.Close()
	time.Sleep(200 * time.Millisecond)
	base := goroutines()
	for i := 0; i < 1000; i++ {
		conn, _, err := websocket.DefaultDialer.Dial(n.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		conn.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`))
		if _, _, err := conn.ReadMessage(); err != nil {
			t.Fatal(err)
		}
		switch i % 4 {
		case 0:
			conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
		case 2:
			conn.WriteMessage(websocket.TextMessage, []byte("\xff"))
			expectClose(t, conn, websocket.CloseInvalidFramePayloadData)
		case 3:
			conn.NetConn().Write(clientFrame(true, 3, nil))
			expectClose(t, conn, websocket.CloseProtocolError)
		}
		conn.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		conns, subs, _ := n.node.WSStats()
		g := goroutines()
		if conns == 0 && subs == 0 && g <= base+5 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 1000 cycles: %d conns, %d subs, %d goroutines (baseline %d)", conns, subs, g, base)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// expectClose reads until the server's close frame, which must have code.
func expectClose(t *testing.T, conn *websocket.Conn, code int) {
	t.Helper()
	if _, ce := readToClose(t, conn); ce.Code != code {
		t.Fatalf("close %d %q, want %d", ce.Code, ce.Text, code)
	}
}

func TestLimits(t *testing.T) {
	cfg := ws.DefaultConfig()
	cfg.MaxSubs = 2
	cfg.MessageLimit = 1024
	cfg.MaxConns = 3
	n := startNode(t, 0, cfg)
	c := n.dial()
	c.subscribe("newHeads")
	c.subscribe("newHeads")
	if resp := string(c.call("eth_subscribe", "newHeads")); !strings.Contains(resp, "too many subscriptions") {
		t.Fatalf("third subscription: %s", resp)
	}
	// More connections than allowed are refused at the upgrade.
	n.dial()
	n.dial()
	if _, resp, err := websocket.DefaultDialer.Dial(n.url, nil); err == nil || resp == nil || resp.StatusCode != 503 {
		t.Fatalf("fourth connection: %v %v", resp, err)
	}
	// An oversized message closes the connection with 1009.
	big := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["` + strings.Repeat("a", 2048) + `"]}`
	c.conn.WriteMessage(websocket.TextMessage, []byte(big))
	c.mu.Lock()
	for c.err == nil {
		c.waitLocked(time.Now().Add(5 * time.Second))
	}
	err := c.err
	c.mu.Unlock()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("oversized message: %v", err)
	}
}

// The broadcaster skips kinds nobody subscribes to; a subscription that
// comes back after every one of its kind was gone still gets its events,
// and only those from after it subscribed.
func TestKindResubscribed(t *testing.T) {
	n := startNode(t, 50*time.Millisecond, ws.DefaultConfig())
	a, b := n.dial(), n.dial()
	to := common.HexToAddress("0x00000000000000000000000000000000000000ee")
	first := a.subscribe("newPendingTransactions")
	var ok bool
	result(t, a.call("eth_unsubscribe", first), &ok)
	unheard := n.sendTx(a, 0, &to, nil, 21_000) // nobody subscribed
	time.Sleep(200 * time.Millisecond)
	second := b.subscribe("newPendingTransactions")
	heard := n.sendTx(b, 1, &to, nil, 21_000)
	notes := b.waitNotes(second, 1, 5*time.Second)
	var got common.Hash
	if err := json.Unmarshal(notes[0], &got); err != nil {
		t.Fatal(err)
	}
	if got != heard {
		t.Fatalf("resubscribed: first notification %s, want %s (not %s, sent before)", got, heard, unheard)
	}
	if a.noteCount(first) != 0 {
		t.Fatalf("%d notifications on the unsubscribed %s", a.noteCount(first), first)
	}
}

// TestKeepalive: the server pings every connection; one that answers with
// pongs (the library's default while it reads) stays open past the idle
// timeout, one that never answers and sends nothing is closed after it.
func TestKeepalive(t *testing.T) {
	cfg := ws.DefaultConfig()
	cfg.PingInterval = 100 * time.Millisecond
	cfg.IdleTimeout = 500 * time.Millisecond
	n := startNode(t, 0, cfg)

	alive, _, err := websocket.DefaultDialer.Dial(n.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer alive.Close()
	var pings atomic.Int32
	alive.SetPingHandler(func(data string) error {
		pings.Add(1)
		return alive.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	replies := make(chan []byte, 1)
	go func() {
		for {
			_, msg, err := alive.ReadMessage() // runs the ping handler
			if err != nil {
				close(replies)
				return
			}
			replies <- msg
		}
	}()
	silent, _, err := websocket.DefaultDialer.Dial(n.url, nil) // never reads, so never answers a ping
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()

	deadline := time.Now().Add(10 * time.Second)
	for {
		if conns, _, _ := n.node.WSStats(); conns == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the silent connection was not closed after the idle timeout")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(3 * cfg.IdleTimeout) // well past the idle timeout
	if got := pings.Load(); got < 5 {
		t.Fatalf("%d pings in %v at a %v interval", got, 3*cfg.IdleTimeout, cfg.PingInterval)
	}
	alive.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":7,"method":"eth_chainId"}`))
	if reply := <-replies; !strings.Contains(string(reply), `"id":7,"result"`) {
		t.Fatalf("call on the answering connection: %q", reply)
	}
	if conns, _, _ := n.node.WSStats(); conns != 1 {
		t.Fatalf("%d connections, want the answering one open", conns)
	}
	// The silent one got the pings, then a close frame saying why.
	silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, _, err := silent.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("silent connection ended with %v, want a close frame", err)
			}
			break
		}
	}
}
