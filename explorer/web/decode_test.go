package web

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
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

// createB20's params show as the variant's struct, and the initial calls'
// supply cap and amounts in the new token's units.
func TestCreateB20Decoded(t *testing.T) {
	d, err := newDecoder()
	if err != nil {
		t.Fatal(err)
	}
	factory, asset := contracts.MustLoad(contracts.B20Factory).ABI, contracts.MustLoad(contracts.B20Asset).ABI
	admin := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	capCall, _ := asset.Pack("updateSupplyCap", big.NewInt(2_500_000_000_000)) // 2.5 million at 6 decimals
	mint, _ := asset.Pack("mint", admin, big.NewInt(1_500_000))
	show := func(c *Call) string {
		var b strings.Builder
		var walk func(c *Call, depth int)
		walk = func(c *Call, depth int) {
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat(" ", depth), c.Name)
			for _, a := range c.Args {
				fmt.Fprintf(&b, "%s %s=%s%v\n", strings.Repeat(" ", depth), a.Name, a.Text, a.Addrs)
				for _, in := range a.Calls {
					walk(in, depth+2)
				}
			}
		}
		walk(c, 0)
		return b.String()
	}
	for _, tt := range []struct {
		name    string
		variant uint8
		params  []byte
		want    []string
	}{
		{"asset", contracts.VariantAsset, contracts.AssetParams("Acme Robotics", "ACME", admin, 6),
			[]string{"B20AssetCreateParams", `name="Acme Robotics"`, `symbol="ACME"`, "decimals=6", "initialAdmin=[" + admin.Hex() + "]",
				"newSupplyCap=2,500,000 ACME", "amount=1.5 ACME", "variant=0 (Asset)"}},
		{"stablecoin", contracts.VariantStablecoin, contracts.StablecoinParams("Dollar", "USDX", admin, "USD"),
			[]string{"B20StablecoinCreateParams", `currency="USD"`, "newSupplyCap=2,500,000 USDX", "amount=1.5 USDX"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			input, err := factory.Pack("createB20", tt.variant, common.Hash{1}, tt.params, [][]byte{capCall, mint})
			if err != nil {
				t.Fatal(err)
			}
			c := d.call(&contracts.FactoryAddress, nil, input)
			if c == nil {
				t.Fatal("not decoded")
			}
			got := show(c)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			if strings.Contains(got, "params=0x") {
				t.Errorf("params left raw:\n%s", got)
			}
		})
	}
	// Params that do not decode stay raw.
	input, _ := factory.Pack("createB20", uint8(0), common.Hash{1}, []byte{1, 2, 3}, [][]byte{})
	if got := show(d.call(&contracts.FactoryAddress, nil, input)); !strings.Contains(got, "params=0x010203") {
		t.Errorf("undecodable params:\n%s", got)
	}
}
