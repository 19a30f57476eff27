package rpc

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/tracing"
)

// debugTraceCall traces a call as go-ethereum's TraceCall does (call
// object parsed and defaulted as eth_call's; the overrides, txIndex and
// tracer options of TraceCallConfig), on any block including the
// pre-confirmed one, which go-ethereum does not trace on.
func debugTraceCall(s *Server, r *request) error {
	if err := r.maxParams(3); err != nil {
		return err
	}
	raw, err := r.required(0)
	if err != nil {
		return err
	}
	if err := codec.ParseCallArgs(raw, &r.call); err != nil {
		return argError(0, err)
	}
	cfg, err := tracing.ParseCallConfig(r.arg(2), s.b.Chain.Config())
	if err != nil {
		return argError(2, err)
	}
	base, err := s.callBase(r, cfg)
	if err != nil {
		return err
	}
	return s.traced(r, func(env *tracing.Env) error {
		header, st, err := base(env)
		if err != nil {
			return err
		}
		call, err := s.traceCallMessage(r, cfg, header, st)
		if err != nil {
			return err
		}
		res, err := env.TraceCall(&cfg.Config, call, r.room)
		if err != nil {
			return err
		}
		r.out = append(r.out, res...)
		return nil
	})
}

// callBase resolves the block argument (1) to what the call runs on, made
// inside the bound: the block's header and the state after it, or with
// txIndex the state before that transaction of the block.
func (s *Server) callBase(r *request, cfg *tracing.CallConfig) (func(*tracing.Env) (*types.Header, *state.StateDB, error), error) {
	bp, err := r.blockParam(1)
	if err != nil {
		return nil, err
	}
	index, ok := cfg.TxIndex()
	if !ok {
		v, err := s.stateView(r, 1)
		if err != nil {
			return nil, traceBlockError(bp, err)
		}
		return func(*tracing.Env) (*types.Header, *state.StateDB, error) {
			st, err := s.stateDB(v)
			return v.header, st, err
		}, nil
	}
	var b *tracing.Block
	switch {
	case bp.Tag == codec.TagPending:
		b, err = s.pendingTraceBlock(r)
	default:
		var header *types.Header
		if header, err = s.header(r, bp); err != nil {
			return nil, traceBlockError(bp, err)
		}
		b, err = s.blockTraceBlock(r, header)
	}
	if err != nil {
		return nil, err
	}
	return func(env *tracing.Env) (*types.Header, *state.StateDB, error) {
		return b.Header, b.State, env.Replay(b, index)
	}, nil
}

// traceBlockError words a block that does not exist as go-ethereum's
// tracing API does.
func traceBlockError(bp codec.BlockParam, err error) error {
	switch {
	case !errors.Is(err, errHeaderNotFound) && !errors.Is(err, errHashNotFound):
		return err
	case bp.Tag == codec.TagHash:
		return fmt.Errorf("block %s not found", bp.Hash.Hex())
	default:
		return fmt.Errorf("block #%d not found", bp.Number)
	}
}

// traceCallMessage applies the overrides and builds the message, as
// go-ethereum's TraceCall: block overrides, then state overrides (which may
// move precompiles), then the call defaults at the overridden base fee; a
// call without a gas price sees a BASEFEE (and blob base fee) of 0.
func (s *Server) traceCallMessage(r *request, cfg *tracing.CallConfig, header *types.Header, st *state.StateDB) (*tracing.Call, error) {
	config := s.b.Chain.Config()
	vmctx, err := cfg.BlockContext(header, s.b.Chain.BlockChain())
	if err != nil {
		return nil, argError(2, err)
	}
	rules := config.Rules(vmctx.BlockNumber, vmctx.Random != nil, vmctx.Time)
	precompiles, err := cfg.ApplyState(st, rules)
	if err != nil {
		return nil, overrideError(2, err)
	}
	msg, err := s.message(&r.msg, &r.call, vmctx.BaseFee)
	if err != nil {
		return nil, err
	}
	if msg.GasPrice.IsZero() {
		vmctx.BaseFee = new(big.Int)
	}
	if msg.BlobGasFeeCap != nil && msg.BlobGasFeeCap.IsZero() {
		vmctx.BlobBaseFee = new(big.Int)
	}
	return &tracing.Call{Msg: msg, Tx: callTransaction(&r.call, msg, config.ChainID), Context: vmctx, State: st, Precompiles: precompiles}, nil
}

// callTransaction is the call as go-ethereum's TransactionArgs.ToTransaction
// makes it (defaulting to a dynamic-fee transaction): the tracers read its
// gas, recipient and authorizations when it starts.
func callTransaction(args *codec.CallArgs, msg *core.Message, chainID *big.Int) *types.Transaction {
	value := msg.Value.ToBig()
	switch {
	case args.HasGasPrice && msg.AccessList != nil:
		return types.NewTx(&types.AccessListTx{ChainID: chainID, Nonce: msg.Nonce, Gas: msg.GasLimit, GasPrice: msg.GasPrice.ToBig(),
			To: msg.To, Value: value, Data: msg.Data, AccessList: msg.AccessList})
	case args.HasGasPrice:
		return types.NewTx(&types.LegacyTx{Nonce: msg.Nonce, Gas: msg.GasLimit, GasPrice: msg.GasPrice.ToBig(), To: msg.To, Value: value, Data: msg.Data})
	case msg.SetCodeAuthorizations != nil && msg.To != nil:
		return types.NewTx(&types.SetCodeTx{ChainID: uint256.MustFromBig(chainID), Nonce: msg.Nonce, Gas: msg.GasLimit,
			GasFeeCap: msg.GasFeeCap, GasTipCap: msg.GasTipCap, To: *msg.To, Value: msg.Value, Data: msg.Data,
			AccessList: nonNilList(msg.AccessList), AuthList: msg.SetCodeAuthorizations})
	case msg.BlobHashes != nil && msg.To != nil:
		blobFeeCap := new(uint256.Int)
		if msg.BlobGasFeeCap != nil {
			blobFeeCap = msg.BlobGasFeeCap
		}
		return types.NewTx(&types.BlobTx{ChainID: uint256.MustFromBig(chainID), Nonce: msg.Nonce, Gas: msg.GasLimit,
			GasFeeCap: msg.GasFeeCap, GasTipCap: msg.GasTipCap, To: *msg.To, Value: msg.Value, Data: msg.Data,
			AccessList: nonNilList(msg.AccessList), BlobHashes: msg.BlobHashes, BlobFeeCap: blobFeeCap})
	default:
		return types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: msg.Nonce, Gas: msg.GasLimit, GasFeeCap: msg.GasFeeCap.ToBig(),
			GasTipCap: msg.GasTipCap.ToBig(), To: msg.To, Value: value, Data: msg.Data, AccessList: nonNilList(msg.AccessList)})
	}
}

func nonNilList(l types.AccessList) types.AccessList {
	if l == nil {
		return types.AccessList{}
	}
	return l
}
