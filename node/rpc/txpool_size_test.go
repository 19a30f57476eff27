package rpc

import (
	"bytes"
	"crypto/ecdsa"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// poolKinds are transactions of every kind the pool takes, the smallest
// and the largest of their fields, signed with key.
func poolKinds(t *testing.T, key *ecdsa.PrivateKey, chainID *big.Int) map[string]*types.Transaction {
	t.Helper()
	to := common.HexToAddress("0x00000000000000000000000000000000000000b3")
	huge := new(big.Int).Lsh(big.NewInt(1), 255)
	data := bytes.Repeat([]byte{0xab}, 8_000)
	list := types.AccessList{{Address: to, StorageKeys: []common.Hash{{1}, {2}}}, {Address: common.Address{9}}}
	auth, err := types.SignSetCode(key, types.SetCodeAuthorization{ChainID: *uint256.MustFromBig(chainID), Address: to, Nonce: 1 << 60})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]types.TxData{
		"legacy, unprotected":     &types.LegacyTx{Gas: 21_000, To: &to, Value: new(big.Int), GasPrice: new(big.Int)},
		"legacy creation, zeroes": &types.LegacyTx{Value: new(big.Int), GasPrice: new(big.Int)},
		"legacy, huge numbers":    &types.LegacyTx{Nonce: 1 << 63, Gas: 1 << 63, To: &to, Value: huge, GasPrice: huge, Data: data},
		"access list":             &types.AccessListTx{ChainID: chainID, Gas: 50_000, To: &to, Value: big.NewInt(1), GasPrice: big.NewInt(params.GWei), AccessList: list},
		"dynamic fee":             &types.DynamicFeeTx{ChainID: chainID, Gas: 21_000, To: &to, Value: big.NewInt(1), GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(params.GWei)},
		"dynamic fee, large data": &types.DynamicFeeTx{ChainID: chainID, Gas: 1_000_000, To: &to, Value: new(big.Int), GasTipCap: new(big.Int), GasFeeCap: huge, Data: data, AccessList: list},
		"set code":                &types.SetCodeTx{ChainID: uint256.MustFromBig(chainID), Gas: 100_000, To: to, Value: new(uint256.Int), GasTipCap: new(uint256.Int), GasFeeCap: uint256.NewInt(params.GWei), AuthList: []types.SetCodeAuthorization{auth, auth}},
	}
	out := map[string]*types.Transaction{}
	for name, data := range kinds {
		signer := types.LatestSignerForChainID(chainID)
		if name == "legacy, unprotected" || name == "legacy creation, zeroes" {
			signer = types.HomesteadSigner{}
		}
		tx, err := types.SignNewTx(key, signer, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = tx
	}
	return out
}

// The fewest bytes a listing's transaction can take are never more than
// it takes, whatever its kind: a listing that fits is never refused. For
// large transactions they are close to what it takes, so that a listing
// that cannot fit is refused before it is built.
func TestTxpoolLeastSizes(t *testing.T) {
	n := newTestNode(t, 0, 0)
	object := n.srv.txObject(&request{snap: n.store.Load()})
	for name, tx := range poolKinds(t, n.keys[0], n.chain.Config().ChainID) {
		for _, enc := range []struct {
			name      string
			e         txEncoding
			tightness float64 // least over the encoding's size, at least, for large transactions
		}{
			{"object", txEncoding{encode: object, least: leastTxObject}, 0.9},
			{"inspect line", txEncoding{encode: inspectLine, least: leastInspectLine}, 0},
		} {
			got, err := enc.e.encode(nil, tx)
			if err != nil {
				t.Fatal(err)
			}
			least := enc.e.least(tx)
			if least > len(got) {
				t.Errorf("%s, %s: least %d bytes, encoded in %d: %s", name, enc.name, least, len(got), got)
			}
			if len(tx.Data()) > 1000 && float64(least) < enc.tightness*float64(len(got)) {
				t.Errorf("%s, %s: least %d bytes, encoded in %d: too loose to refuse a pool of large transactions early", name, enc.name, least, len(got))
			}
		}
	}
}

// A listing that fits its response answers as it always has, byte for
// byte; one that passes it is refused as it is written, and one whose
// least size passes it is refused before it is built, with an error that
// names the flag and the methods that answer less.
func TestTxpoolRefusedBeforeBuilt(t *testing.T) {
	n := newTestNode(t, 0, 0) // no block production: the pool keeps what it gets
	to := common.HexToAddress("0x00000000000000000000000000000000000000b4")
	data := bytes.Repeat([]byte{0xcd}, 1_000)
	for from := 3; from <= 4; from++ {
		for nonce := range uint64(3) {
			tx, err := types.SignNewTx(n.keys[from], types.LatestSigner(n.chain.Config()), &types.DynamicFeeTx{
				ChainID: n.chain.Config().ChainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei),
				GasFeeCap: big.NewInt(10 * params.GWei), Gas: 100_000, To: &to, Data: data,
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := n.pool.Add(tx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := n.pool.Sync(); err != nil {
		t.Fatal(err)
	}
	sender := `"` + n.addr(3).Hex() + `"`
	for _, tt := range []struct {
		method, params, instead string
	}{
		{"txpool_content", `[]`, "ask txpool_contentFrom for one sender's transactions, txpool_inspect for a line on each, or txpool_status for the counts"},
		{"txpool_contentFrom", `[` + sender + `]`, "ask txpool_inspect for a line on each, or txpool_status for the counts"},
		{"txpool_inspect", `[]`, "ask txpool_contentFrom for one sender's transactions, or txpool_status for the counts"},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + tt.method + `","params":` + tt.params + `}`
		n.srv.cfg.BatchResponseLimit = DefaultConfig().BatchResponseLimit
		full := n.raw(body)
		result, ok := strings.CutPrefix(full, `{"jsonrpc":"2.0","id":1,"result":`)
		if !ok {
			t.Fatalf("%s: %s", tt.method, full)
		}
		size := len(result) - 1
		n.srv.cfg.BatchResponseLimit = size
		if got := n.raw(body); got != full {
			t.Errorf("%s in a response of exactly its size (%d bytes):\n%s\nwant\n%s", tt.method, size, got, full)
		}
		n.srv.cfg.BatchResponseLimit = size - 50 // more than the least size
		if got := n.raw(body); got != `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"response too large"}}` {
			t.Errorf("%s in a response 50 bytes short: %s", tt.method, got)
		}
		n.srv.cfg.BatchResponseLimit = 200 // less than any of them takes at least
		got := n.call(tt.method, paramsOf(t, tt.params)...)
		if got.Error == nil || got.Error.Code != -32003 || !strings.Contains(got.Error.Message, "more than the 200 left in this response (--rpc.batch-response-max-size); "+tt.instead) {
			t.Errorf("%s in 200 bytes: %s %+v", tt.method, got.Result, got.Error)
		}
	}
}

// paramsOf decodes a JSON array of parameters.
func paramsOf(t *testing.T, raw string) []any {
	t.Helper()
	if raw == `[]` {
		return nil
	}
	return []any{common.HexToAddress(strings.Trim(raw, `["]`))}
}

// TestTxpoolLeastFraming: the framing the least size counts is never more
// than a listing has, for no sender, one and several.
func TestTxpoolLeastFraming(t *testing.T) {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	chainID := big.NewInt(1)
	txs := poolKinds(t, key, chainID)
	var list []*types.Transaction
	for _, tx := range txs {
		list = append(list, tx)
	}
	zero := txEncoding{encode: func(dst []byte, _ *types.Transaction) ([]byte, error) { return append(dst, "0"...), nil }, least: func(*types.Transaction) int { return 1 }}
	for _, tt := range []struct {
		name   string
		lists  map[common.Address][]*types.Transaction
		listed string
	}{
		{"none", nil, `{}`},
		{"one sender, one transaction", map[common.Address][]*types.Transaction{{1}: list[:1]}, `{"0x0100000000000000000000000000000000000000":{"0":0}}`},
		{"two senders", map[common.Address][]*types.Transaction{{1}: list[:2], {2}: list[2:3]},
			`{"0x0100000000000000000000000000000000000000":{"0":0,"0":0},"0x0200000000000000000000000000000000000000":{"0":0}}`},
	} {
		if least := leastBySender(zero, tt.lists); least != len(tt.listed) {
			t.Errorf("%s: least %d, the smallest such listing takes %d", tt.name, least, len(tt.listed))
		}
	}
	if least := listingFraming + leastByNonce(zero, nil) + leastByNonce(zero, nil); least != len(`{"pending":{},"queued":{}}`) {
		t.Errorf("an empty listing: least %d", least)
	}
}
