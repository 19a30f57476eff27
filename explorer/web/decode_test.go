package web

import (
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/contracts"
)

// The Method column names calls to every contract of the protocol and
// plain ERC-20 calls, from the selector alone.
func TestMethodName(t *testing.T) {
	d, err := newDecoder()
	if err != nil {
		t.Fatal(err)
	}
	selector := func(sig string) []byte { return crypto.Keccak256([]byte(sig))[:4] }
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"factory createB20", contracts.MustLoad(contracts.B20Factory).ABI.Methods["createB20"].ID, "createB20"},
		{"PolicyRegistry createPolicy", contracts.MustLoad(contracts.PolicyRegistry).ABI.Methods["createPolicy"].ID, "createPolicy"},
		{"PolicyRegistry updateAllowlist", contracts.MustLoad(contracts.PolicyRegistry).ABI.Methods["updateAllowlist"].ID, "updateAllowlist"},
		{"ActivationRegistry activate", contracts.MustLoad(contracts.ActivationRegistry).ABI.Methods["activate"].ID, "activate"},
		{"stock token mint", contracts.MustLoad(contracts.B20Asset).ABI.Methods["mint"].ID, "mint"},
		{"stock token pause", contracts.MustLoad(contracts.B20Asset).ABI.Methods["pause"].ID, "pause"},
		{"ERC-20 transfer", selector("transfer(address,uint256)"), "transfer"},
		{"ERC-20 approve", selector("approve(address,uint256)"), "approve"},
		{"ERC-20 transferFrom", selector("transferFrom(address,address,uint256)"), "transferFrom"},
		// Named by its selector even when its arguments do not unpack.
		{"transfer with short arguments", append(selector("transfer(address,uint256)"), 1, 2, 3), "transfer"},
		{"unknown selector", []byte{0xde, 0xad, 0xbe, 0xef}, ""},
		{"shorter than a selector", []byte{0xa9, 0x05, 0x9c}, ""},
		{"no input", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := d.methodName(tt.input); got != tt.want {
				t.Errorf("methodName(%x) = %q, want %q", tt.input, got, tt.want)
			}
		})
	}
}

// methodName looks the selector up across all the ABIs: that is the
// contract's own method only if no selector of one ABI names another
// method in another.
func TestSelectorsNameOneMethod(t *testing.T) {
	names := map[[4]byte]string{}
	for _, c := range []string{contracts.B20Asset, contracts.B20Stablecoin, contracts.B20Factory,
		contracts.PolicyRegistry, contracts.TokenSupplyManager, contracts.ActivationRegistry} {
		for _, m := range contracts.MustLoad(c).ABI.Methods {
			sel := [4]byte(m.ID)
			if other, ok := names[sel]; ok && other != m.Name {
				t.Errorf("%s.%s and %s share the selector %x", c, m.Name, other, sel)
			}
			names[sel] = m.Name
		}
	}
	// The decoder's own precedence (the called contract's ABI first)
	// agrees with the selector alone.
	d, err := newDecoder()
	if err != nil {
		t.Fatal(err)
	}
	for addr, a := range d.byAddress {
		for _, m := range a.abi.Methods {
			if got, _ := d.method(&addr, false, m.ID); got.method.Name != d.methodName(m.ID) {
				t.Errorf("%s: %s by address, %s by selector", a.name, got.method.Name, d.methodName(m.ID))
			}
		}
	}
}
