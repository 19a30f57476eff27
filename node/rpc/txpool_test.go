package rpc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// sendNonce signs and submits a transfer (or, with to nil, a creation)
// with an explicit nonce.
func (n *testNode) sendNonce(from int, nonce uint64, to *common.Address, value int64) *types.Transaction {
	n.t.Helper()
	gas := uint64(21000)
	if to == nil {
		gas = 100_000
	}
	tx, err := types.SignNewTx(n.keys[from], types.LatestSigner(n.chain.Config()), &types.DynamicFeeTx{
		ChainID: n.chain.Config().ChainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(10 * params.GWei), Gas: gas, To: to, Value: big.NewInt(value),
	})
	if err != nil {
		n.t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	var hash common.Hash
	n.result(&hash, "eth_sendRawTransaction", hexutil.Bytes(raw))
	return tx
}

type poolListing map[string]map[string]map[string]json.RawMessage

// The txpool methods answer in geth's shapes: counts, and transactions by
// checksummed sender and decimal nonce, executable ones pending and those
// behind a nonce gap queued.
func TestTxpoolMethods(t *testing.T) {
	n := newTestNode(t, 0, 0) // no block production: the pool keeps what it gets
	to := common.HexToAddress("0x00000000000000000000000000000000000000b0")
	p0 := n.sendNonce(4, 0, &to, 1)
	p1 := n.sendNonce(4, 1, &to, 2)
	create := n.sendNonce(6, 0, nil, 0)
	gap := n.sendNonce(5, 3, &to, 3)
	if err := n.pool.Sync(); err != nil {
		t.Fatal(err)
	}
	a4, a5, a6 := n.addr(4).Hex(), n.addr(5).Hex(), n.addr(6).Hex()

	var status map[string]string
	n.result(&status, "txpool_status")
	if fmt.Sprint(status) != "map[pending:0x3 queued:0x1]" {
		t.Errorf("txpool_status = %v", status)
	}

	var content poolListing
	n.result(&content, "txpool_content")
	for _, c := range []struct {
		section, sender, nonce string
		tx                     *types.Transaction
	}{{"pending", a4, "0", p0}, {"pending", a4, "1", p1}, {"pending", a6, "0", create}, {"queued", a5, "3", gap}} {
		got := content[c.section][c.sender][c.nonce]
		var want json.RawMessage
		n.result(&want, "eth_getTransactionByHash", c.tx.Hash())
		if !jsonEqual(t, got, want) {
			t.Errorf("%s[%s][%s] = %s, eth_getTransactionByHash %s", c.section, c.sender, c.nonce, got, want)
		}
	}
	if len(content["pending"]) != 2 || len(content["pending"][a4]) != 2 || len(content["queued"]) != 1 {
		t.Errorf("txpool_content = %v", content)
	}

	var from map[string]map[string]json.RawMessage
	n.result(&from, "txpool_contentFrom", n.addr(4))
	if len(from["pending"]) != 2 || from["queued"] == nil || len(from["queued"]) != 0 {
		t.Errorf("txpool_contentFrom = %v", from)
	}
	n.result(&from, "txpool_contentFrom", "0x00000000000000000000000000000000deadbeef")
	if from["pending"] == nil || len(from["pending"]) != 0 || from["queued"] == nil || len(from["queued"]) != 0 {
		t.Errorf("txpool_contentFrom(unknown) = %v", from)
	}

	var inspect map[string]map[string]map[string]string
	n.result(&inspect, "txpool_inspect")
	for _, c := range []struct {
		got  string
		want string
	}{
		{inspect["pending"][a4]["1"], to.Hex() + ": 2 wei + 21000 gas × 10000000000 wei"},
		{inspect["pending"][a6]["0"], "contract creation: 0 wei + 100000 gas × 10000000000 wei"},
		{inspect["queued"][a5]["3"], to.Hex() + ": 3 wei + 21000 gas × 10000000000 wei"},
	} {
		if c.got != c.want {
			t.Errorf("txpool_inspect line %q, want %q", c.got, c.want)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// A pre-confirmed transaction stays pending in the pool until its block is
// sealed, as geth lists its miner's pending block's.
func TestTxpoolKeepsPreconfirmedUntilSealed(t *testing.T) {
	n := newTestNode(t, 1500*time.Millisecond, 20*time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000b1")
	hash := n.send(7, &to, big.NewInt(1), 21000, nil)
	waitFor(t, "pre-confirmation", func() bool {
		var block struct {
			Transactions []common.Hash `json:"transactions"`
		}
		n.result(&block, "eth_getBlockByNumber", "pending", false)
		return len(block.Transactions) == 1 && block.Transactions[0] == hash
	})
	var from map[string]map[string]json.RawMessage
	n.result(&from, "txpool_contentFrom", n.addr(7))
	if _, ok := from["pending"]["0"]; !ok {
		t.Errorf("pre-confirmed, not sealed: txpool_contentFrom = %v", from)
	}
	n.waitSealed(hash)
	waitFor(t, "the pool to drop the sealed transaction", func() bool {
		n.result(&from, "txpool_contentFrom", n.addr(7))
		return len(from["pending"]) == 0
	})
}

func TestTxpoolBounds(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) { tc.rpc.BatchResponseLimit = 1500 })
	to := common.HexToAddress("0x00000000000000000000000000000000000000b2")
	for nonce := range uint64(4) {
		n.sendNonce(8, nonce, &to, 1)
	}
	for _, method := range []string{"txpool_content", "txpool_contentFrom"} {
		var params []any
		if method == "txpool_contentFrom" {
			params = []any{n.addr(8)}
		}
		if resp := n.call(method, params...); resp.Error == nil || resp.Error.Code != -32003 {
			t.Errorf("%s over the response limit: %s %+v", method, resp.Result, resp.Error)
		}
	}
	var inspect poolListing
	n.result(&inspect, "txpool_inspect") // four short lines fit
	for _, c := range []struct {
		method, params string
		msg            string
	}{
		{"txpool_contentFrom", `[]`, "missing value for required argument 0"},
		{"txpool_contentFrom", `["0x1234"]`, "invalid argument 0: hex string has length 4"},
		{"txpool_status", `[1]`, "too many arguments, want at most 0"},
		{"txpool_content", `[1]`, "too many arguments, want at most 0"},
		{"txpool_inspect", `[1]`, "too many arguments, want at most 0"},
	} {
		out := n.raw(`{"jsonrpc":"2.0","id":1,"method":"` + c.method + `","params":` + c.params + `}`)
		if !strings.Contains(out, `"code":-32602`) || !strings.Contains(out, c.msg) {
			t.Errorf("%s%s = %s, want -32602 %q", c.method, c.params, out, c.msg)
		}
	}
}
