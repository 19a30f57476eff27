package rpc

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// gasRuntime returns gasleft().
var gasRuntime = hexutil.MustDecode("0x5a60005260206000f3")

// gasContract is where withGasContract puts gasRuntime.
var gasContract = common.HexToAddress("0x00000000000000000000000000000000000000a5")

// withGasContract puts gasRuntime in the genesis state at gasContract.
func withGasContract(c *testConfig) {
	c.chain.Genesis.Alloc[gasContract] = types.Account{Code: gasRuntime, Balance: new(big.Int)}
}

// word decodes a call's 32-byte return data.
func word(t *testing.T, ret string) *big.Int {
	t.Helper()
	b, err := hexutil.Decode(ret)
	if err != nil || len(b) != 32 {
		t.Fatalf("return data %q is not one word (%v)", ret, err)
	}
	return new(big.Int).SetBytes(b)
}

// callHits is how many eth_calls the server answered from remembered results.
func (n *testNode) callHits() uint64 { return n.srv.callResultCount.hit.Load() }

// TestCallResultsAreExact checks that a remembered eth_call answer is never
// stale: the same call on a later block, or on the pending state after a
// pre-confirmation, runs again and sees the change.
func TestCallResultsAreExact(t *testing.T) {
	n := newTestNode(t, 100*time.Millisecond, 20*time.Millisecond)
	reader := common.HexToAddress(n.waitSealed(n.send(1, nil, new(big.Int), 200_000, deployCode(balanceRuntime)))["contractAddress"].(string))
	payee := common.HexToAddress("0x00000000000000000000000000000000000000b7")
	args := map[string]any{"to": reader, "data": hexutil.Encode(common.LeftPadBytes(payee[:], 32))}
	balance := func(tag string) *big.Int {
		var ret string
		n.result(&ret, "eth_call", args, tag)
		return word(t, ret)
	}
	for _, tag := range []string{"latest", "pending"} {
		// Two calls in a row share a state unless a block or a
		// pre-confirmation falls between them: a few pairs are enough.
		before := n.callHits()
		for range 10 {
			if a, b := balance(tag), balance(tag); a.Sign() != 0 || b.Sign() != 0 {
				t.Fatalf("%s: balance %v then %v, want 0", tag, a, b)
			}
			if n.callHits() > before {
				break
			}
		}
		if n.callHits() == before {
			t.Errorf("%s: the same call on the same state was never answered from memory", tag)
		}
	}
	hash := n.send(2, &payee, big.NewInt(12345), 21_000, nil)
	// Once the pending state holds the transfer, so does a call on it.
	waitFor(t, "the transfer in the pending state", func() bool {
		var bal string
		n.result(&bal, "eth_getBalance", payee, "pending")
		return bigOf(t, bal).Sign() != 0
	})
	if got := balance("pending"); got.Cmp(big.NewInt(12345)) != 0 {
		t.Errorf("pending balance after the pre-confirmation = %v, want 12345", got)
	}
	n.waitSealed(hash)
	if got := balance("latest"); got.Cmp(big.NewInt(12345)) != 0 {
		t.Errorf("latest balance after the seal = %v, want 12345", got)
	}
}

// TestCallResultsKeys checks what a remembered result is keyed by: an
// override, a different gas cap or a node that remembers nothing never
// gets another call's answer, and errors are not remembered.
func TestCallResultsKeys(t *testing.T) {
	// No block and no pre-confirmation after the first: one state throughout.
	n := newTestNode(t, time.Hour, time.Hour, withGasContract)
	gas := gasContract
	call := map[string]any{"to": gas}
	var first, again string
	n.result(&first, "eth_call", call, "latest")
	hits := n.callHits()
	n.result(&again, "eth_call", call, "latest")
	if again != first || n.callHits() != hits+1 {
		t.Fatalf("second identical call: %s (first %s), hits %d -> %d", again, first, hits, n.callHits())
	}

	t.Run("block override", func(t *testing.T) {
		var ret string
		n.on(t).result(&ret, "eth_call", call, "latest", nil, map[string]any{"gasLimit": "0x1000000"})
		if n.callHits() != hits+1 {
			t.Error("a call with a block override was answered from memory")
		}
	})
	t.Run("state override", func(t *testing.T) {
		var ret string
		n.on(t).result(&ret, "eth_call", call, "latest", map[string]any{gas.Hex(): map[string]any{"code": hexutil.Encode(answerRuntime)}})
		if ret != "0x"+strings.Repeat("0", 62)+"2a" || n.callHits() != hits+1 {
			t.Errorf("overridden code answered %s (hits %d -> %d)", ret, hits+1, n.callHits())
		}
	})
	t.Run("gas cap", func(t *testing.T) {
		cfg := n.srv.cfg
		cfg.GasCap = 1_000_000
		other := New(cfg, n.srv.b, nil)
		out, _ := other.HandleFrom(nil, n.view, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"`+gas.Hex()+`"},"latest"]}`), nil, nil)
		var resp rpcResponse
		if err := json.Unmarshal(out, &resp); err != nil || resp.Error != nil {
			t.Fatalf("%s: %v", out, err)
		}
		var ret string
		json.Unmarshal(resp.Result, &ret)
		if ret == first || word(t, ret).Uint64() >= 1_000_000 {
			t.Errorf("gasleft() under a 1M gas cap = %s; under the default cap %s", ret, first)
		}
	})
	t.Run("errors", func(t *testing.T) {
		n := n.on(t)
		before := n.callHits()
		for range 2 {
			if resp := n.call("eth_call", map[string]any{"to": gas, "gas": "0x1"}, "latest"); resp.Error == nil {
				t.Fatal("a call with 1 gas succeeded")
			}
		}
		if n.callHits() != before {
			t.Error("a failed call was answered from memory")
		}
	})
	t.Run("off", func(t *testing.T) {
		off := newTestNode(t, time.Hour, time.Hour, withGasContract, func(c *testConfig) { c.rpc.CallResultsBytes = 0 })
		for range 3 {
			var ret string
			off.result(&ret, "eth_call", map[string]any{"to": gas}, "latest")
		}
		if off.callHits() != 0 {
			t.Errorf("--rpc.call.results 0 answered %d calls from memory", off.callHits())
		}
	})
}
