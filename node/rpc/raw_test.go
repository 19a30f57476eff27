package rpc

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// The raw getters answer the consensus encodings: a header that hashes to
// the block's hash, a block that decodes to it, receipts whose trie root is
// the header's receipts root, a transaction that hashes to its hash.
func TestRawGetters(t *testing.T) {
	n := newTestNode(t, 1500*time.Millisecond, 20*time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000c0")
	sealed := n.waitSealed(n.send(3, nil, new(big.Int), 200_000, deployCode(logRuntime)))
	number, _ := hexutil.DecodeUint64(sealed["blockNumber"].(string))
	bc := n.chain.BlockChain()
	block := bc.GetBlockByNumber(number)

	tags := []any{hexutil.Uint64(number), sealed["blockHash"], map[string]any{"blockHash": sealed["blockHash"]}}
	for _, tag := range tags {
		t.Run(fmt.Sprint(tag), func(t *testing.T) {
			var raw hexutil.Bytes
			n.result(&raw, "debug_getRawHeader", tag)
			var h types.Header
			if err := rlp.DecodeBytes(raw, &h); err != nil || h.Hash() != block.Hash() {
				t.Errorf("raw header decodes to %s (%v), want %s", h.Hash(), err, block.Hash())
			}
			n.result(&raw, "debug_getRawBlock", tag)
			var b types.Block
			if err := rlp.DecodeBytes(raw, &b); err != nil || b.Hash() != block.Hash() || len(b.Transactions()) != 1 {
				t.Errorf("raw block decodes to %s with %d transactions (%v)", b.Hash(), len(b.Transactions()), err)
			}
			var receipts []hexutil.Bytes
			n.result(&receipts, "debug_getRawReceipts", tag)
			if root := receiptsRoot(t, receipts); root != block.ReceiptHash() {
				t.Errorf("raw receipts' root %s, header's %s", root, block.ReceiptHash())
			}
		})
	}
	var raw hexutil.Bytes
	n.result(&raw, "debug_getRawTransaction", block.Transactions()[0].Hash())
	if want, _ := block.Transactions()[0].MarshalBinary(); raw.String() != hexutil.Encode(want) {
		t.Errorf("raw transaction %s, want %x", raw, want)
	}

	// A pre-confirmed transaction: its receipt is final, the block is not.
	hash := n.send(4, &to, big.NewInt(1), 21000, nil)
	waitFor(t, "pre-confirmation", func() bool {
		var receipts []hexutil.Bytes
		n.result(&receipts, "debug_getRawReceipts", "pending")
		return len(receipts) == 1
	})
	var receipts []hexutil.Bytes
	n.result(&receipts, "debug_getRawReceipts", "pending")
	for _, method := range []string{"debug_getRawHeader", "debug_getRawBlock"} {
		if resp := n.call(method, "pending"); resp.Error == nil || !strings.Contains(resp.Error.Message, "sealed") {
			t.Errorf("%s(pending) = %s %+v", method, resp.Result, resp.Error)
		}
	}
	n.result(&raw, "debug_getRawTransaction", hash)
	if tx := new(types.Transaction); tx.UnmarshalBinary(raw) != nil || tx.Hash() != hash {
		t.Errorf("raw pre-confirmed transaction %s", raw)
	}
	sealedReceipt := n.waitSealed(hash)
	num, _ := hexutil.DecodeUint64(sealedReceipt["blockNumber"].(string))
	final := bc.GetReceiptsByHash(bc.GetCanonicalHash(num))
	if enc, _ := final[0].MarshalBinary(); len(final) != 1 || receipts[0].String() != hexutil.Encode(enc) {
		t.Errorf("pre-confirmed raw receipt %s differs from the sealed one %x", receipts[0], enc)
	}
}

func receiptsRoot(t *testing.T, raw []hexutil.Bytes) common.Hash {
	t.Helper()
	receipts := make(types.Receipts, len(raw))
	for i, enc := range raw {
		receipts[i] = new(types.Receipt)
		if err := receipts[i].UnmarshalBinary(enc); err != nil {
			t.Fatalf("receipt %d: %v", i, err)
		}
	}
	return types.DeriveSha(receipts, trie.NewStackTrie(nil))
}

func TestRawGettersNotFoundAndBadInput(t *testing.T) {
	n := newTestNode(t, 0, 0)
	unknown := "0x" + strings.Repeat("12", 32)
	for _, method := range []string{"debug_getRawHeader", "debug_getRawBlock", "debug_getRawReceipts"} {
		t.Run(method, func(t *testing.T) {
			if resp := n.call(method, "0xffff"); resp.Error != nil || string(resp.Result) != "null" {
				t.Errorf("future block: %s %+v", resp.Result, resp.Error)
			}
			if resp := n.call(method, unknown); resp.Error == nil || resp.Error.Message != "header for hash not found" {
				t.Errorf("unknown hash: %s %+v", resp.Result, resp.Error)
			}
			var raw any
			n.result(&raw, method, "pending") // no block production: pending is latest
			n.result(&raw, method, "earliest")
			for _, params := range []string{`[]`, `["2"]`, `["0xzz"]`, `["latest",1]`} {
				out := n.raw(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`)
				if !strings.Contains(out, `"code":-32602`) {
					t.Errorf("%s%s = %s, want -32602", method, params, out)
				}
			}
		})
	}
	if resp := n.call("debug_getRawTransaction", unknown); resp.Error != nil || string(resp.Result) != "null" {
		t.Errorf("unknown transaction: %s %+v", resp.Result, resp.Error)
	}
	for _, params := range []string{`[]`, `["0x1234"]`, `["1000000000000000000000000000000000000000000000000000000000000001"]`} {
		out := n.raw(`{"jsonrpc":"2.0","id":1,"method":"debug_getRawTransaction","params":` + params + `}`)
		if !strings.Contains(out, `"code":-32602`) {
			t.Errorf("debug_getRawTransaction%s = %s, want -32602", params, out)
		}
	}
}
