package tracing

import (
	"encoding/json"
	"errors"
	"math/big"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"

	"github.com/stocknode/stocknode/codec"
)

// callTracer is go-ethereum's callTracer (eth/tracers/native/call.go),
// frame for frame, with a result written straight into bytes. go-ethereum's
// encodes each frame through encoding/json twice over (its generated
// MarshalJSON, whose output the outer encoder then checks and compacts),
// which was a sixth of tracing a block of token transfers. The answer is
// byte for byte go-ethereum's: TestTraceTransactionMatchesGeth compares
// them on every transaction of a chain of every kind.
type callTracer struct {
	callstack   []callFrame
	onlyTopCall bool
	withLog     bool
	gasLimit    uint64
	depth       int
	interrupt   atomic.Bool
	reason      atomic.Pointer[error]
}

// callFrame is go-ethereum's callFrame.
type callFrame struct {
	typ          vm.OpCode
	from         common.Address
	gas          uint64
	gasUsed      uint64
	to           *common.Address
	input        []byte
	output       []byte
	err          string
	revertReason string
	calls        []callFrame
	logs         []callLog
	value        *big.Int
	reverted     bool
}

// callLog is go-ethereum's callLog.
type callLog struct {
	address  common.Address
	topics   []common.Hash
	data     []byte
	index    uint
	position uint
}

// newCallTracer is go-ethereum's newCallTracer with this encoder.
func newCallTracer(cfg json.RawMessage) (*tracers.Tracer, error) {
	t, err := parseCallTracer(cfg)
	if err != nil {
		return nil, err
	}
	return t.tracer(), nil
}

// parseCallTracer is a callTracer configured by cfg.
func parseCallTracer(cfg json.RawMessage) (*callTracer, error) {
	var config struct {
		OnlyTopCall bool `json:"onlyTopCall"`
		WithLog     bool `json:"withLog"`
	}
	if !emptyConfig(cfg) {
		if err := json.Unmarshal(cfg, &config); err != nil {
			return nil, err
		}
	}
	return &callTracer{callstack: make([]callFrame, 0, 1), onlyTopCall: config.OnlyTopCall, withLog: config.WithLog}, nil
}

// tracer is t's hooks and result.
func (t *callTracer) tracer() *tracers.Tracer {
	return &tracers.Tracer{
		Hooks: &tracing.Hooks{
			OnTxStart: t.onTxStart,
			OnTxEnd:   t.onTxEnd,
			OnEnter:   t.onEnter,
			OnExit:    t.onExit,
			OnLog:     t.onLog,
		},
		GetResult: t.getResult,
		Stop:      t.stop,
	}
}

// reset readies t for another transaction, with its configuration.
func (t *callTracer) reset() {
	clear(t.callstack)
	t.callstack = t.callstack[:0]
	t.gasLimit, t.depth = 0, 0
	t.interrupt.Store(false)
	t.reason.Store(nil)
}

func (t *callTracer) onTxStart(_ *tracing.VMContext, tx *types.Transaction, _ common.Address) {
	t.gasLimit = tx.Gas()
}

func (t *callTracer) onEnter(depth int, typ byte, from common.Address, to common.Address, input []byte, gas uint64, value *big.Int) {
	t.depth = depth
	if t.onlyTopCall && depth > 0 || t.interrupt.Load() {
		return
	}
	call := callFrame{typ: vm.OpCode(typ), from: from, to: &to, input: common.CopyBytes(input), gas: gas, value: value}
	if depth == 0 {
		call.gas = t.gasLimit
	}
	t.callstack = append(t.callstack, call)
}

func (t *callTracer) onExit(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
	if depth == 0 {
		if len(t.callstack) == 1 {
			t.callstack[0].processOutput(output, err, reverted)
		}
		return
	}
	t.depth = depth - 1
	if t.onlyTopCall {
		return
	}
	size := len(t.callstack)
	if size <= 1 {
		return
	}
	call := t.callstack[size-1]
	t.callstack = t.callstack[:size-1]
	call.gasUsed = gasUsed
	call.processOutput(output, err, reverted)
	t.callstack[size-2].calls = append(t.callstack[size-2].calls, call)
}

// processOutput is go-ethereum's callFrame.processOutput.
func (f *callFrame) processOutput(output []byte, err error, reverted bool) {
	output = common.CopyBytes(output)
	if err != nil && !reverted {
		err = nil // pre-Homestead storage out of gas
	}
	if err == nil {
		f.output = output
		return
	}
	f.err, f.reverted = err.Error(), reverted
	if f.typ == vm.CREATE || f.typ == vm.CREATE2 {
		f.to = nil
	}
	if !errors.Is(err, vm.ErrExecutionReverted) || len(output) == 0 {
		return
	}
	f.output = output
	if len(output) < 4 {
		return
	}
	if unpacked, err := abi.UnpackRevert(output); err == nil {
		f.revertReason = unpacked
	}
}

