package simulate

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
)

// Pending is a pre-confirmed block: the simulation's first block takes its
// place (same number, same parent, same timestamp) after its transactions.
type Pending struct {
	Header       *types.Header
	Transactions types.Transactions
}

// replayPending re-executes the pre-confirmed transactions on the base
// state, in the pending block's context, as the sequencer executed them.
// The pending state could be read as it is, but then the state roots of
// the simulated blocks would miss what the pre-confirmed transactions
// changed: only executing them makes their changes part of the state the
// roots are computed from.
func (sim *simulator) replayPending(p *Pending) error {
	config := sim.cfg.Chain.Config()
	header := p.Header
	chain := &chainContext{Chain: sim.cfg.Chain, base: sim.base.Header}
	evm := vm.NewEVM(core.NewEVMBlockContext(header, chain, nil), sim.state, config, vm.Config{})
	defer evm.Release()
	sim.task.Watch(evm)
	defer sim.task.Unwatch()
	core.PreExecution(context.Background(), header.ParentBeaconRoot, sim.base.Header, config, evm, header.Number, header.Time)
	signer := types.MakeSigner(config, header.Number, header.Time)
	gp := core.NewGasPool(header.GasLimit)
	rules := evm.GetRules()
	for i, tx := range p.Transactions {
		msg, err := core.TransactionToMessage(tx, signer, header.BaseFee)
		if err != nil {
			return codeError(codeInternal, "pending transaction %d: %v", i, err)
		}
		sim.state.SetTxContext(tx.Hash(), i, uint32(i+1))
		_, err = core.ApplyMessage(evm, msg, gp)
		if evm.Cancelled() {
			return &AbortedError{Cause: causeOr(sim.task.Err())}
		}
		if err != nil {
			return codeError(codeInternal, "pending transaction %s: %v", tx.Hash().Hex(), err)
		}
		if config.IsByzantium(header.Number) {
			sim.state.Finalise(rules)
		} else {
			sim.state.IntermediateRoot(rules)
		}
	}
	return nil
}

// causeOr is why an EVM was cancelled: the task's reason, if it has one.
func causeOr(err error) error {
	if err == nil {
		return fmt.Errorf("execution aborted")
	}
	return err
}
