package rpc

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/callstate"
	"github.com/stocknode/stocknode/node/override"
	"github.com/stocknode/stocknode/node/revert"
)

// callEnv is everything one message execution needs.
type callEnv struct {
	view   view
	state  *state.StateDB  // a fresh StateDB, when calls is nil
	calls  *callstate.Pool // reusable StateDBs, when the call overrides nothing
	header *types.Header   // the block context (a copy when overridden)
	block  *override.Block
	// precompiles is the set the state overrides left when they moved or
	// replaced a precompile; nil: the fork's. (A pointer: the environment
	// of a call without overrides stays in its allocation size class.)
	precompiles *overridden
}

// prepareCall parses the call object (arg 0), the block (arg 1), the state
// override (arg 2) and the block override (arg 3), and builds the message.
// With reuse, a call at latest or pending that overrides nothing runs on a
// StateDB reused from the snapshot's pool (env.calls) instead of a fresh one.
func (s *Server) prepareCall(r *request, maxArgs int, reuse bool) (*core.Message, *callEnv, error) {
	if err := r.maxParams(maxArgs); err != nil {
		return nil, nil, err
	}
	raw, err := r.required(0)
	if err != nil {
		return nil, nil, err
	}
	if err := codec.ParseCallArgs(raw, &r.call); err != nil {
		return nil, nil, argError(0, err)
	}
	v, err := s.stateView(r, 1)
	if err != nil {
		return nil, nil, err
	}
	env := &callEnv{view: v, header: v.header}
	var stateRaw, blockRaw []byte
	if maxArgs > 2 {
		stateRaw = r.arg(2)
	}
	if maxArgs > 3 {
		blockRaw = r.arg(3)
	}
	if reuse && stateRaw == nil && blockRaw == nil && v.calls != nil {
		env.calls = v.calls
	} else if env.state, err = s.stateDB(v); err != nil {
		return nil, nil, err
	}
	if err := s.applyOverrides(env, stateRaw, blockRaw, maxArgs > 3); err != nil {
		return nil, nil, err
	}
	msg, err := s.message(&r.msg, &r.call, env.header.BaseFee)
	if err != nil {
		return nil, nil, err
	}
	return msg, env, nil
}

// callMessage is a request's reusable message, with room for its numbers:
// go-ethereum's Message points to them.
type callMessage struct {
	msg                                      core.Message
	value, price, feeCap, tipCap, blobFeeCap uint256.Int
}

