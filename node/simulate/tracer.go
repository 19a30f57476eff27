package simulate

// Adapted from go-ethereum v1.17.10 internal/ethapi/logtracer.go
// (Copyright 2023 The go-ethereum Authors, GNU LGPL v3 or later).

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
)

var (
	// transferTopic is keccak256("Transfer(address,address,uint256)").
	transferTopic = common.HexToHash("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
	// TransferAddress is the emitter of traced ether transfers (ERC-7528).
	TransferAddress = common.HexToAddress("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE")
)

// logTracer records a call's logs, dropping those of frames that revert,
// and, with traceTransfers, every ether transfer (the call's value, inner
// calls' values, self-destructs) as an ERC-20 Transfer log emitted by
// TransferAddress. Log indices count across the block.
type logTracer struct {
	logs           [][]*types.Log // per open call frame
	count          int
	traceTransfers bool
	blockNumber    uint64
	blockTime      uint64
	txHash         common.Hash
	txIndex        uint
}

func newLogTracer(traceTransfers bool, blockNumber, blockTime uint64) *logTracer {
	return &logTracer{traceTransfers: traceTransfers, blockNumber: blockNumber, blockTime: blockTime}
}

func (t *logTracer) hooks() *tracing.Hooks {
	return &tracing.Hooks{OnEnter: t.onEnter, OnExit: t.onExit, OnLog: t.onLog}
}

func (t *logTracer) onEnter(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
	t.logs = append(t.logs, make([]*types.Log, 0))
	op := vm.OpCode(typ)
	if op != vm.DELEGATECALL && op != vm.CALLCODE && value != nil && value.Sign() > 0 {
		t.captureTransfer(from, to, value)
	}
}

func (t *logTracer) onExit(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
	if depth == 0 {
		if reverted {
			t.count -= len(t.logs[0])
			t.logs[0] = nil
		}
		return
	}
	size := len(t.logs)
	if size <= 1 {
		return
	}
	frame := t.logs[size-1]
	t.logs = t.logs[:size-1]
	if reverted {
		// The frame's logs are the latest ones: their indices are free again.
		t.count -= len(frame)
	} else {
		t.logs[size-2] = append(t.logs[size-2], frame...)
	}
}

func (t *logTracer) onLog(l *types.Log) { t.captureLog(l.Address, l.Topics, l.Data) }

func (t *logTracer) captureLog(address common.Address, topics []common.Hash, data []byte) {
	t.logs[len(t.logs)-1] = append(t.logs[len(t.logs)-1], &types.Log{
		Address:        address,
		Topics:         topics,
		Data:           data,
		BlockNumber:    t.blockNumber,
		BlockTimestamp: t.blockTime,
		TxHash:         t.txHash,
		TxIndex:        t.txIndex,
		Index:          uint(t.count),
	})
	t.count++
}

func (t *logTracer) captureTransfer(from, to common.Address, value *big.Int) {
	if !t.traceTransfers {
		return
	}
	topics := []common.Hash{transferTopic, common.BytesToHash(from.Bytes()), common.BytesToHash(to.Bytes())}
	t.captureLog(TransferAddress, topics, common.BigToHash(value).Bytes())
}

// reset readies the tracer for the next call of the block.
func (t *logTracer) reset(txHash common.Hash, txIndex uint) {
	t.logs, t.txHash, t.txIndex = nil, txHash, txIndex
}

// callLogs are the logs of the call that ran last.
func (t *logTracer) callLogs() []*types.Log {
	if len(t.logs) == 0 {
		return nil // a call that never entered the EVM
	}
	return t.logs[0]
}
