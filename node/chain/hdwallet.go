package chain

import (
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/crypto"
)

// DevMnemonic is the mnemonic of the standard development accounts that anvil,
// hardhat and Foundry fund by default; funding the same accounts here means every
// tool's defaults work against this chain.
const DevMnemonic = "test test test test test test test test test test test junk"

// DevAccountCount is how many development accounts the built-in genesis funds.
const DevAccountCount = 10

// DevKeys derives the first n keys of DevMnemonic on the Ethereum path
// m/44'/60'/0'/0/i (BIP-39 seed, BIP-32 derivation).
func DevKeys(n int) ([]*ecdsa.PrivateKey, error) {
	seed, err := pbkdf2.Key(sha512.New, DevMnemonic, []byte("mnemonic"), 2048, 64)
	if err != nil {
		return nil, fmt.Errorf("bip39 seed: %w", err)
	}
	mac := hmac.New(sha512.New, []byte("Bitcoin seed"))
	mac.Write(seed)
	master := mac.Sum(nil)
	key, chainCode := new(big.Int).SetBytes(master[:32]), master[32:]

	const hardened = 1 << 31
	for _, index := range []uint32{44 + hardened, 60 + hardened, 0 + hardened, 0} {
		key, chainCode, err = deriveChild(key, chainCode, index)
		if err != nil {
			return nil, err
		}
	}
	keys := make([]*ecdsa.PrivateKey, n)
	for i := range keys {
		child, _, err := deriveChild(key, chainCode, uint32(i))
		if err != nil {
			return nil, err
		}
		if keys[i], err = crypto.ToECDSA(child.FillBytes(make([]byte, 32))); err != nil {
			return nil, fmt.Errorf("dev key %d: %w", i, err)
		}
	}
	return keys, nil
}

// deriveChild is BIP-32's CKDpriv.
func deriveChild(parent *big.Int, chainCode []byte, index uint32) (*big.Int, []byte, error) {
	data := make([]byte, 0, 37)
	if index >= 1<<31 {
		data = append(data, 0)
		data = append(data, parent.FillBytes(make([]byte, 32))...)
	} else {
		priv, err := crypto.ToECDSA(parent.FillBytes(make([]byte, 32)))
		if err != nil {
			return nil, nil, fmt.Errorf("bip32 parent key: %w", err)
		}
		data = append(data, crypto.CompressPubkey(&priv.PublicKey)...)
	}
	data = binary.BigEndian.AppendUint32(data, index)

	mac := hmac.New(sha512.New, chainCode)
	mac.Write(data)
	sum := mac.Sum(nil)

	n := crypto.S256().Params().N
	il := new(big.Int).SetBytes(sum[:32])
	if il.Cmp(n) >= 0 {
		return nil, nil, fmt.Errorf("bip32 index %d: invalid child key, use the next index", index)
	}
	child := il.Add(il, parent)
	child.Mod(child, n)
	if child.Sign() == 0 {
		return nil, nil, fmt.Errorf("bip32 index %d: zero child key", index)
	}
	return child, sum[32:], nil
}