// message turns call arguments into a message with geth's eth_call defaults
// (TransactionArgs.CallDefaults and ToMessage): gas defaults to the cap and
// is capped by it, fees default to zero, the nonce is not checked.
func (s *Server) message(m *callMessage, args *codec.CallArgs, baseFee *big.Int) (*core.Message, error) {
	if args.HasGasPrice && (args.HasMaxFeePerGas || args.HasMaxPriorityFeePerGas) {
		return nil, errors.New("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	if !args.HasTo && args.BlobHashes != nil {
		return nil, core.ErrBlobTxCreate
	}
	if !args.HasTo && args.AuthorizationList != nil {
		return nil, core.ErrSetCodeTxCreate
	}
	chainID := s.b.Chain.Config().ChainID
	if args.HasChainID && args.ChainID.ToBig().Cmp(chainID) != 0 {
		return nil, fmt.Errorf("chainId does not match node's (have=%v, want=%v)", args.ChainID.ToBig(), chainID)
	}
	*m = callMessage{value: args.Value}
	msg := &m.msg
	msg.From, msg.Nonce, msg.GasLimit, msg.Value, msg.Data = args.From, args.Nonce, s.cfg.GasCap, &m.value, args.Data
	if args.HasTo {
		to := args.To
		msg.To = &to
	}
	if args.HasGas && (s.cfg.GasCap == 0 || args.Gas < s.cfg.GasCap) {
		msg.GasLimit = args.Gas
	}
	if msg.GasLimit == 0 {
		msg.GasLimit = math.MaxUint64 / 2
	}
	setFees(m, args, baseFee)
	if err := decodeCallLists(msg, args); err != nil {
		return nil, err
	}
	msg.SkipNonceCheck()
	msg.SkipEOACheck()
	msg.SkipGasLimitCapCheck()
	return msg, nil
}

func setFees(m *callMessage, args *codec.CallArgs, baseFee *big.Int) {
	msg := &m.msg
	switch {
	case args.HasGasPrice || baseFee == nil:
		m.price = args.GasPrice
		msg.GasPrice, msg.GasFeeCap, msg.GasTipCap = &m.price, &m.price, &m.price
	default:
		m.feeCap, m.tipCap = args.MaxFeePerGas, args.MaxPriorityFeePerGas
		msg.GasFeeCap, msg.GasTipCap, msg.GasPrice = &m.feeCap, &m.tipCap, &m.price
		if !msg.GasFeeCap.IsZero() || !msg.GasTipCap.IsZero() {
			var fee uint256.Int
			fee.SetFromBig(baseFee)
			msg.GasPrice.Add(msg.GasTipCap, &fee)
			if msg.GasPrice.Cmp(msg.GasFeeCap) > 0 {
				msg.GasPrice.Set(msg.GasFeeCap)
			}
		}
	}
	if args.HasMaxFeePerBlobGas || args.BlobHashes != nil {
		m.blobFeeCap = args.MaxFeePerBlobGas
		msg.BlobGasFeeCap = &m.blobFeeCap
	}
}

// decodeCallLists decodes the rarely used list fields (cold path).
func decodeCallLists(msg *core.Message, args *codec.CallArgs) error {
	if args.AccessList != nil {
		if err := json.Unmarshal(args.AccessList, &msg.AccessList); err != nil {
			return &invalidParamsError{fmt.Errorf("invalid argument 0: accessList: %w", err)}
		}
	}
	if args.AuthorizationList != nil {
		if err := json.Unmarshal(args.AuthorizationList, &msg.SetCodeAuthorizations); err != nil {
			return &invalidParamsError{fmt.Errorf("invalid argument 0: authorizationList: %w", err)}
		}
	}
	if args.BlobHashes != nil {
		if err := json.Unmarshal(args.BlobHashes, &msg.BlobHashes); err != nil {
			return &invalidParamsError{fmt.Errorf("invalid argument 0: blobVersionedHashes: %w", err)}
		}
	}
	return nil
}

// newEVM builds an EVM for a call on env over db; eth_call runs without the
// base fee rule so that a call without fees works (geth's NoBaseFee).
func (s *Server) newEVM(env *callEnv, db vm.StateDB, cfg vm.Config) *vm.EVM {
	bc := s.b.Chain.BlockChain()
	var blockCtx vm.BlockContext
	if env.calls != nil {
		// Made once per block and snapshot, not per call (the blob base
		// fee alone is a big-number exponential).
		blockCtx = env.calls.BlockContext(func() vm.BlockContext { return s.sharedBlockContext(env.header) })
	} else {
		blockCtx = core.NewEVMBlockContext(env.header, bc, nil)
		if o := env.block; o != nil && o.BlobBaseFee != nil {
			blockCtx.BlobBaseFee = o.BlobBaseFee.ToInt() // no header field: MakeHeader cannot set it
		}
	}
	cfg.NoBaseFee = true
	evm := vm.NewEVM(blockCtx, db, s.b.Chain.Config(), cfg)
	// Share the chain's analysis of contracts' jump destinations: a hot
	// contract is analysed once, not once per call.
	evm.SetJumpDestCache(bc.JumpDestCache())
	return evm
}

// sharedBlockContext is header's block context for concurrent calls:
// go-ethereum's GetHashFn caches into a slice, so BLOCKHASH reads the
// canonical hash instead (the chain never reorgs, and the EVM only asks for
// numbers below header's).
func (s *Server) sharedBlockContext(header *types.Header) vm.BlockContext {
	bc := s.b.Chain.BlockChain()
	ctx := core.NewEVMBlockContext(header, bc, nil)
	ctx.GetHash = bc.GetCanonicalHash
	return ctx
}

// run executes msg on env's state: a StateDB from env's pool, given back
// afterwards, or env's own.
func (s *Server) run(task *callbound.Task, env *callEnv, msg *core.Message) (*core.ExecutionResult, error) {
	if env.calls == nil {
		return s.execute(task, env, s.newEVM(env, env.state, vm.Config{}), msg)
	}
	st, err := env.calls.Get(msg.From)
	if err != nil {
		return nil, err
	}
	defer env.calls.Put(st)
	return s.execute(task, env, s.newEVM(env, st, vm.Config{}), msg)
}

// execute applies msg as eth_call does, with geth's words for a message
// that cannot run ("err: ... (supplied gas N)").
func (s *Server) execute(task *callbound.Task, env *callEnv, evm *vm.EVM, msg *core.Message) (*core.ExecutionResult, error) {
	res, err := s.apply(task, env, evm, msg)
	if err != nil && !isCancelled(err) {
		return nil, fmt.Errorf("err: %w (supplied gas %d)", err, msg.GasLimit)
	}
	return res, err
}

// cancelledError is apply's error for a stopped execution; it reads as why.
type cancelledError struct{ why error }

func (e *cancelledError) Error() string { return e.why.Error() }
func (e *cancelledError) Unwrap() error { return e.why }

func isCancelled(err error) bool {
	var c *cancelledError
	return errors.As(err, &c)
}

// apply applies msg until task (the call bound's, which carries the time
// limit, the request's deadline and the client's hang-up) is cancelled,
// then releases evm: its stack arena goes back to go-ethereum's pool
// instead of 32 KiB of garbage per call.
func (s *Server) apply(task *callbound.Task, env *callEnv, evm *vm.EVM, msg *core.Message) (*core.ExecutionResult, error) {
	defer evm.Release()
	if o := env.precompiles; o != nil {
		o.install(evm)
		defer o.release()
	} else {
		defer s.precompiles.install(evm).release()
	}
	if evm.Config.NoBaseFee {
		zeroUnpaidFees(&evm.Context, msg)
	}
	task.Watch(evm)
	defer task.Unwatch()
	res, err := core.ApplyMessage(evm, msg, core.NewGasPool(math.MaxUint64))
	if evm.Cancelled() {
		return nil, &cancelledError{s.aborted(task.Err())}
	}
	return res, err
}

// zeroUnpaidFees lowers the base fees a message does not pay to zero, as
// geth's eth_call, eth_estimateGas and eth_createAccessList do (ethapi's
// applyMessage and AccessList, gasestimator's run): BASEFEE reads 0 when
// the gas price is 0 (no fee fields, or zero ones), BLOBBASEFEE when the
// blob fee cap is a given 0, so a contract that reads its environment sees
// the same through both nodes. (eth_createAccessList as geth v1.17 has it:
// v1.16.7 filled in suggested fees first, and so ran on the block's base
// fee.) ctx is the EVM's own copy: the block context shared by a
// snapshot's calls is not touched, and the shared zero is never written.
func zeroUnpaidFees(ctx *vm.BlockContext, msg *core.Message) {
	if msg.GasPrice == nil || msg.GasPrice.IsZero() {
		ctx.BaseFee = common.Big0
	}
	if msg.BlobGasFeeCap != nil && msg.BlobGasFeeCap.IsZero() {
		ctx.BlobBaseFee = common.Big0
	}
}

// aborted says why a task of the call bound was stopped: geth's words for
// the EVM time limit, -32002 for the request's deadline.
func (s *Server) aborted(cause error) error {
	switch {
	case errors.Is(cause, callbound.ErrTimeLimit):
		return fmt.Errorf("execution aborted (timeout = %v)", s.cfg.EVMTimeout)
	case errors.Is(cause, callbound.ErrTimeout):
		return errTimeout
	case cause != nil:
		return cause
	default:
		return errors.New("execution aborted")
	}
}

// caller is the request's client as the call bound sees it.
func (r *request) caller() callbound.Caller {
	c := callbound.Caller{Deadline: r.deadline}
	if r.peer != nil {
		c.Key, c.Peer = r.peer.Key(), r.peer
	}
	return c
}

// bounded runs fn under the call bound with the EVM time limit.
func (s *Server) bounded(r *request, fn func(task *callbound.Task)) error {
	return s.b.Calls.Do(r.caller(), s.cfg.EVMTimeout, fn)
}

func ethCall(s *Server, r *request) error {
	msg, env, err := s.prepareCall(r, 4, true)
	if err != nil {
		return err
	}
	results := s.callResults(r, env)
	if results != nil {
		if ret, ok := results.Get(r.callKey); ok {
			s.callResultCount.hit.Inc()
			r.out = codec.AppendBytes(r.out, ret)
			return nil
		}
		s.callResultCount.miss.Inc()
	}
	var ret []byte
	var callErr error
	if err := s.bounded(r, func(task *callbound.Task) {
		res, err := s.run(task, env, msg)
		switch {
		case err != nil:
			callErr = err
		case len(res.Revert()) > 0:
			callErr = s.revertError(res.Revert())
		case res.Err != nil:
			callErr = res.Err
		default:
			ret = res.Return()
		}
	}); err != nil {
		return err
	}
	if callErr != nil {
		return callErr
	}
	if results != nil {
		results.Put(r.callKey, ret)
	}
	r.out = codec.AppendBytes(r.out, ret)
	return nil
}

// callResults returns the results remembered over the call's state, with
// r.callKey set to the call's key in them, or nil when the call's answer
// is not to be remembered: it overrides state or block (env.calls is then
// nil), or the node remembers none. The key is the gas cap, the one
// setting a successful call's return data depends on (gasleft()), and the
// call object as sent; the state, the block context and the precompiles
// are the pool's. Only successful calls are remembered: an error may be
// the time limit's or the client's hang-up, which another run would not
// repeat.
func (s *Server) callResults(r *request, env *callEnv) *callstate.Results {
	if env.calls == nil {
		return nil
	}
	results := env.calls.Results(s.cfg.CallResultsBytes)
	if results == nil {
		return nil
	}
	r.callKey = binary.BigEndian.AppendUint64(r.callKey[:0], s.cfg.GasCap)
	r.callKey = append(r.callKey, r.args[0]...)
	return results
}

// revertError is the spec's answer to a reverted call: -32000 "execution
// reverted" with the revert bytes as data. With Config.RevertReasons the
// message says why, "execution reverted: <reason>" (package revert), as
// geth's and anvil's do under code 3, and cast prints it; off by default,
// since viem decodes the data of a -32000 error (reason, custom error) only
// when its message is exactly "execution reverted". ethers and ethclient
// decode the data whatever the message says.
func (s *Server) revertError(data []byte) *codec.Error {
	msg := vm.ErrExecutionReverted.Error()
	if s.cfg.RevertReasons {
		if reason, ok := revert.Reason(data); ok {
			msg += ": " + reason
		}
	}
	return &codec.Error{Code: codec.CodeServer, Message: msg, Data: codec.AppendBytes(nil, data)}
}
