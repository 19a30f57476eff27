package tracing

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// applyTx is go-ethereum's core.ApplyTransactionWithEVM, which the
// tracing API runs, without the receipt's bloom filter: the tracers read
// only the receipt's gas (callTracer, the struct logger, the JavaScript
// tracers' gasUsed), and hashing every log into a bloom cost a sixteenth
// of tracing a block of token transfers; and before Byzantium without the
// receipt's state root, whose hashing was a thirteenth of tracing the
// execution-apis chain's blocks (a sixth of them are before Byzantium).
// Everything else the tracers see is the same: the transaction's start and
// end hooks, the state's finalisation, and the receipt's other fields
// (TestTraceForksMatchGeth runs every tracer on pre-Byzantium blocks).
func applyTx(evm *vm.EVM, msg *core.Message, st *state.StateDB, number *big.Int, hash common.Hash, time uint64, tx *types.Transaction) (receipt *types.Receipt, err error) {
	if hooks := evm.Config.Tracer; hooks != nil {
		if hooks.OnTxStart != nil {
			hooks.OnTxStart(evm.GetVMContext(), tx, msg.From)
		}
		if hooks.OnTxEnd != nil {
			defer func() { hooks.OnTxEnd(receipt, err) }()
		}
	}
	gp := core.NewGasPool(msg.GasLimit)
	result, err := core.ApplyMessage(evm, msg, gp)
	if err != nil {
		return nil, err
	}
	if evm.ChainConfig().IsByzantium(number) {
		evm.StateDB.Finalise(evm.GetRules())
	} else {
		// go-ethereum hashes the state into the receipt here
		// (IntermediateRoot), which finalises the raw state, without its
		// hooks, then hashes it. No tracer served reads the receipt's
		// root; the finalisation is what the next transaction needs.
		st.Finalise(evm.GetRules())
	}
	if st.Database().Type().Is(state.TypeUBT) {
		st.AccessEvents().Merge(evm.AccessEvents)
	}
	receipt = &types.Receipt{Type: tx.Type(), CumulativeGasUsed: gp.CumulativeUsed(),
		Status: types.ReceiptStatusSuccessful, TxHash: tx.Hash(), GasUsed: result.UsedGas}
	if result.Failed() {
		receipt.Status = types.ReceiptStatusFailed
	}
	if tx.Type() == types.BlobTxType {
		receipt.BlobGasUsed = uint64(len(tx.BlobHashes()) * params.BlobTxBlobGasPerBlob)
		receipt.BlobGasPrice = evm.Context.BlobBaseFee
	}
	if tx.To() == nil {
		receipt.ContractAddress = crypto.CreateAddress(evm.TxContext.Origin, tx.Nonce())
	}
	receipt.Logs = st.GetLogs(tx.Hash(), number.Uint64(), hash, time)
	receipt.BlockHash, receipt.BlockNumber = hash, number
	receipt.TransactionIndex = uint(st.TxIndex())
	return receipt, nil
}
