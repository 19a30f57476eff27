package tracing

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
)

// A tracer keeps what it records until the trace ends, and only then
// encodes it: a loop of cheap calls that each pass megabytes of memory
// (the memory is paid for once, a warm call costs 100 gas), or of
// KECCAK256s of a megabyte each (the tracers copy every preimage), would
// make it hold gigabytes within one call's gas, long before its result
// could be measured. The guard counts, as the EVM reports each event, a
// lower bound of the bytes the tracer's result will take for what it has
// just recorded, and stops the trace as soon as that bound passes the
// room the response has left. A meter per tracer (guard_*.go) follows the
// tracer's own rules: what it dedupes is counted once, and what it may
// still drop before the end is not counted at all, so that a trace whose
// result fits is never refused. What is left uncounted is small per unit
// of gas.

// guard is one trace's count against the response's room. The EVM calls
// its hooks on one goroutine.
type guard struct {
	room int
	used int
	over bool
	stop func() // ends the trace: too large
}

// add counts n more bytes and reports whether the tracer may record the
// event. Once the room is passed nothing more is recorded: the result is
// an error, and a tracer without a Stop would otherwise go on copying
// until the EVM notices it was cancelled (at its next jump).
func (g *guard) add(n int) bool {
	if g.over {
		return false
	}
	g.used += n
	if g.used > g.room {
		g.over = true
		g.stop()
		return false
	}
	return true
}

// meter is what one tracer records, event by event: each callback
// returns the bytes the event adds to a lower bound of the tracer's
// encoded result. A nil callback counts nothing; a callback is installed
// only where the tracer has the hook, so that metering never makes the
// EVM report more.
type meter struct {
	txStart func(env *tracing.VMContext, tx *types.Transaction, from common.Address) int
	enter   func(depth int, typ byte, to common.Address, input []byte) int
	exit    func(depth int, output []byte, err error, reverted bool) int
	opcode  func(op byte, scope tracing.OpContext, rData []byte, err error) int
}

// wrap returns hooks that count m's events into g before calling h's.
// The EVM calls a hook's multi-dimensional (V2) form when a tracer has it,
// else the plain one: whichever h has is wrapped.
func (g *guard) wrap(h *tracing.Hooks, m *meter) *tracing.Hooks {
	w := *h
	if inner := h.OnTxStart; m.txStart != nil && inner != nil {
		// Always passed on: the tracer's other hooks need what it sets.
		w.OnTxStart = func(env *tracing.VMContext, tx *types.Transaction, from common.Address) {
			g.add(m.txStart(env, tx, from))
			inner(env, tx, from)
		}
	}
	if inner := h.OnTxEnd; inner != nil {
		// Not passed on once over: a tracer whose first frame was not
		// recorded may not survive it (callTracer reads that frame).
		w.OnTxEnd = func(receipt *types.Receipt, err error) {
			if !g.over {
				inner(receipt, err)
			}
		}
	}
	if m.enter != nil {
		g.wrapEnter(&w, m.enter)
	}
	if m.exit != nil {
		g.wrapExit(&w, m.exit)
	}
	if m.opcode != nil {
		g.wrapOpcode(&w, m.opcode)
	}
	return &w
}

func (g *guard) wrapEnter(w *tracing.Hooks, count func(depth int, typ byte, to common.Address, input []byte) int) {
	if inner := w.OnEnterV2; inner != nil {
		w.OnEnterV2 = func(depth int, typ byte, from, to common.Address, input []byte, gas tracing.Gas, value *big.Int) {
			if g.add(count(depth, typ, to, input)) {
				inner(depth, typ, from, to, input, gas, value)
			}
		}
	} else if inner := w.OnEnter; inner != nil {
		w.OnEnter = func(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
			if g.add(count(depth, typ, to, input)) {
				inner(depth, typ, from, to, input, gas, value)
			}
		}
	}
}

func (g *guard) wrapExit(w *tracing.Hooks, count func(depth int, output []byte, err error, reverted bool) int) {
	if inner := w.OnExitV2; inner != nil {
		w.OnExitV2 = func(depth int, output []byte, gasLeft tracing.Gas, err error, reverted bool) {
			if g.add(count(depth, output, err, reverted)) {
				inner(depth, output, gasLeft, err, reverted)
			}
		}
	} else if inner := w.OnExit; inner != nil {
		w.OnExit = func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
			if g.add(count(depth, output, err, reverted)) {
				inner(depth, output, gasUsed, err, reverted)
			}
		}
	}
}

func (g *guard) wrapOpcode(w *tracing.Hooks, count func(op byte, scope tracing.OpContext, rData []byte, err error) int) {
	if inner := w.OnOpcodeV2; inner != nil {
		w.OnOpcodeV2 = func(pc uint64, op byte, gas, cost tracing.Gas, scope tracing.OpContext, rData []byte, depth int, err error) {
			if g.add(count(op, scope, rData, err)) {
				inner(pc, op, gas, cost, scope, rData, depth, err)
			}
		}
	} else if inner := w.OnOpcode; inner != nil {
		w.OnOpcode = func(pc uint64, op byte, gas, cost uint64, scope tracing.OpContext, rData []byte, depth int, err error) {
			if g.add(count(op, scope, rData, err)) {
				inner(pc, op, gas, cost, scope, rData, depth, err)
			}
		}
	}
}