func (t *callTracer) onTxEnd(receipt *types.Receipt, err error) {
	if err != nil {
		return
	}
	if receipt != nil {
		t.callstack[0].gasUsed = receipt.GasUsed
	}
	if t.withLog {
		clearFailedLogs(&t.callstack[0], false)
	}
}

// clearFailedLogs drops the logs of failed frames and of their callees,
// which the chain does not keep.
func clearFailedLogs(f *callFrame, parentFailed bool) {
	failed := parentFailed || f.err != "" && f.reverted
	if failed {
		f.logs = nil
	}
	for i := range f.calls {
		clearFailedLogs(&f.calls[i], failed)
	}
}

func (t *callTracer) onLog(log *types.Log) {
	if !t.withLog || t.onlyTopCall && t.depth > 0 || t.interrupt.Load() {
		return
	}
	top := &t.callstack[len(t.callstack)-1]
	top.logs = append(top.logs, callLog{address: log.Address, topics: log.Topics, data: log.Data,
		index: log.Index, position: uint(len(top.calls))})
}

func (t *callTracer) getResult() (json.RawMessage, error) {
	if len(t.callstack) != 1 {
		return nil, errors.New("incorrect number of top-level calls")
	}
	res := t.callstack[0].appendJSON(make([]byte, 0, 512))
	if p := t.reason.Load(); p != nil {
		return res, *p
	}
	return res, nil
}

func (t *callTracer) stop(err error) {
	t.reason.Store(&err)
	t.interrupt.Store(true)
}

// appendJSON appends the frame as go-ethereum's encoding/json of its
// callFrame writes it: the same members, in the same order, with the same
// omissions and encodings (codec writes hexutil's and encoding/json's).
func (f *callFrame) appendJSON(b []byte) []byte {
	b = codec.AppendAddress(append(b, `{"from":`...), f.from)
	b = codec.AppendUint64(append(b, `,"gas":`...), f.gas)
	b = codec.AppendUint64(append(b, `,"gasUsed":`...), f.gasUsed)
	if f.to != nil {
		b = codec.AppendAddress(append(b, `,"to":`...), *f.to)
	}
	b = codec.AppendBytes(append(b, `,"input":`...), f.input)
	if len(f.output) > 0 {
		b = codec.AppendBytes(append(b, `,"output":`...), f.output)
	}
	if f.err != "" {
		b = codec.AppendString(append(b, `,"error":`...), f.err)
	}
	if f.revertReason != "" {
		b = codec.AppendString(append(b, `,"revertReason":`...), f.revertReason)
	}
	if len(f.calls) > 0 {
		b = appendArray(append(b, `,"calls":`...), len(f.calls), func(b []byte, i int) []byte { return f.calls[i].appendJSON(b) })
	}
	if len(f.logs) > 0 {
		b = appendArray(append(b, `,"logs":`...), len(f.logs), func(b []byte, i int) []byte { return f.logs[i].appendJSON(b) })
	}
	if f.value != nil {
		b = codec.AppendBig(append(b, `,"value":`...), f.value)
	}
	// An opcode's name (or "opcode 0x.. not defined") needs no escape.
	b = append(append(b, `,"type":"`...), f.typ.String()...)
	return append(b, `"}`...)
}

func (l *callLog) appendJSON(b []byte) []byte {
	b = codec.AppendAddress(append(b, `{"address":`...), l.address)
	b = append(b, `,"topics":`...)
	if l.topics == nil {
		b = append(b, "null"...)
	} else {
		b = appendArray(b, len(l.topics), func(b []byte, i int) []byte { return codec.AppendHash(b, l.topics[i]) })
	}
	b = codec.AppendBytes(append(b, `,"data":`...), l.data)
	b = codec.AppendUint64(append(b, `,"index":`...), uint64(l.index))
	b = codec.AppendUint64(append(b, `,"position":`...), uint64(l.position))
	return append(b, '}')
}

// appendArray appends a JSON array of n elements, each appended by elem.
func appendArray(b []byte, n int, elem func(b []byte, i int) []byte) []byte {
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
	}
	return append(b, ']')
}

// emptyConfig reports a tracer configuration that sets nothing, which is
// then not parsed: a block's trace builds a tracer for every transaction.
func emptyConfig(cfg json.RawMessage) bool {
	return len(cfg) == 0 || string(cfg) == "{}" || string(cfg) == "null"
}
