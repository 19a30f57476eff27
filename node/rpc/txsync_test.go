package rpc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/peer"
)

// longBlocks is a node whose block never seals during a test, whose
// transactions are pre-confirmed every 20 ms, with eth_sendRawTransactionSync's
// timeouts short enough to be hit.
func longBlocks(t *testing.T, options ...option) *testNode {
	t.Helper()
	short := func(tc *testConfig) {
		tc.rpc.TxSyncDefaultTimeout, tc.rpc.TxSyncMaxTimeout = 100*time.Millisecond, 300*time.Millisecond
	}
	return newTestNode(t, time.Hour, 20*time.Millisecond, append([]option{short}, options...)...)
}

// transfer signs a transfer of ether from dev account `from` at nonce.
func (n *testNode) transfer(from int, nonce uint64, ether int64) (hexutil.Bytes, common.Hash) {
	n.t.Helper()
	to := common.Address{0x0b}
	value := new(big.Int).Mul(big.NewInt(ether), big.NewInt(params.Ether))
	tx, err := types.SignNewTx(n.keys[from], types.LatestSigner(n.chain.Config()), &types.DynamicFeeTx{
		ChainID: n.chain.Config().ChainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei), Gas: params.TxGas, To: &to, Value: value,
	})
	if err != nil {
		n.t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return raw, tx.Hash()
}

// nonce is dev account i's pending nonce.
func (n *testNode) nonce(i int) uint64 {
	n.t.Helper()
	var nonce hexutil.Uint64
	n.result(&nonce, "eth_getTransactionCount", n.addr(i), "pending")
	return uint64(nonce)
}

// callFrom is call for client p.
func (n *testNode) callFrom(p *peer.Peer, method string, params ...any) rpcResponse {
	n.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		n.t.Fatal(err)
	}
	out, _ := n.srv.HandleFrom(p, n.view, body, nil, nil)
	var resp rpcResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		n.t.Fatalf("%s: response %q is not JSON: %v", method, out, err)
	}
	return resp
}

// receiptOf decodes a successful response's receipt.
func receiptOf(t *testing.T, resp rpcResponse) map[string]any {
	t.Helper()
	if resp.Error != nil {
		t.Fatalf("error %d %s %s", resp.Error.Code, resp.Error.Message, resp.Error.Data)
	}
	var receipt map[string]any
	if err := json.Unmarshal(resp.Result, &receipt); err != nil || receipt == nil {
		t.Fatalf("result %s is no receipt: %v", resp.Result, err)
	}
	return receipt
}

// In each view the answer is the receipt eth_getTransactionReceipt gives
// there right after: the sealed block's on /, the pre-confirmed one on
// /preconf, before its block seals.
func TestSendRawTransactionSyncViews(t *testing.T) {
	fast := newTestNode(t, 200*time.Millisecond, 50*time.Millisecond)
	long := longBlocks(t, func(tc *testConfig) { tc.rpc.TxSyncDefaultTimeout = 2 * time.Second })
	tests := []struct {
		name   string
		n      *testNode
		view   View
		sealed bool // the receipt names a sealed block
	}{
		{"standard", fast, Standard, true},
		{"preconf", long, Preconf, false},
		{"preconf, blocks sealing", fast, Preconf, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.n.on(t).in(tt.view)
			raw, hash := n.transfer(i, n.nonce(i), 1)
			got := receiptOf(t, n.call("eth_sendRawTransactionSync", raw))
			var latest hexutil.Uint64
			n.result(&latest, "eth_blockNumber")
			number, _ := hexutil.DecodeUint64(got["blockNumber"].(string))
			if got["transactionHash"] != hash.Hex() || got["status"] != "0x1" {
				t.Fatalf("receipt %v is not the successful transfer's %s", got, hash)
			}
			if sealed := number <= uint64(latest); tt.sealed && !sealed {
				t.Fatalf("receipt of block %d, head %d: not sealed", number, latest)
			}
			if tt.n == fast && tt.view == Preconf {
				return // its block may have sealed since: the receipt then differs
			}
			var want map[string]any
			n.result(&want, "eth_getTransactionReceipt", hash)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("eth_sendRawTransactionSync answered\n%v\neth_getTransactionReceipt answers\n%v", got, want)
			}
			if tt.sealed {
				return
			}
			if r := n.in(Standard).call("eth_getTransactionReceipt", hash); string(r.Result) != "null" {
				t.Fatalf("on / the pre-confirmed transaction has a receipt already: %s", r.Result)
			}
		})
	}
}

