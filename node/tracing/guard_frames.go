package tracing

import (
	"errors"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// The tracers that record call frames (callTracer; flatCallTracer, a
// callTracer flattened; erc7562Tracer) keep every frame with copies of
// its input and output until the end. The least JSON of each is counted
// as the frame is entered and left. Their logs ("withLog") are not: a
// frame's failure clears its logs and its descendants', and the
// transaction's own frame can fail up to its last step, so no log is
// sure to stay before the end; what they hold meanwhile is bounded by gas
// (375 a log, 8 a byte of data: under 20 MB of JSON in 50M gas).

const (
	// callFrameLeast is the least JSON of a callTracer frame besides the
	// hex of its input and output: a failed creation's, which has no "to"
	// ({"from":"0x…","gas":"0x0","gasUsed":"0x0","input":"0x","type":"CREATE"}
	// and an error). A flat frame holds more.
	callFrameLeast = 110
	// erc7562FrameLeast is the same for erc7562Tracer, whose frames also
	// hold its empty maps and lists (accessedSlots, usedOpcodes, ...).
	erc7562FrameLeast = 265
)

// frames meters the frames a call-recording tracer keeps.
type frames struct {
	least   int
	onlyTop bool // callTracer's onlyTopCall: the top frame only
	// flat is flatCallTracer: it keeps a failed frame's output only for a
	// plain revert, and drops calls to precompiles unless
	// dropsPrecompiles is false.
	flat             bool
	dropsPrecompiles bool
	chainConfig      *params.ChainConfig
	precompiles      []common.Address // the fork's, at the transaction's start

	open []bool // the frames that have not returned: whether they are kept
}

func (f *frames) meter() *meter {
	m := &meter{enter: f.enter, exit: f.exit}
	if f.dropsPrecompiles {
		m.txStart = f.txStart
	}
	return m
}

// txStart notes the precompiles as flatCallTracer does: those of the
// fork, whatever the EVM was given.
func (f *frames) txStart(env *tracing.VMContext, _ *types.Transaction, _ common.Address) int {
	rules := f.chainConfig.Rules(env.BlockNumber, env.Random != nil, env.Time)
	f.precompiles = vm.ActivePrecompiles(rules)
	return 0
}

func (f *frames) enter(depth int, typ byte, to common.Address, input []byte) int {
	if f.onlyTop && depth > 0 {
		return 0
	}
	kept := !f.drops(depth, typ, to)
	f.open = append(f.open, kept)
	if !kept {
		return 0
	}
	return f.least + 2*len(input)
}

func (f *frames) exit(depth int, output []byte, err error, reverted bool) int {
	if (f.onlyTop && depth > 0) || len(f.open) == 0 {
		return 0
	}
	kept := f.open[len(f.open)-1]
	f.open = f.open[:len(f.open)-1]
	if !kept || !keepsOutput(err, reverted, f.flat) {
		return 0
	}
	return 2 * len(output)
}

// keepsOutput reports whether a frame that returned with err keeps its
// output (callTracer's processOutput; a flat frame keeps its result on a
// plain revert only).
func keepsOutput(err error, reverted, flat bool) bool {
	switch {
	case err == nil || !reverted:
		return true
	case !errors.Is(err, vm.ErrExecutionReverted):
		return false
	default:
		return !flat || err.Error() == vm.ErrExecutionReverted.Error()
	}
}

// drops reports whether flatCallTracer drops the frame when it returns: a
// call to a precompile. It is counted neither then nor before.
func (f *frames) drops(depth int, typ byte, to common.Address) bool {
	if !f.dropsPrecompiles || depth == 0 {
		return false
	}
	op := vm.OpCode(typ)
	return (op == vm.CALL || op == vm.STATICCALL) && slices.Contains(f.precompiles, to)
}
