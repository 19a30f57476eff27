package tracing

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/node/callstate"
)

// Task is the request's share of the call bound (a *callbound.Task): it cancels
// what it watches when the request's deadline passes or its client hangs
// up, and says why.
type Task interface {
	Watch(c callbound.Canceler)
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
	// Prefixes, when set, keeps sealed blocks' states after traced
	// transactions, from which later traces of the same block replay;
	// Head is the chain's head, which bounds how old a kept state may be.
	Prefixes *Prefixes
	Head     uint64
	// JumpDests, when set, is the chain's cache of contracts' jump
	// destination analyses (core.BlockChain.JumpDestCache): a block's
	// transactions, each on an EVM of its own, analyse a contract once,
	// not once each.
	JumpDests vm.JumpDestCache

	releases   []func() // what Close gives back
	deadlines  deadlines
	callTracer *reusedCallTracer // the last callTracer built, for the next transaction
}

// TooLargeError says how big a response may be and what to ask instead.
type TooLargeError struct{ Room int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("trace larger than the %d bytes left in the response (--rpc.batch-response-max-size): "+
		"set the struct logger's \"limit\" (bytes of structLogs) or disableStack/disableStorage, leave enableMemory off, "+
		"or use a native tracer such as callTracer", e.Room)
}

// stopper ends a trace once: it stops the tracer with a reason, which the
// trace then answers, and cancels the EVM. As the request's task's
// Canceler it stops with the task's own reason. It is called from other
// goroutines than the trace's (the timeout's timer, the call pool's
// monitor on a client's hang-up, the node's shutdown), where a panic would
// end the process: a tracer's Stop that panics makes the trace's answer
// an error instead.
type stopper struct {
	once   sync.Once
	tracer *tracers.Tracer
	cfg    *Config // the tracer's, which errors name
	evm    *vm.EVM
	task   Task

	mu     sync.Mutex
	reason error
}

func (s *stopper) stop(err error) {
	s.once.Do(func() {
		reason := s.stopTracer(err)
		s.mu.Lock()
		s.reason = reason
		s.mu.Unlock()
		s.evm.Cancel()
	})
}

// stopTracer calls the tracer's Stop and returns the reason the trace
// answers: err, or the panic of the Stop.
func (s *stopper) stopTracer(err error) (reason error) {
	defer func() {
		if p := recover(); p != nil {
			reason = fmt.Errorf("tracing failed: stopping %s crashed: %v", s.cfg.describe(), p)
		}
	}()
	s.tracer.Stop(err)
	return err
}

// disarm ends s's part: a stop under way on another goroutine (a timeout
// that fired as the trace ended) is waited for, and none starts after, so
// that a tracer used again for the next transaction (reusedCallTracer) is
// not stopped by this one's.
func (s *stopper) disarm() {
	s.once.Do(func() {})
}

// Cancel is the task's: the request is over.
func (s *stopper) Cancel() {
	err := s.task.Err()
	if err == nil {
		err = errors.New("execution aborted")
	}
	s.stop(err)
}

// stopped is why the trace was stopped, or nil.
func (s *stopper) stopped() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason
}

