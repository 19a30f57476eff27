package workload

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/node/chain"
)

func TestDevKeysAreTheMnemonics(t *testing.T) {
	keys, err := chain.DevKeys(len(DevKeys))
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if DevAddress(i) != crypto.PubkeyToAddress(k.PublicKey) {
			t.Fatalf("dev key %d differs from the mnemonic's", i)
		}
	}
}

func TestAddressesMatchWrkScript(t *testing.T) {
	// loadtest/wrk/rpc.lua: string.format("%040x", i * 7919), i = 1..1024
	if Address(0) != common.HexToAddress("0x0000000000000000000000000000000000001eef") ||
		Address(NumAddresses-1) != common.BigToAddress(big.NewInt(1024*7919)) {
		t.Fatal("addresses differ from rpc.lua's")
	}
	seen := map[common.Address]bool{}
	for _, a := range Addresses() {
		seen[a] = true
	}
	if len(seen) != NumAddresses {
		t.Fatal("addresses repeat")
	}
}

func TestFloodKeysDeterministic(t *testing.T) {
	want := crypto.Keccak256([]byte("loadtest7"))
	if got := crypto.FromECDSA(FloodKey(7)); common.Bytes2Hex(got) != common.Bytes2Hex(want) {
		t.Fatalf("FloodKey(7) = %x, want keccak256(\"loadtest7\") = %x", got, want)
	}
	if crypto.PubkeyToAddress(FloodKey(1).PublicKey) == crypto.PubkeyToAddress(FloodKey(2).PublicKey) {
		t.Fatal("flood keys repeat")
	}
}

func TestBalanceSlot(t *testing.T) {
	// keccak256(pad32(holder) ++ pad32(0)), as solc lays out mapping slot 0
	holder := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	want := crypto.Keccak256Hash(common.LeftPadBytes(holder[:], 32), make([]byte, 32))
	if BalanceSlot(holder) != want {
		t.Fatal("balance slot")
	}
	sum := new(big.Int)
	for i := range NumAddresses {
		sum.Add(sum, TokenBalance(i))
	}
	if sum.Cmp(TokenSupply()) != 0 {
		t.Fatal("supply")
	}
}
