package tracing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/pool"
)

// Task is the request's share of the call bound (a *pool.Task): it cancels
// what it watches when the request's deadline passes or its client hangs
// up, and says why.
type Task interface {
	Watch(c pool.Canceler)
	Unwatch()
	Err() error
}

// Env is where one request's traces run.
type Env struct {
	// Chain answers BLOCKHASH and the block's coinbase.
	Chain core.ChainContext
	// Config is the chain's fork configuration.
	Config *params.ChainConfig
	// Task cancels the work of a request that is over.
	Task Task
	// MaxTimeout caps a transaction's trace timeout (--rpc.evmtimeout); 0
	// sets no cap.
	MaxTimeout time.Duration
	// Precompiles installs the node's precompiles into an EVM and returns
	// what gives them back; nil keeps go-ethereum's.
	Precompiles func(evm *vm.EVM) (release func())
}

// TooLargeError says how big a response may be and what to ask instead.
type TooLargeError struct{ Room int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("trace larger than the %d bytes left in the response (--rpc.batch-response-max-size): "+
		"set the struct logger's \"limit\" (bytes of structLogs) or disableStack/disableStorage, leave enableMemory off, "+
		"or use a native tracer such as callTracer", e.Room)
}

// stopper ends a trace once: it stops the tracer with a reason, which
// GetResult then answers, and cancels the EVM. As the request's task's
// Canceler it stops with the task's own reason.
type stopper struct {
	once   sync.Once
	tracer *tracers.Tracer
	evm    *vm.EVM
	task   Task
}

func (s *stopper) stop(err error) {
	s.once.Do(func() {
		s.tracer.Stop(err)
		s.evm.Cancel()
	})
}

// Cancel is the task's: the request is over.
func (s *stopper) Cancel() {
	err := s.task.Err()
	if err == nil {
		err = errors.New("execution aborted")
	}
	s.stop(err)
}

// run is go-ethereum's API.traceTx: msg (of tx) traced in block context
// vmctx on st, with the node's bounds. room is what the response has left.
func (e *Env) run(cfg *Config, tx *types.Transaction, msg *core.Message, txctx *tracers.Context,
	vmctx vm.BlockContext, st *state.StateDB, precompiles vm.PrecompiledContracts, room int) (res json.RawMessage, err error) {
	if room <= 0 {
		return nil, &TooLargeError{Room: max(room, 0)}
	}
	tracer, err := cfg.newTracer(txctx, e.Config, room)
	if err != nil {
		return nil, err
	}
	stop := &stopper{tracer: tracer, task: e.Task}
	hooks := tracer.Hooks
	if cfg.copiesCalls {
		hooks = (&guard{room: room, stop: func() { stop.stop(&TooLargeError{Room: room}) }}).wrap(hooks)
	}
	evm := vm.NewEVM(vmctx, state.NewHookedState(st, hooks), e.Config, vm.Config{Tracer: hooks, NoBaseFee: true})
	defer evm.Release()
	stop.evm = evm
	if precompiles != nil {
		evm.SetPrecompiles(precompiles)
	} else if e.Precompiles != nil {
		defer e.Precompiles(evm)()
	}
	// Tracers are a large body of code run on clients' input: a panic is
	// this request's error, not the node's end.
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("tracing failed: tracer crashed: %v", p)
		}
	}()
	timeout, capped := e.timeout(cfg)
	timer := time.AfterFunc(timeout, func() { stop.stop(timeoutError(timeout, capped)) })
	defer timer.Stop()
	e.Task.Watch(stop)
	defer e.Task.Unwatch()

	st.SetTxContext(txctx.TxHash, txctx.TxIndex, uint32(txctx.TxIndex+1))
	_, _, err = core.ApplyTransactionWithEVM(context.Background(), msg, core.NewGasPool(msg.GasLimit), st, vmctx.BlockNumber, txctx.BlockHash, vmctx.Time, tx, evm)
	if cause := e.Task.Err(); cause != nil {
		return nil, cause
	}
	if err != nil {
		return nil, fmt.Errorf("tracing failed: %w", err)
	}
	if res, err = tracer.GetResult(); err != nil {
		return nil, err
	}
	if len(res) > room {
		return nil, &TooLargeError{Room: room}
	}
	return res, nil
}

// timeout is cfg's trace timeout and whether the node's cap cut it.
func (e *Env) timeout(cfg *Config) (time.Duration, bool) {
	d := cfg.timeout
	if cfg.Timeout == nil {
		d = DefaultTimeout
	}
	if e.MaxTimeout > 0 && d > e.MaxTimeout {
		return e.MaxTimeout, true
	}
	return d, false
}

// timeoutError is go-ethereum's "execution timeout", which says so when
// the node's cap, not the request, set the time.
func timeoutError(d time.Duration, capped bool) error {
	if !capped {
		return errTimeout
	}
	return fmt.Errorf("%w (this node traces a transaction for at most %v, --rpc.evmtimeout)", errTimeout, d)
}

// newTracer builds cfg's tracer for one transaction; the struct logger
// stops recording once its logs pass room bytes (or the request's smaller
// "limit"), so that it never holds much more than the response can take.
func (c *Config) newTracer(txctx *tracers.Context, chainConfig *params.ChainConfig, room int) (*tracers.Tracer, error) {
	if name, ok := c.tracerName(); ok {
		return tracers.DefaultDirectory.New(name, txctx, c.TracerConfig, chainConfig)
	}
	var lc logger.Config
	if c.Config != nil {
		lc = *c.Config
	}
	if lc.Limit <= 0 || lc.Limit > room {
		lc.Limit = room
	}
	l := logger.NewStructLogger(&lc)
	return &tracers.Tracer{Hooks: l.Hooks(), GetResult: l.GetResult, Stop: l.Stop}, nil
}