// The timeout is milliseconds, a number or a hex quantity; an invalid one
// waits the default (100 ms here), one past the maximum (300 ms) the
// maximum. A timeout answers code 4 with the transaction's hash.
func TestSendRawTransactionSyncTimeout(t *testing.T) {
	n := longBlocks(t)
	tests := []struct {
		name    string
		timeout any // nil: absent
		wait    string
	}{
		{"absent", nil, "100ms"},
		{"number", 50, "50ms"},
		{"hex", "0x32", "50ms"},
		{"string", "soon", "100ms"},
		{"decimal string", "50", "100ms"},
		{"negative", -50, "100ms"},
		{"float", 50.5, "100ms"},
		{"exponent", json.RawMessage("5e1"), "100ms"},
		{"zero", 0, "100ms"},
		{"null", json.RawMessage("null"), "100ms"},
		{"object", map[string]int{"ms": 50}, "100ms"},
		{"above the maximum", 5000, "300ms"},
		{"huge number", json.RawMessage("100000000000000000000000000000"), "300ms"},
		{"huge hex", "0xffffffffffffffffffffffff", "300ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := n.on(t)
			raw, hash := n.transfer(1, n.nonce(1), 1)
			params := []any{raw}
			if tt.timeout != nil {
				params = append(params, tt.timeout)
			}
			resp := n.call("eth_sendRawTransactionSync", params...)
			want := fmt.Sprintf("The transaction was added to the transaction pool but wasn't processed in %s", tt.wait)
			if resp.Error == nil || resp.Error.Code != 4 || resp.Error.Message != want || string(resp.Error.Data) != `"`+hash.Hex()+`"` {
				t.Fatalf("answer %s %+v, want code 4 %q with data %q", resp.Result, resp.Error, want, hash.Hex())
			}
			if n.waiters.Len() != 0 {
				t.Fatalf("%d waiters left behind", n.waiters.Len())
			}
		})
	}
}

// What eth_sendRawTransaction refuses, eth_sendRawTransactionSync refuses
// at once in the same words.
func TestSendRawTransactionSyncRefusals(t *testing.T) {
	n := longBlocks(t)
	known, _ := n.transfer(2, 0, 1)
	n.result(new(common.Hash), "eth_sendRawTransaction", known)
	unprotected, err := types.SignNewTx(n.keys[2], types.HomesteadSigner{}, &types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(10 * params.GWei), Gas: params.TxGas, To: &common.Address{1}})
	if err != nil {
		t.Fatal(err)
	}
	unprotectedRaw, _ := unprotected.MarshalBinary()
	tooMuch, _ := n.transfer(5, 0, 20_000)
	underpriced, _ := n.signed(5, 0, big.NewInt(1), &common.Address{1}, nil, params.TxGas)
	tests := []struct {
		name string
		raw  any
	}{
		{"not hex", "0xzz"},
		{"not a transaction", "0x02c0"},
		{"missing", json.RawMessage("null")},
		{"already known", known},
		{"nonce too low", func() hexutil.Bytes { raw, _ := n.transfer(2, 0, 2); return raw }()},
		{"unprotected", hexutil.Bytes(unprotectedRaw)},
		{"more than the balance", tooMuch},
		{"fee cap below the base fee", underpriced},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := n.on(t)
			got := n.call("eth_sendRawTransactionSync", tt.raw)
			want := n.call("eth_sendRawTransaction", tt.raw)
			if got.Error == nil || want.Error == nil || !reflect.DeepEqual(got.Error, want.Error) {
				t.Fatalf("eth_sendRawTransactionSync answered %s %+v, eth_sendRawTransaction %s %+v", got.Result, got.Error, want.Result, want.Error)
			}
		})
	}
	t.Run("too many arguments", func(t *testing.T) {
		raw, _ := n.transfer(2, 1, 1)
		got := n.on(t).call("eth_sendRawTransactionSync", raw, 100, 1)
		if got.Error == nil || got.Error.Code != -32602 || got.Error.Message != "too many arguments, want at most 2" {
			t.Fatalf("answer %+v", got.Error)
		}
	})
}

// notReadyData is code 5's data.
type notReadyData struct {
	TransactionHash common.Hash    `json:"transactionHash"`
	ExpectedNonce   hexutil.Uint64 `json:"expectedNonce"`
}

// A transaction that cannot run now answers code 5 at once, with its hash
// and the nonce its sender's next transaction must have: one behind a
// nonce gap (pooled, waiting for it), and one its sender's pooled
// transactions leave no funds for (refused, in the pool's words).
func TestSendRawTransactionSyncNotReady(t *testing.T) {
	n := longBlocks(t, func(tc *testConfig) { tc.rpc.TxSyncDefaultTimeout = 10 * time.Second })
	// Dev account 4 spends 6,000 of its 10,000 ETH first.
	first, _ := n.transfer(4, 0, 6000)
	n.result(new(common.Hash), "eth_sendRawTransaction", first)
	tests := []struct {
		name   string
		from   int
		nonce  uint64
		ether  int64
		next   uint64
		words  []string
		pooled bool
	}{
		{"nonce gap", 3, 2, 1, 0, []string{"its nonce 2 leaves a gap after the sender's next nonce 0"}, true},
		{"no funds at its position", 4, 1, 6000, 1, []string{"cannot be processed at its position", "insufficient funds for gas * price + value", "queued cost"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := n.on(t)
			raw, hash := n.transfer(tt.from, tt.nonce, tt.ether)
			resp := n.call("eth_sendRawTransactionSync", raw)
			if resp.Error == nil || resp.Error.Code != 5 {
				t.Fatalf("answer %s %+v, want code 5", resp.Result, resp.Error)
			}
			for _, w := range tt.words {
				if !strings.Contains(resp.Error.Message, w) {
					t.Errorf("message %q lacks %q", resp.Error.Message, w)
				}
			}
			var data notReadyData
			if err := json.Unmarshal(resp.Error.Data, &data); err != nil || data.TransactionHash != hash || uint64(data.ExpectedNonce) != tt.next {
				t.Fatalf("data %s (%v), want hash %s and nonce %d", resp.Error.Data, err, hash, tt.next)
			}
			var tx map[string]any
			n.result(&tx, "eth_getTransactionByHash", hash)
			if pooled := tx != nil; pooled != tt.pooled {
				t.Fatalf("pooled %v, want %v", pooled, tt.pooled)
			}
			if n.waiters.Len() != 0 {
				t.Fatalf("%d waiters left behind", n.waiters.Len())
			}
		})
	}
}

