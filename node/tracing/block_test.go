package tracing

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// TestPreExecutionAsGeths: the block's system calls leave the state
// go-ethereum's core.PreExecution leaves, on blocks before and after
// Prague's EIP-2935, with and without a beacon root.
func TestPreExecutionAsGeths(t *testing.T) {
	parent := &types.Header{Number: big.NewInt(41), Time: 1000, GasLimit: 30_000_000, BaseFee: big.NewInt(params.InitialBaseFee)}
	root := common.Hash{0xbe}
	tests := []struct {
		name       string
		config     *params.ChainConfig
		beaconRoot *common.Hash
	}{
		{"prague, beacon root", params.MergedTestChainConfig, &root},
		{"prague, no beacon root", params.MergedTestChainConfig, nil},
		{"cancun, beacon root", cancunOnly(), &root},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := &types.Header{Number: big.NewInt(42), Time: 1012, GasLimit: 30_000_000, BaseFee: big.NewInt(params.InitialBaseFee),
				ParentHash: parent.Hash(), ParentBeaconRoot: tt.beaconRoot}
			theirs, ours := systemState(t), systemState(t)
			core.PreExecution(context.Background(), header.ParentBeaconRoot, parent, tt.config, systemEVM(header, theirs, tt.config), header.Number, header.Time)
			preExecution(header, tt.config, systemEVM(header, ours, tt.config))
			rules := tt.config.Rules(header.Number, true, header.Time)
			if got, want := ours.IntermediateRoot(rules), theirs.IntermediateRoot(rules); got != want {
				t.Fatalf("state root %s after the system calls, go-ethereum's %s", got, want)
			}
		})
	}
}

// cancunOnly is a chain configuration with Cancun and without Prague.
func cancunOnly() *params.ChainConfig {
	c := *params.MergedTestChainConfig
	c.PragueTime, c.OsakaTime, c.BPO1Time, c.BPO2Time, c.AmsterdamTime = nil, nil, nil, nil, nil
	return &c
}

// systemState is a state with the EIP-4788 and EIP-2935 contracts.
func systemState(t *testing.T) *state.StateDB {
	st := markedState(t, 0)
	st.SetCode(params.BeaconRootsAddress, params.BeaconRootsCode, 0)
	st.SetCode(params.HistoryStorageAddress, params.HistoryStorageCode, 0)
	return st
}

func systemEVM(header *types.Header, st *state.StateDB, config *params.ChainConfig) *vm.EVM {
	ctx := vm.BlockContext{CanTransfer: core.CanTransfer, Transfer: core.Transfer, GetHash: func(uint64) common.Hash { return common.Hash{} },
		BlockNumber: header.Number, Time: header.Time, GasLimit: header.GasLimit, BaseFee: header.BaseFee, Random: &common.Hash{}}
	return vm.NewEVM(ctx, st, config, vm.Config{})
}
