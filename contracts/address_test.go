package contracts

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestB20AddressMatchesTheFactory(t *testing.T) {
	c := newTestChain(t)
	factoryABI := MustLoad(B20Factory)
	for _, tt := range []struct {
		variant uint8
		sender  common.Address
		salt    common.Hash
	}{
		{VariantAsset, common.HexToAddress("0x01"), common.Hash{}},
		{VariantAsset, common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"), common.HexToHash("0xabc")},
		{VariantStablecoin, common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"), common.HexToHash("0xff00")},
	} {
		want := c.read(FactoryAddress, factoryABI, "getB20Address", tt.variant, tt.sender, tt.salt)[0].(common.Address)
		if got := B20Address(tt.variant, tt.sender, tt.salt); got != want {
			t.Errorf("B20Address(%d, %s, %s) = %s, factory says %s", tt.variant, tt.sender, tt.salt, got, want)
		}
	}
}
