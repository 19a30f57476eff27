package tracing

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/callstate"
)

// ErrGenesis is go-ethereum's answer for tracing block 0, which has no
// parent state.
var ErrGenesis = errors.New("genesis is not traceable")

// Block is a block whose transactions are traced: a sealed one, or the
// pre-confirmed block being built, whose header has no final hash yet.
type Block struct {
	Header *types.Header
	// Hash is the block's hash, zero for the pre-confirmed block.
	Hash   common.Hash
	Parent *types.Header
	Txs    types.Transactions
	// State is the parent's state; tracing executes the block into it.
	State *state.StateDB

	ctx  vm.BlockContext // made by Replay
	evm  *vm.EVM         // made by Replay, for the block's transactions (blockEVM)
	next int             // the transaction State is before
	// from is the transaction State was copied before from a kept state
	// of size fromSize (Prefixes), 0 for the parent's state.
	from     int
	fromSize int64
	// warm is the warm set the block's transactions are run with, one
	// after another (callstate.Warm).
	warm *callstate.Warm
}

// Replay readies b for tracing its transaction n: it runs the block's
// system calls (EIP-4788, EIP-2935) and the transactions before n
// untraced, as go-ethereum's StateAtTransaction does, or, for a sealed
// block, starts from the nearest state Prefixes kept before n.
func (e *Env) Replay(b *Block, n int) error {
	if b.Header.Number.Sign() == 0 {
		return ErrGenesis
	}
	if n > len(b.Txs) || (n == len(b.Txs) && n > 0) {
		return fmt.Errorf("transaction index %d out of range for block %#x", n, b.Hash)
	}
	from := 0
	if b.Hash != (common.Hash{}) {
		if kept, k, size := e.Prefixes.nearest(b.Hash, n, e.Head); kept != nil {
			b.State, from, b.from, b.fromSize = kept, k, k, size
		}
	}
	b.ctx = core.NewEVMBlockContext(b.Header, e.Chain, nil)
	b.warm = warmOver(b.warm, b.State)
	evm := e.blockEVM(b)
	evm.Config, evm.StateDB = vm.Config{}, b.warm
	e.Task.Watch(evm)
	defer e.Task.Unwatch()
	if from == 0 {
		preExecution(b.Header, e.Config, evm)
	}
	signer := types.MakeSigner(e.Config, b.Header.Number, b.Header.Time)
	for i := from; i < n; i++ {
		tx := b.Txs[i]
		msg, err := core.TransactionToMessage(tx, signer, b.Header.BaseFee)
		if err != nil {
			return fmt.Errorf("transaction %#x: %w", tx.Hash(), err)
		}
		b.State.SetTxContext(tx.Hash(), i, uint32(i+1))
		_, err = core.ApplyMessage(evm, msg, nil)
		if cause := e.Task.Err(); cause != nil {
			return cause
		}
		if err != nil {
			return fmt.Errorf("transaction %#x failed: %v", tx.Hash(), err)
		}
		b.State.Finalise(evm.GetRules())
	}
	if err := b.State.Error(); err != nil {
		return fmt.Errorf("state of block %d: %w", b.Header.Number, err)
	}
	b.next = n
	return nil
}

// blockEVM is b's EVM, on b's block context: one for the replay and
// every transaction traced after it, as go-ethereum's state processor runs
// a block's transactions on one EVM. Making one per transaction (its fork
// rules, jump table and precompiles) was a fortieth of tracing a block of
// token transfers. A cancelled EVM is not used again. Close gives it back.
func (e *Env) blockEVM(b *Block) *vm.EVM {
	if b.evm != nil && !b.evm.Cancelled() {
		return b.evm
	}
	evm := e.newEVM(b.ctx, b.warm, vm.Config{})
	release := evm.Release
	if e.Precompiles != nil {
		givePrecompiles := e.Precompiles(evm)
		release = func() {
			givePrecompiles()
			evm.Release()
		}
	}
	e.releases = append(e.releases, release)
	b.evm = evm
	return evm
}

// Close gives back what the request's traces borrowed: their blocks'
// EVMs and the precompiles installed in them. The Env is not used after.
func (e *Env) Close() {
	e.deadlines.end()
	for _, release := range e.releases {
		release()
	}
	e.releases = nil
}

// preExecution is core.PreExecution, the block's system calls, with the
// parent's hash read from header instead of hashed from the parent's
// header: on a block of a few transactions, hashing headers was a
// twentieth of its trace.
func preExecution(header *types.Header, config *params.ChainConfig, evm *vm.EVM) {
	var accessList *bal.ConstructionBlockAccessList
	if config.IsAmsterdam(header.Number, header.Time) {
		accessList = bal.NewConstructionBlockAccessList()
	}
	if header.ParentBeaconRoot != nil { // EIP-4788
		core.ProcessBeaconBlockRoot(*header.ParentBeaconRoot, evm, accessList)
	}
	if config.IsPrague(header.Number, header.Time) || config.IsUBT(header.Number, header.Time) { // EIP-2935
		core.ProcessParentBlockHash(header.ParentHash, evm, accessList)
	}
}

// Keep gives b's state, after the transactions it traced, to Prefixes; b
// must not be traced further. Only sealed blocks' states are kept.
func (e *Env) Keep(b *Block) {
	if b.Hash == (common.Hash{}) || len(b.Txs) == 0 {
		return
	}
	size := b.fromSize + int64(b.State.AccountLoaded)*accountBytes + int64(b.State.StorageLoaded)*slotBytes + int64(b.next-b.from)*txBytes
	e.Prefixes.keep(b.Hash, b.Header.Number.Uint64(), b.next, b.State, size)
	b.State = nil
}

// TraceTx traces b's transaction i; b's state must be before it (Replay(b,
// i), or TraceTx(b, i-1)). room is what the response has left.
func (e *Env) TraceTx(cfg *Config, b *Block, i int, room int) (json.RawMessage, error) {
	if i != b.next || i >= len(b.Txs) {
		return nil, fmt.Errorf("transaction %d of block %d traced out of order", i, b.Header.Number)
	}
	tx := b.Txs[i]
	msg, err := core.TransactionToMessage(tx, types.MakeSigner(e.Config, b.Header.Number, b.Header.Time), b.Header.BaseFee)
	if err != nil {
		return nil, err
	}
	txctx := &tracers.Context{BlockHash: b.Hash, BlockNumber: b.Header.Number, TxIndex: i, TxHash: tx.Hash()}
	res, err := e.run(cfg, tx, msg, txctx, b.ctx, b.State, b.warm, e.blockEVM(b), nil, room)
	if err != nil {
		return nil, err
	}
	// A read the state could not answer was taken as an empty account:
	// the trace is not the block's.
	if err := b.State.Error(); err != nil {
		return nil, fmt.Errorf("state of block %d: %w", b.Header.Number, err)
	}
	b.next++
	return res, nil
}

// Call is a message to trace, as debug_traceCall runs it.
type Call struct {
	Msg     *core.Message
	Tx      *types.Transaction // the message as a transaction, for the tracers' OnTxStart
	Context vm.BlockContext
	State   *state.StateDB
	// Precompiles are the ones the state overrides left; nil: the fork's.
	Precompiles vm.PrecompiledContracts
}

// TraceCall traces c as go-ethereum's TraceCall does: outside any block
// (a zero tracer context), without the base fee rule.
func (e *Env) TraceCall(cfg *Config, c *Call, room int) (json.RawMessage, error) {
	return e.run(cfg, c.Tx, c.Msg, new(tracers.Context), c.Context, c.State, nil, nil, c.Precompiles, room)
}