// A flood of waiters stays within its bounds, per client and in all, each
// refusal naming its flag and sending nothing; the shutdown frees every
// waiter.
func TestSendRawTransactionSyncBounded(t *testing.T) {
	n := longBlocks(t, func(tc *testConfig) {
		tc.rpc.TxSyncMaxTimeout = 10 * time.Second
		tc.txwait.Max, tc.txwait.PerClient = 6, 4
	})
	clients := []struct {
		addr    string
		key     int
		sends   int
		refusal []string // the flags named by the refusals, in order
	}{
		{"192.0.2.1", 6, 5, []string{"--rpc.txsync.per-client"}},
		{"192.0.2.2", 7, 3, []string{"--rpc.txsync.max"}},
		{"192.0.2.3", 8, 1, []string{"--rpc.txsync.max"}},
	}
	held := make(chan rpcResponse, 6)
	for _, c := range clients {
		p := peer.New(netip.MustParseAddr(c.addr), nil)
		var refusals []string
		for i := range c.sends {
			raw, hash := n.transfer(c.key, uint64(i), 1)
			before := n.waiters.Len()
			done := make(chan rpcResponse, 1)
			go func() { done <- n.callFrom(p, "eth_sendRawTransactionSync", raw, 10_000) }()
			select {
			case resp := <-done:
				if resp.Error == nil || resp.Error.Code != -32005 {
					t.Fatalf("%s's send %d answered %s %+v, want waiting or -32005", c.addr, i, resp.Result, resp.Error)
				}
				refusals = append(refusals, flagNamed(resp.Error.Message))
				if n.pool.Get(hash) != nil {
					t.Fatalf("a refused transaction was sent")
				}
			case <-waitHeld(n, before+1, hash):
				go func() { held <- <-done }()
			}
		}
		if !reflect.DeepEqual(refusals, c.refusal) {
			t.Fatalf("%s's refusals named %v, want %v", c.addr, refusals, c.refusal)
		}
	}
	if got := n.waiters.Len(); got != 6 {
		t.Fatalf("%d waiting, want 6", got)
	}
	n.waiters.Close()
	for range 6 {
		resp := <-held
		if resp.Error == nil || !strings.Contains(resp.Error.Message, "shutting down") {
			t.Fatalf("a waiter at shutdown answered %s %+v", resp.Result, resp.Error)
		}
	}
	if got := n.waiters.Len(); got != 0 {
		t.Fatalf("%d waiters after the shutdown", got)
	}
}

// flagNamed is the --rpc.txsync flag a message names.
func flagNamed(msg string) string {
	for _, f := range []string{"--rpc.txsync.per-client", "--rpc.txsync.max"} {
		if strings.Contains(msg, f) {
			return f
		}
	}
	return msg
}

// waitLen is closed once n has want waiters.
func waitLen(n *testNode, want int) <-chan struct{} { return waitHeld(n, want, common.Hash{}) }

// waitHeld is closed once n has want waiters and, unless hash is zero,
// the transaction hash is pooled: the sender's next nonce may follow.
func waitHeld(n *testNode, want int, hash common.Hash) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		deadline := time.Now().Add(10 * time.Second)
		for (n.waiters.Len() < want || (hash != common.Hash{} && n.pool.Get(hash) == nil)) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}()
	return ch
}

// A client that hangs up frees its waiter long before the timeout.
func TestSendRawTransactionSyncHangUp(t *testing.T) {
	n := longBlocks(t, func(tc *testConfig) { tc.rpc.TxSyncMaxTimeout = 10 * time.Second })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	raw, _ := n.transfer(9, 0, 1)
	done := make(chan rpcResponse, 1)
	go func() { done <- n.callFrom(peer.FromConn(server), "eth_sendRawTransactionSync", raw, 10_000) }()
	<-waitLen(n, 1)
	client.Close()
	resp := <-done
	if resp.Error == nil || !strings.Contains(resp.Error.Message, "client went away") {
		t.Fatalf("after the hang-up: %s %+v", resp.Result, resp.Error)
	}
	if got := n.waiters.Len(); got != 0 {
		t.Fatalf("%d waiters after the hang-up", got)
	}
}
