package rpc

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
)

// eth_getStorageValues reads what eth_getStorageAt reads, for many slots of
// many accounts at once, at a block, latest and pending.
func TestGetStorageValues(t *testing.T) {
	n := newTestNode(t, 1500*time.Millisecond, 20*time.Millisecond)
	contract := common.HexToAddress(n.waitSealed(n.send(3, nil, new(big.Int), 200_000, deployCode(storeRuntime)))["contractAddress"].(string))
	sealed := n.waitSealed(n.send(3, &contract, new(big.Int), 100_000, storeCall(1, 0x11)))
	n.send(3, &contract, new(big.Int), 100_000, storeCall(2, 0x22))
	var v string
	waitFor(t, "the pre-confirmed write", func() bool {
		n.result(&v, "eth_getStorageAt", contract, "0x2", "pending")
		return v == common.BigToHash(big.NewInt(0x22)).Hex()
	})
	slots := []string{"0x1", "0x0000000000000000000000000000000000000000000000000000000000000002", "0x3"}
	beaconSlot := "0x" + strings.Repeat("0", 64)
	for _, tag := range []any{"pending", sealed["blockNumber"], map[string]any{"blockHash": sealed["blockHash"]}} {
		t.Run(fmt.Sprint(tag), func(t *testing.T) {
			var got map[common.Address][]hexutil.Bytes
			n.result(&got, "eth_getStorageValues", map[string][]string{contract.Hex(): slots, params.BeaconRootsAddress.Hex(): {beaconSlot}}, tag)
			if len(got) != 2 || len(got[contract]) != len(slots) || len(got[params.BeaconRootsAddress]) != 1 {
				t.Fatalf("answer %v", got)
			}
			for i, slot := range slots {
				var want hexutil.Bytes
				n.result(&want, "eth_getStorageAt", contract, slot, tag)
				if got[contract][i].String() != want.String() || len(got[contract][i]) != 32 {
					t.Errorf("slot %s: %s, eth_getStorageAt %s", slot, got[contract][i], want)
				}
			}
		})
	}
	// Addresses come back lowercase, as geth encodes them.
	out := n.raw(`{"jsonrpc":"2.0","id":1,"method":"eth_getStorageValues","params":[{"` + contract.Hex() + `":["0x1"]},"latest"]}`)
	if !strings.Contains(out, `"`+strings.ToLower(contract.Hex())+`":["0x`) {
		t.Errorf("answer %s", out)
	}
}

func TestGetStorageValuesBadInput(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) { tc.rpc.MaxStorageKeys = 3 })
	a, b := n.addr(0).Hex(), n.addr(1).Hex()
	for _, c := range []struct {
		name   string
		params string
		code   int
		msg    string
	}{
		{"too many slots in all", `[{"` + a + `":["0x1","0x2"],"` + b + `":["0x1","0x2"]}]`, -38026, "too many slots (max 3): --rpc.maxstoragekeys raises the cap"},
		{"empty request", `[{}]`, -32602, "empty request"},
		{"no slots", `[{"` + a + `":[]}]`, -32602, "empty request"},
		{"bad address", `[{"0x12":["0x1"]}]`, -32602, "invalid argument 0: hex string has length 2, want 40 for common.Address"},
		{"bad slot", `[{"` + a + `":["0xzz"]}]`, -32602, "invalid argument 0: slot of " + a},
		{"slot too long", `[{"` + a + `":["0x` + strings.Repeat("1", 65) + `"]}]`, -32602, "too long"},
		{"slots not an array", `[{"` + a + `":"0x1"}]`, -32602, "invalid argument 0"},
		{"not an object", `[["0x1"]]`, -32602, "cannot unmarshal array"},
		{"missing request", `[]`, -32602, "missing value for required argument 0"},
		{"unknown block", `[{"` + a + `":["0x1"]},"0xffff"]`, -32000, "header not found"},
		{"too many params", `[{"` + a + `":["0x1"]},"latest",1]`, -32602, "too many arguments"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := n.raw(`{"jsonrpc":"2.0","id":1,"method":"eth_getStorageValues","params":` + c.params + `}`)
			if !strings.Contains(out, fmt.Sprintf(`"code":%d`, c.code)) || !strings.Contains(out, c.msg) {
				t.Errorf("got %s, want code %d and %q", out, c.code, c.msg)
			}
		})
	}
}
