package main

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
)

// transferTracer collects a call's logs, drops those of reverted frames and,
// with traceTransfers, records ether transfers as Transfer logs.
type transferTracer struct {
	traceTransfers bool
	header         *types.Header
	frames         [][]*types.Log
	count          uint
	txHash         common.Hash
	txIndex        int
}

func (t *transferTracer) hooks() *tracing.Hooks {
	return &tracing.Hooks{
		OnEnter: func(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
			t.frames = append(t.frames, nil)
			if op := vm.OpCode(typ); t.traceTransfers && op != vm.DELEGATECALL && op != vm.CALLCODE && value != nil && value.Sign() > 0 {
				t.add(simTransferAddress, []common.Hash{simTransferTopic, common.BytesToHash(from.Bytes()), common.BytesToHash(to.Bytes())}, common.BigToHash(value).Bytes())
			}
		},
		OnExit: func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
			top := t.frames[len(t.frames)-1]
			if reverted {
				t.count -= uint(len(top))
				top = nil
			}
			if depth == 0 {
				t.frames = [][]*types.Log{top}
				return
			}
			t.frames = t.frames[:len(t.frames)-1]
			t.frames[len(t.frames)-1] = append(t.frames[len(t.frames)-1], top...)
		},
		OnLog: func(l *types.Log) { t.add(l.Address, l.Topics, l.Data) },
	}
}

var (
	simTransferAddress = common.HexToAddress("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")
	simTransferTopic   = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
)

func (t *transferTracer) add(a common.Address, topics []common.Hash, d []byte) {
	l := &types.Log{Address: a, Topics: topics, Data: d, BlockNumber: t.header.Number.Uint64(), TxHash: t.txHash, TxIndex: uint(t.txIndex), Index: t.count}
	t.frames[len(t.frames)-1] = append(t.frames[len(t.frames)-1], l)
	t.count++
}

func (t *transferTracer) start(txHash common.Hash, i int) {
	t.frames, t.txHash, t.txIndex = nil, txHash, i
}

func (t *transferTracer) callLogs() []*types.Log {
	if len(t.frames) == 0 {
		return nil
	}
	return t.frames[0]
}
