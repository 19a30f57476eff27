// Package workload is what the load generator (loadtest) and the anchor
// comparison (compare) agree on: the 1,024 addresses whose balances are read,
// the ERC-20 they hold balances in, the standard development keys that fund
// everything, and the keys of the transaction flood's senders.
//
// The addresses are the ones loadtest/wrk/rpc.lua uses (i*7919 for i = 1..1024),
// so wrk and the Go load generator read the same state.
package workload

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// NumAddresses is how many distinct addresses the read workloads cycle over.
const NumAddresses = 1024

// Token is where compare's genesis predeploys the ERC-20 (compare/token) and
// the default target of loadtest's eth_call workloads.
var Token = common.HexToAddress("0x2000000000000000000000000000000000000020")

// BalanceOfSelector is ERC-20 balanceOf(address); TransferSelector is transfer(address,uint256).
const (
	BalanceOfSelector = "70a08231"
	TransferSelector  = "a9059cbb"
)

// EthBalance is the ether each of the 1,024 addresses holds in compare's genesis.
var EthBalance = new(big.Int).Mul(big.NewInt(params.Ether), big.NewInt(1))

// DevBalance is the ether each standard development account holds.
var DevBalance = new(big.Int).Mul(big.NewInt(params.Ether), big.NewInt(10_000))

var addresses = func() []common.Address {
	out := make([]common.Address, NumAddresses)
	for i := range out {
		out[i] = common.BigToAddress(big.NewInt(int64(i+1) * 7919))
	}
	return out
}()

// Address returns the i-th read address, i in [0, NumAddresses).
func Address(i int) common.Address { return addresses[i] }

// Addresses returns all read addresses (a copy).
func Addresses() []common.Address { return append([]common.Address(nil), addresses...) }

// TokenBalance is address i's ERC-20 balance in compare's genesis: (i+1) tokens
// of 18 decimals, different for every address so a wrong answer shows.
func TokenBalance(i int) *big.Int {
	return new(big.Int).Mul(big.NewInt(int64(i+1)), big.NewInt(params.Ether))
}

// TokenSupply is the sum of every TokenBalance.
func TokenSupply() *big.Int {
	sum := new(big.Int)
	for i := range NumAddresses {
		sum.Add(sum, TokenBalance(i))
	}
	return sum
}

// BalanceSlot is the storage key of holder's balance in a Solidity
// mapping(address => uint256) at slot 0: keccak256(pad32(holder) ++ pad32(0)).
func BalanceSlot(holder common.Address) common.Hash {
	var buf [64]byte
	copy(buf[12:32], holder[:])
	return crypto.Keccak256Hash(buf[:])
}

// DevKeys are the private keys of the ten standard development accounts
// (mnemonic "test test test test test test test test test test test junk",
// funded by anvil, hardhat and stocknode --dev).
var DevKeys = []string{
	"ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
	"59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
	"5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
	"7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
	"47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
	"8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
	"92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
	"4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
	"dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
	"2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
}

// FloodFunders is how many development accounts (the first ones) fund the
// flood's senders; the others keep their genesis balance, which compare checks.
const FloodFunders = 8

// DevKey returns the i-th development key.
func DevKey(i int) *ecdsa.PrivateKey {
	key, err := crypto.HexToECDSA(DevKeys[i])
	if err != nil {
		panic(err)
	}
	return key
}

// DevAddress returns the i-th development account.
func DevAddress(i int) common.Address { return crypto.PubkeyToAddress(DevKey(i).PublicKey) }

// FloodKey returns the flood's i-th sender key: keccak256("loadtest" + decimal i).
func FloodKey(i int) *ecdsa.PrivateKey {
	for salt := 0; ; salt++ {
		seed := "loadtest" + strconv.Itoa(i)
		if salt > 0 { // a hash outside the curve order: astronomically unlikely
			seed += fmt.Sprintf("/%d", salt)
		}
		if key, err := crypto.ToECDSA(crypto.Keccak256([]byte(seed))); err == nil {
			return key
		}
	}
}
