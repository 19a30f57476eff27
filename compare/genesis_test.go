package main

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/loadtest/workload"
)

// TestGenesisServesTheWorkload decodes the genesis as geth does and runs
// LoadToken's balanceOf and transfer on its state: the storage layout the
// genesis writes is the one the compiled contract reads.
func TestGenesisServesTheWorkload(t *testing.T) {
	data, err := genesisJSON()
	if err != nil {
		t.Fatal(err)
	}
	var g core.Genesis
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if g.Config.ChainID.Int64() != chainID || !g.Config.IsPrague(big.NewInt(0), 0) || g.Config.IsOsaka(big.NewInt(0), 0) {
		t.Fatalf("config: %v", g.Config)
	}
	if g.GasLimit != genesisGasLimit || len(g.Alloc) != len(workload.DevKeys)+workload.NumAddresses+1+4 {
		t.Fatalf("gas limit %d, %d accounts", g.GasLimit, len(g.Alloc))
	}
	if block := g.ToBlock(); block.BaseFee().Int64() != 1e9 || block.Root() == (common.Hash{}) {
		t.Fatalf("genesis block: base fee %v, root %x", block.BaseFee(), block.Root())
	}
	db := state.NewDatabaseForTesting()
	st, _ := state.New(common.Hash{}, db)
	for addr, acc := range g.Alloc {
		st.SetBalance(addr, uint256.MustFromBig(acc.Balance), tracing.BalanceChangeUnspecified)
		st.SetNonce(addr, acc.Nonce, tracing.NonceChangeUnspecified)
		st.SetCode(addr, acc.Code, tracing.CodeChangeUnspecified)
		for k, v := range acc.Storage {
			st.SetState(addr, k, v)
		}
	}
	if st.GetBalance(workload.DevAddress(9)).ToBig().Cmp(workload.DevBalance) != 0 {
		t.Fatal("dev balance")
	}
	cfg := &runtime.Config{ChainConfig: g.Config, State: st, GasLimit: 1_000_000, BlockNumber: big.NewInt(1), Time: 1}
	balanceOf := func(a common.Address) *big.Int {
		input := append(common.FromHex("0x"+workload.BalanceOfSelector), common.LeftPadBytes(a[:], 32)...)
		ret, _, err := runtime.Call(workload.Token, input, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(ret)
	}
	for _, i := range []int{0, 1, 777, workload.NumAddresses - 1} {
		if got := balanceOf(workload.Address(i)); got.Cmp(workload.TokenBalance(i)) != 0 {
			t.Fatalf("balanceOf(address %d) = %v, want %v", i, got, workload.TokenBalance(i))
		}
	}
	// transfer(addr1, 5) from addr0, as the mix's estimateGas does
	from, to := workload.Address(0), workload.Address(1)
	cfg.Origin = from
	input := append(common.FromHex("0x"+workload.TransferSelector), common.LeftPadBytes(to[:], 32)...)
	input = append(input, common.LeftPadBytes([]byte{5}, 32)...)
	if _, _, err := runtime.Call(workload.Token, input, cfg); err != nil {
		t.Fatalf("transfer: %v", err)
	}
	if got := balanceOf(to); got.Cmp(new(big.Int).Add(workload.TokenBalance(1), big.NewInt(5))) != 0 {
		t.Fatalf("after transfer: %v", got)
	}
}
