// Package tracingtest serves go-ethereum's own debug tracing API
// (eth/tracers.API) over a go-ethereum core.BlockChain, as a geth node
// does: the reference that tests and the conformance fixture generator
// compare stocknode's traces with. It is not part of the node.
package tracingtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // registers the native tracers
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// API is go-ethereum's tracing API over a chain.
type API struct {
	*tracers.API
	backend *backend
}

// New serves go-ethereum's tracing API over chain (whose states must be
// readable: an archive chain), with gasCap as its --rpc.gascap.
func New(chain *core.BlockChain, gasCap uint64) *API {
	b := &backend{chain: chain, gasCap: gasCap}
	return &API{API: tracers.NewAPI(b), backend: b}
}

// TraceCall is go-ethereum's debug_traceCall with the call object given as
// JSON: its type (internal/ethapi.TransactionArgs) cannot be named outside
// go-ethereum, so it is made and passed by reflection.
func (a *API) TraceCall(ctx context.Context, call json.RawMessage, block rpc.BlockNumberOrHash, config *tracers.TraceCallConfig) (any, error) {
	method := reflect.ValueOf(a.API).MethodByName("TraceCall")
	args := reflect.New(method.Type().In(1))
	if err := json.Unmarshal(call, args.Interface()); err != nil {
		return nil, fmt.Errorf("call object: %w", err)
	}
	out := method.Call([]reflect.Value{reflect.ValueOf(ctx), args.Elem(), reflect.ValueOf(&block), reflect.ValueOf(config)})
	if err, _ := out[1].Interface().(error); err != nil {
		return nil, err
	}
	return out[0].Interface(), nil
}

// backend is a geth node's tracers.Backend (eth/api_backend.go and
// eth/state_accessor.go) reduced to an archive chain without a miner.
type backend struct {
	chain  *core.BlockChain
	gasCap uint64
}

func (b *backend) HeaderByHash(_ context.Context, hash common.Hash) (*types.Header, error) {
	return b.chain.GetHeaderByHash(hash), nil
}

func (b *backend) HeaderByNumber(_ context.Context, number rpc.BlockNumber) (*types.Header, error) {
	return b.chain.GetHeaderByNumber(b.number(number)), nil
}

// number resolves a block tag: every tag but earliest is the head (a chain
// without a consensus client or a miner).
func (b *backend) number(n rpc.BlockNumber) uint64 {
	switch {
	case n == rpc.EarliestBlockNumber:
		return 0
	case n < 0:
		return b.chain.CurrentBlock().Number.Uint64()
	default:
		return uint64(n)
	}
}

func (b *backend) CurrentHeader() *types.Header { return b.chain.CurrentHeader() }

func (b *backend) BlockByHash(_ context.Context, hash common.Hash) (*types.Block, error) {
	return b.chain.GetBlockByHash(hash), nil
}

func (b *backend) BlockByNumber(_ context.Context, number rpc.BlockNumber) (*types.Block, error) {
	return b.chain.GetBlockByNumber(b.number(number)), nil
}

func (b *backend) GetCanonicalTransaction(hash common.Hash) (bool, *types.Transaction, common.Hash, uint64, uint64) {
	entry, tx := b.chain.GetCanonicalTransaction(hash)
	if tx == nil {
		return false, nil, common.Hash{}, 0, 0
	}
	return true, tx, entry.BlockHash, entry.BlockIndex, entry.Index
}

func (b *backend) TxIndexDone() bool                { return true }
func (b *backend) RPCGasCap() uint64                { return b.gasCap }
func (b *backend) ChainConfig() *params.ChainConfig { return b.chain.Config() }
func (b *backend) Engine() consensus.Engine         { return b.chain.Engine() }

// ChainDb serves only the bad-block methods, which a chain without a
// network has no use for.
func (b *backend) ChainDb() ethdb.Database { return nil }

func (b *backend) stateAt(h *types.Header) (*state.StateDB, error) {
	return b.chain.StateAt(h.Root, h.Number, h.Time)
}

func (b *backend) StateAtBlock(_ context.Context, block *types.Block, _ *state.StateDB, _ bool, _ bool) (*state.StateDB, tracers.StateReleaseFunc, error) {
	st, err := b.stateAt(block.Header())
	if err != nil {
		return nil, nil, err
	}
	return st, func() {}, nil
}

// StateAtTransaction is eth/state_accessor.go's stateAtTransaction.
func (b *backend) StateAtTransaction(ctx context.Context, block *types.Block, txIndex int) (*types.Transaction, vm.BlockContext, *state.StateDB, tracers.StateReleaseFunc, error) {
	if block.NumberU64() == 0 {
		return nil, vm.BlockContext{}, nil, nil, errors.New("no transaction in genesis")
	}
	parent := b.chain.GetBlock(block.ParentHash(), block.NumberU64()-1)
	if parent == nil {
		return nil, vm.BlockContext{}, nil, nil, fmt.Errorf("parent %#x not found", block.ParentHash())
	}
	st, err := b.stateAt(parent.Header())
	if err != nil {
		return nil, vm.BlockContext{}, nil, nil, err
	}
	config := b.chain.Config()
	vmctx := core.NewEVMBlockContext(block.Header(), b.chain, nil)
	evm := vm.NewEVM(vmctx, st, config, vm.Config{})
	defer evm.Release()
	core.PreExecution(ctx, block.BeaconRoot(), parent.Header(), config, evm, block.Number(), block.Time())
	if txIndex == 0 && len(block.Transactions()) == 0 {
		return nil, vmctx, st, func() {}, nil
	}
	signer := types.MakeSigner(config, block.Number(), block.Time())
	for idx, tx := range block.Transactions() {
		if idx == txIndex {
			return tx, vmctx, st, func() {}, nil
		}
		msg, _ := core.TransactionToMessage(tx, signer, block.BaseFee())
		st.SetTxContext(tx.Hash(), idx, uint32(idx+1))
		if _, err := core.ApplyMessage(evm, msg, nil); err != nil {
			return nil, vm.BlockContext{}, nil, nil, fmt.Errorf("transaction %#x failed: %v", tx.Hash(), err)
		}
		st.Finalise(evm.GetRules())
	}
	return nil, vm.BlockContext{}, nil, nil, fmt.Errorf("transaction index %d out of range for block %#x", txIndex, block.Hash())
}
