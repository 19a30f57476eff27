package simulate

// Adapted from go-ethereum v1.17.10 internal/ethapi/override/override.go
// (Copyright 2024 The go-ethereum Authors, GNU LGPL v3 or later), with the
// spec's codes for precompile moves that reference themselves (-38022) or
// share a destination (-38023), which geth does not check.

import (
	"maps"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// apply writes the overrides into st and moves precompiles within
// precompiles (the block's set, changed in place). An overridden precompile
// address stops being a precompile for the block: its override (code,
// balance) is what calls find there. A moved precompile keeps working at
// its new address. Accounts are applied in address order, so that errors
// and effects are deterministic.
func (o StateOverride) apply(st *state.StateDB, precompiles vm.PrecompiledContracts) error {
	if len(o) == 0 {
		return nil
	}
	addrs := slices.SortedFunc(maps.Keys(o), common.Address.Cmp)
	if err := o.checkMoves(addrs, precompiles); err != nil {
		return err
	}
	moved := make(map[common.Address]vm.PrecompiledContract)
	for _, addr := range addrs {
		account := o[addr]
		if account.MoveTo != nil {
			moved[*account.MoveTo] = precompiles[addr]
		}
		delete(precompiles, addr)
		if account.Nonce != nil {
			st.SetNonce(addr, uint64(*account.Nonce), tracing.NonceChangeUnspecified)
		}
		if account.Code != nil {
			st.SetCode(addr, *account.Code, tracing.CodeChangeUnspecified)
		}
		if account.Balance != nil {
			balance, _ := uint256.FromBig(account.Balance.ToInt()) // decoding refused > 256 bits
			st.SetBalance(addr, balance, tracing.BalanceChangeUnspecified)
		}
		if account.State != nil {
			st.SetStorage(addr, account.State)
		}
		for slot, value := range account.StateDiff {
			st.SetState(addr, slot, value)
		}
	}
	maps.Copy(precompiles, moved)
	// As if written by a transaction before the block's calls: the
	// overrides become the values SSTORE prices are computed against.
	st.Finalise(params.Rules{})
	return nil
}

// checkMoves refuses what the spec and geth refuse before anything changes.
func (o StateOverride) checkMoves(addrs []common.Address, precompiles vm.PrecompiledContracts) error {
	destinations := make(map[common.Address]common.Address)
	for _, addr := range addrs {
		account := o[addr]
		if account.State != nil && account.StateDiff != nil {
			return invalidParams("account %s has both 'state' and 'stateDiff'", addr.Hex())
		}
		if account.MoveTo == nil {
			continue
		}
		to := *account.MoveTo
		switch _, isPrecompile := precompiles[addr]; {
		case to == addr:
			return codeError(CodeMoveToItself, "account %s: movePrecompileToAddress references itself", addr.Hex())
		case !isPrecompile:
			return invalidParams("account %s is not a precompile", addr.Hex())
		}
		if other, ok := destinations[to]; ok {
			return codeError(CodeMoveToSameAddress, "accounts %s and %s are both moved to %s", other.Hex(), addr.Hex(), to.Hex())
		}
		destinations[to] = addr
		if _, overridden := o[to]; overridden {
			return invalidParams("account %s is already overridden", to.Hex())
		}
	}
	return nil
}
