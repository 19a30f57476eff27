package tracing

import (
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
)

// Tracers that record calls copy every call frame's input and output. A
// loop of cheap calls that each pass megabytes of memory (the memory is
// paid for once, a warm call costs 100 gas) would make them hold hundreds
// of gigabytes within one block's gas, long before their result could be
// measured. The guard counts those bytes as they are copied and stops the
// trace as soon as their hex encoding alone would not fit the response.

// copiesCalls reports whether the tracer name (with its configuration)
// records every call frame's input and output.
func copiesCalls(name string, cfg json.RawMessage) bool {
	switch name {
	case "flatCallTracer", "erc7562Tracer":
		return true
	case "callTracer":
		var c struct{ OnlyTopCall bool }
		return len(cfg) == 0 || json.Unmarshal(cfg, &c) != nil || !c.OnlyTopCall
	case "muxTracer":
		subs, _ := muxConfig(cfg)
		for sub, subCfg := range subs {
			if copiesCalls(sub, subCfg) {
				return true
			}
		}
	}
	return false
}

// guard counts the call data a tracer copies and calls stop when its hex
// encoding passes room bytes.
type guard struct {
	room  int
	bytes int
	stop  func()
}

// wrap returns hooks that count into g before calling h's. The EVM calls
// a frame hook's multi-dimensional (V2) form when a tracer has it (the
// muxTracer has only those), else the plain one.
func (g *guard) wrap(h *tracing.Hooks) *tracing.Hooks {
	w := *h
	if enter := h.OnEnterV2; enter != nil {
		w.OnEnterV2 = func(depth int, typ byte, from, to common.Address, input []byte, gas tracing.Gas, value *big.Int) {
			g.add(len(input))
			enter(depth, typ, from, to, input, gas, value)
		}
	} else {
		enter := h.OnEnter
		w.OnEnter = func(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
			g.add(len(input))
			if enter != nil {
				enter(depth, typ, from, to, input, gas, value)
			}
		}
	}
	if exit := h.OnExitV2; exit != nil {
		w.OnExitV2 = func(depth int, output []byte, gasLeft tracing.Gas, err error, reverted bool) {
			g.add(len(output))
			exit(depth, output, gasLeft, err, reverted)
		}
	} else {
		exit := h.OnExit
		w.OnExit = func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
			g.add(len(output))
			if exit != nil {
				exit(depth, output, gasUsed, err, reverted)
			}
		}
	}
	return &w
}

func (g *guard) add(n int) {
	g.bytes += n
	if 2*g.bytes > g.room {
		g.stop()
	}
}
