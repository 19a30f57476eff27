package simulate

import (
	"errors"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
)

// Block is a simulated block with the results of its calls.
type Block struct {
	*types.Block
	Calls []CallResult
	// Senders are the calls' senders, by transaction index: the block's
	// transactions are not signed.
	Senders []common.Address
}

// CallResult is the spec's result of one call.
type CallResult struct {
	ReturnData hexutil.Bytes  `json:"returnData"`
	Logs       []*types.Log   `json:"logs"`
	GasUsed    hexutil.Uint64 `json:"gasUsed"`
	MaxUsedGas hexutil.Uint64 `json:"maxUsedGas"`
	Status     hexutil.Uint64 `json:"status"`
	Error      *CallError     `json:"error,omitempty"`
}

// CallError says why a call failed: 3 (reverted, with the revert data) or
// -32015 (any other failure in the EVM).
type CallError struct {
	Message string `json:"message"`
	Code    int    `json:"code"`
	Data    string `json:"data,omitempty"`
}

// capSuffix marks a failure that the simulation's gas budget may have caused.
const capSuffix = " (gas limit was capped by the RPC server's global gas cap)"

func newCallResult(res *core.ExecutionResult, logs []*types.Log, capped bool) CallResult {
	if logs == nil {
		logs = []*types.Log{}
	}
	out := CallResult{
		ReturnData: res.Return(),
		Logs:       logs,
		GasUsed:    hexutil.Uint64(res.UsedGas),
		MaxUsedGas: hexutil.Uint64(res.MaxUsedGas),
		Status:     hexutil.Uint64(types.ReceiptStatusSuccessful),
	}
	if res.Err == nil {
		return out
	}
	out.Status = hexutil.Uint64(types.ReceiptStatusFailed)
	if errors.Is(res.Err, vm.ErrExecutionReverted) {
		msg := vm.ErrExecutionReverted.Error()
		if reason, err := abi.UnpackRevert(res.Revert()); err == nil {
			msg += ": " + reason
		}
		out.Error = &CallError{Message: msg, Code: CodeReverted, Data: hexutil.Encode(res.Revert())}
		return out
	}
	msg := res.Err.Error()
	if capped {
		msg += capSuffix
	}
	out.Error = &CallError{Message: msg, Code: CodeVMError}
	return out
}

// Sizes of the JSON an answer is made of, for its estimate: generous for
// what is fixed, exact for what a client controls (data).
const (
	blockJSONSize    = 1600 // header fields, roots, an empty bloom, withdrawals root
	txHashJSONSize   = 70
	txFullJSONSize   = 800
	callJSONSize     = 200
	logJSONSize      = 500 // address, three topics, block and transaction fields
	withdrawJSONSize = 150
)

// estimate is the JSON size of the call's result, about.
func (c *CallResult) estimate() int {
	n := callJSONSize + 2*len(c.ReturnData)
	if c.Error != nil {
		n += len(c.Error.Message) + len(c.Error.Data)
	}
	for _, l := range c.Logs {
		n += logJSONSize + 67*len(l.Topics) + 2*len(l.Data)
	}
	return n
}

// estimate is the JSON size of the block without its calls, about.
func (b *Block) estimate(fullTx bool) int {
	n := blockJSONSize + withdrawJSONSize*len(b.Withdrawals())
	for _, tx := range b.Transactions() {
		if fullTx {
			n += txFullJSONSize + 2*len(tx.Data())
		} else {
			n += txHashJSONSize
		}
	}
	return n
}