// run is go-ethereum's API.traceTx: msg (of tx) traced in block context
// vmctx on st, with the node's bounds, on evm (made on vmctx) or, when it
// is nil, an EVM of its own with precompiles (nil: the fork's). room is
// what the response has left.
func (e *Env) run(cfg *Config, tx *types.Transaction, msg *core.Message, txctx *tracers.Context,
	vmctx vm.BlockContext, st *state.StateDB, warm *callstate.Warm, evm *vm.EVM, precompiles vm.PrecompiledContracts, room int) (res json.RawMessage, err error) {
	if room <= 0 {
		return nil, &TooLargeError{Room: max(room, 0)}
	}
	tracer, g, err := e.tracer(cfg, txctx, room)
	if err != nil {
		return nil, err
	}
	stop := &stopper{tracer: tracer, cfg: cfg, task: e.Task}
	defer stop.disarm()
	g.stop = func() { stop.stop(&TooLargeError{Room: room}) }
	db, evmCfg := warmOver(warm, state.NewHookedState(st, tracer.Hooks)), vm.Config{Tracer: tracer.Hooks, NoBaseFee: true}
	if evm != nil {
		evm.Config, evm.StateDB = evmCfg, db
	} else {
		evm = e.newEVM(vmctx, db, evmCfg)
		defer evm.Release()
		if precompiles != nil {
			evm.SetPrecompiles(precompiles)
		} else if e.Precompiles != nil {
			defer e.Precompiles(evm)()
		}
	}
	stop.evm = evm
	// Tracers are a large body of code run on clients' input: a panic is
	// this request's error, not the node's end. One stopped early may
	// crash on what it did not record (callTracer stopped before its
	// first frame reads it at the transaction's end): the reason it was
	// stopped is then the answer.
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, e.crashed(stop, p, panicSite())
		}
	}()
	timeout, capped := e.timeout(cfg)
	e.deadlines.start(stop, timeout, capped)
	defer e.deadlines.end()
	e.Task.Watch(stop)
	defer e.Task.Unwatch()

	st.SetTxContext(txctx.TxHash, txctx.TxIndex, uint32(txctx.TxIndex+1))
	_, err = applyTx(evm, msg, st, vmctx.BlockNumber, txctx.BlockHash, vmctx.Time, tx)
	if cause := e.Task.Err(); cause != nil {
		return nil, cause
	}
	if err != nil {
		return nil, fmt.Errorf("tracing failed: %w", err)
	}
	// A stopped tracer's result is the reason it was stopped: a tracer
	// without a Stop of its own would answer what it had recorded.
	if reason := stop.stopped(); reason != nil {
		return nil, reason
	}
	if res, err = tracer.GetResult(); err != nil {
		return nil, err
	}
	if len(res) > room {
		return nil, &TooLargeError{Room: room}
	}
	return res, nil
}

// newEVM is an EVM over db with the chain's jump destination analyses.
func (e *Env) newEVM(vmctx vm.BlockContext, db vm.StateDB, cfg vm.Config) *vm.EVM {
	evm := vm.NewEVM(vmctx, db, e.Config, cfg)
	if e.JumpDests != nil {
		evm.SetJumpDestCache(e.JumpDests)
	}
	return evm
}

// warmOver has warm, or a new Warm when it is nil, run over db: the warm
// set is go-ethereum's in effect, built for less (callstate.Warm).
func warmOver(warm *callstate.Warm, db vm.StateDB) *callstate.Warm {
	if warm == nil {
		return callstate.NewWarm(db)
	}
	warm.StateDB = db
	return warm
}

// crashed is the answer of a trace whose tracer panicked with p in the
// function site.
func (e *Env) crashed(stop *stopper, p any, site string) error {
	if cause := e.Task.Err(); cause != nil {
		return cause
	}
	if reason := stop.stopped(); reason != nil {
		return reason
	}
	return fmt.Errorf("tracing failed: %s crashed: %v (in %s)", stop.cfg.describe(), p, site)
}

// panicSite is the function that panicked, called from a deferred
// function while it recovers: the first caller past the runtime's panic
// frames, by its package's last element ("native.(*erc7562Tracer).OnOpcode").
func panicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		inRuntime := strings.HasPrefix(f.Function, "runtime.")
		if panicking && !inRuntime {
			return path.Base(f.Function)
		}
		panicking = panicking || inRuntime
		if !more {
			return "unknown"
		}
	}
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

// newTracer builds cfg's tracer for one transaction, metered by g (see
// guard.go); the struct logger stops recording once its logs pass room
// bytes (or the request's smaller "limit").
func (c *Config) newTracer(txctx *tracers.Context, chainConfig *params.ChainConfig, room int, g *guard) (*tracers.Tracer, error) {
	if name, ok := c.tracerName(); ok {
		return (&builder{txctx: txctx, chainConfig: chainConfig, g: g}).named(name, c.TracerConfig)
	}
	var lc logger.Config
	if c.Config != nil {
		lc = *c.Config
	}
	return structLogger(lc, room, g), nil
}

// describe names cfg's tracer in errors.
func (c *Config) describe() string {
	name, _ := c.tracerName()
	return describe(name, c.TracerConfig)
}
