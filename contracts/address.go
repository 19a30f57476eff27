package contracts

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// B20Address is the address createB20(variant, salt, ...) called by sender
// creates, as the factory's getB20Address answers it: the CREATE2 address of
// an EIP-1167 clone of the variant's implementation, salted with
// keccak256(abi.encode(variant, sender, salt)). It lets Go code (the preview
// examples) address a token before the block that creates it.
func B20Address(variant uint8, sender common.Address, salt common.Hash) common.Address {
	impl := AssetImplementationAddress
	if variant == VariantStablecoin {
		impl = StablecoinImplementationAddress
	}
	clone := append(append(common.FromHex("3d602d80600a3d3981f3363d3d373d3d3d363d73"), impl.Bytes()...),
		common.FromHex("5af43d82803e903d91602b57fd5bf3")...)
	word := make([]byte, 96)
	word[31] = variant
	copy(word[44:64], sender.Bytes())
	copy(word[64:], salt.Bytes())
	return crypto.CreateAddress2(FactoryAddress, crypto.Keccak256Hash(word), crypto.Keccak256(clone))
}
