package web

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
)

// viewGas bounds one view call: a token's views cost a few thousand gas,
// but the code at an address is anybody's.
const viewGas = 1_000_000

// viewer runs read-only calls on the head state of one snapshot, for one
// request.
type viewer struct {
	evm *vm.EVM
	abi *abi.ABI
}

// newViewer prepares view calls of tokenABI's methods on snap's head.
func newViewer(c *chain.Chain, snap *pending.Snapshot, tokenABI *abi.ABI) (*viewer, error) {
	st, err := snap.LatestState()
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", snap.Head.NumberU64(), err)
	}
	ctx := core.NewEVMBlockContext(snap.HeadHeader, c.BlockChain(), nil)
	return &viewer{evm: vm.NewEVM(ctx, st, c.Config(), vm.Config{NoBaseFee: true}), abi: tokenABI}, nil
}

// call runs method on addr and returns its single result.
func (v *viewer) call(addr common.Address, method string, args ...any) (any, error) {
	input, err := v.abi.Pack(method, args...)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", method, err)
	}
	ret, _, err := v.evm.StaticCall(common.Address{}, addr, input, vm.NewGasBudget(viewGas, 0))
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", method, addr.Hex(), err)
	}
	out, err := v.abi.Unpack(method, ret)
	if err != nil || len(out) != 1 {
		return nil, fmt.Errorf("%s on %s: unreadable answer", method, addr.Hex())
	}
	return out[0], nil
}

// balanceOf reads a token balance; nil when the call fails.
func (v *viewer) balanceOf(token, holder common.Address) *big.Int {
	out, err := v.call(token, "balanceOf", holder)
	if err != nil {
		return nil
	}
	b, _ := out.(*big.Int)
	return b
}

// policyID reads the policy a token's slot scope holds.
func (v *viewer) policyID(token common.Address, scope common.Hash) (uint64, bool) {
	out, err := v.call(token, "policyId", scope)
	if err != nil {
		return 0, false
	}
	id, ok := out.(uint64)
	return id, ok
}

// supplyCap reads a token's supply cap; nil when the call fails.
func (v *viewer) supplyCap(token common.Address) *big.Int {
	out, err := v.call(token, "supplyCap")
	if err != nil {
		return nil
	}
	b, _ := out.(*big.Int)
	return b
}
