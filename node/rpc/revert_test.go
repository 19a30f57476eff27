package rpc

import (
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/contracts"
)

// revertingWith is runtime code that reverts with data: it copies the data
// from the end of its own code and reverts with it.
func revertingWith(data []byte) []byte {
	n := len(data)
	code := []byte{
		0x61, byte(n >> 8), byte(n), // PUSH2 len
		0x61, 0x00, 0x0f, // PUSH2 15, where the data starts
		0x60, 0x00, // PUSH1 0
		0x39,                        // CODECOPY
		0x61, byte(n >> 8), byte(n), // PUSH2 len
		0x60, 0x00, // PUSH1 0
		0xfd, // REVERT
	}
	return append(code, data...)
}

// A reverted eth_call and eth_estimateGas answer -32000 with the revert
// bytes as data, and the message exactly "execution reverted" (viem's
// condition for decoding the data); with RevertReasons the message says
// why: a reason string, a panic's meaning, a shipped contract's custom
// error with its arguments, and nothing more for data it cannot name.
func TestRevertMessages(t *testing.T) {
	asset := contracts.MustLoad(contracts.B20Asset).ABI
	who := common.HexToAddress("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
	e := asset.Errors["AccessControlUnauthorizedAccount"]
	args, err := e.Inputs.Pack(who, contracts.MintRole)
	if err != nil {
		t.Fatal(err)
	}
	unauthorized := append(e.ID[:4:4], args...)
	word := func(n int64) []byte { return common.BigToHash(big.NewInt(n)).Bytes() }
	panicked := append(crypto.Keccak256([]byte("Panic(uint256)"))[:4], word(0x11)...)
	unknown := append(crypto.Keccak256([]byte("Unauthorized(address,uint256)"))[:4], append(common.LeftPadBytes(who[:], 32), word(42)...)...)

	tests := []struct {
		name string
		data []byte
		want string // the message with RevertReasons
	}{
		{"Error(string)", revertData(), "execution reverted: nope"},
		{"Panic(0x11)", panicked, "execution reverted: panic: arithmetic underflow or overflow (0x11)"},
		{"B20 custom error", unauthorized,
			"execution reverted: AccessControlUnauthorizedAccount(0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed, " + contracts.MintRole.Hex() + ")"},
		{"unknown selector", unknown, "execution reverted"},
		{"garbled Error(string)", revertData()[:40], "execution reverted"},
		{"three bytes", []byte{1, 2, 3}, "execution reverted"},
	}
	plain := newTestNode(t, time.Hour, time.Hour)
	reasons := newTestNode(t, time.Hour, time.Hour, func(tc *testConfig) { tc.rpc.RevertReasons = true })
	target := common.HexToAddress("0x00000000000000000000000000000000000000cd")
	for _, tt := range tests {
		for _, method := range []string{"eth_call", "eth_estimateGas"} {
			t.Run(tt.name+"/"+method, func(t *testing.T) {
				override := map[string]any{target.Hex(): map[string]any{"code": hexutil.Encode(revertingWith(tt.data))}}
				for _, c := range []struct {
					n    *testNode
					want string
				}{{plain, "execution reverted"}, {reasons, tt.want}} {
					resp := c.n.on(t).call(method, map[string]any{"to": target}, "latest", override)
					if resp.Error == nil || resp.Error.Code != -32000 || resp.Error.Message != c.want {
						t.Fatalf("RevertReasons %v: %+v, want -32000 %q", c.n.srv.cfg.RevertReasons, resp.Error, c.want)
					}
					var data hexutil.Bytes
					if err := json.Unmarshal(resp.Error.Data, &data); err != nil || string(data) != string(tt.data) {
						t.Fatalf("RevertReasons %v: data %s, want %x (%v)", c.n.srv.cfg.RevertReasons, resp.Error.Data, tt.data, err)
					}
				}
			})
		}
	}

	// The reason is the revert data's, as go-ethereum's abi package reads it.
	if reason, err := abi.UnpackRevert(revertData()); err != nil || reason != "nope" {
		t.Fatalf("revertData() = %q, %v", reason, err)
	}
}
