// Package tracing runs go-ethereum's own tracers (the struct logger of
// eth/tracers/logger and the native tracers of eth/tracers/native) over a
// block's transactions or over a call, the way go-ethereum's debug API
// (eth/tracers.API) does, with the bounds a public endpoint needs: a
// request's cancellation, a capped per-transaction timeout, and a result
// that never grows past the response's room.
//
// JavaScript tracers are not served: a tracer given as JavaScript source is
// arbitrary code whose memory nothing bounds within its timeout, and the
// native tracers are what tools call (callTracer, prestateTracer, the
// struct logger).
package tracing

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // registers the native tracers
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/override"
)

// DefaultTimeout is a transaction's trace timeout when the request gives
// none (go-ethereum's).
const DefaultTimeout = 5 * time.Second

// tracerNames are the named tracers served (eth/tracers/native's); no
// name is the struct logger.
func tracerNames() []string {
	return []string{"4byteTracer", "callTracer", "erc7562Tracer", "flatCallTracer",
		"keccak256PreimageTracer", "muxTracer", "noopTracer", "prestateTracer"}
}

// Config is a trace request's configuration: go-ethereum's TraceConfig
// (tracer, tracerConfig, timeout and the struct logger's options), checked.
// go-ethereum 1.16's "reexec" is accepted and ignored: a state is either
// kept or pruned, never rebuilt by re-executing older blocks.
type Config struct {
	tracers.TraceConfig
	timeout time.Duration // 0: DefaultTimeout
}

// CallConfig is debug_traceCall's configuration: go-ethereum's
// TraceCallConfig, whose state and block overrides are package override's.
type CallConfig struct {
	Config
	stateOverrides override.State
	blockOverrides *override.Block
	txIndex        *hexutil.Uint
}

// ParseConfig decodes and checks raw (nil: the defaults) as go-ethereum's
// TraceConfig. chainConfig is the chain's, which tracers are built for.
func ParseConfig(raw []byte, chainConfig *params.ChainConfig) (*Config, error) {
	c := new(Config)
	if raw != nil {
		if err := json.Unmarshal(raw, &c.TraceConfig); err != nil {
			return nil, err
		}
	}
	if err := c.check(chainConfig); err != nil {
		return nil, err
	}
	return c, nil
}

// callConfigJSON is TraceCallConfig's wire shape, the overrides kept raw
// for package override's strict decoding. (Keys match case-insensitively,
// as go-ethereum's untagged fields do.)
type callConfigJSON struct {
	tracers.TraceConfig
	StateOverrides json.RawMessage `json:"stateOverrides"`
	BlockOverrides json.RawMessage `json:"blockOverrides"`
	TxIndex        *hexutil.Uint   `json:"txIndex"`
}

// ParseCallConfig decodes and checks raw (nil: the defaults) as
// go-ethereum's TraceCallConfig.
func ParseCallConfig(raw []byte, chainConfig *params.ChainConfig) (*CallConfig, error) {
	c := new(CallConfig)
	if raw != nil {
		var in callConfigJSON
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, err
		}
		var err error
		if c.stateOverrides, err = override.ParseState(in.StateOverrides); err != nil {
			return nil, fmt.Errorf("stateOverrides: %w", err)
		}
		if c.blockOverrides, err = override.ParseBlock(in.BlockOverrides); err != nil {
			return nil, fmt.Errorf("blockOverrides: %w", err)
		}
		if err := c.blockOverrides.ForCall(); err != nil {
			return nil, err
		}
		c.TraceConfig, c.txIndex = in.TraceConfig, in.TxIndex
	}
	if err := c.check(chainConfig); err != nil {
		return nil, err
	}
	return c, nil
}

// check validates the timeout and the tracer, and builds the tracer once
// so that a bad tracerConfig is a bad parameter, found before any work.
func (c *Config) check(chainConfig *params.ChainConfig) error {
	if c.Timeout != nil {
		d, err := time.ParseDuration(*c.Timeout)
		if err != nil {
			return err
		}
		c.timeout = d
	}
	name, ok := c.tracerName()
	if !ok {
		return nil
	}
	if err := checkName(name, c.TracerConfig); err != nil {
		return err
	}
	b := &builder{txctx: &tracers.Context{BlockNumber: new(big.Int)}, chainConfig: chainConfig}
	if _, err := b.named(name, c.TracerConfig); err != nil {
		return fmt.Errorf("tracerConfig: %w", err)
	}
	return nil
}

// tracerName is the named tracer asked for; false means the struct logger
// (no tracer, or an empty name as the execution-apis specify).
func (c *Config) tracerName() (string, bool) {
	if c.Tracer == nil || *c.Tracer == "" {
		return "", false
	}
	return *c.Tracer, true
}

// checkName rejects names that are not native tracers, and the muxTracer's
// sub-tracers that are not: go-ethereum would evaluate them as JavaScript.
func checkName(name string, cfg json.RawMessage) error {
	if tracers.DefaultDirectory.IsJS(name) {
		return fmt.Errorf("unknown tracer %q: the tracers served are %s, and the struct logger when no tracer is given (JavaScript tracers are not served)",
			shorten(name), strings.Join(tracerNames(), ", "))
	}
	if name != "muxTracer" {
		return nil
	}
	subs, err := muxConfig(cfg)
	if err != nil {
		return fmt.Errorf("tracerConfig: %w", err)
	}
	for sub, subCfg := range subs {
		if err := checkName(sub, subCfg); err != nil {
			return fmt.Errorf("muxTracer: %w", err)
		}
	}
	return nil
}

// muxConfig is a muxTracer's configuration: its tracers by name.
func muxConfig(cfg json.RawMessage) (map[string]json.RawMessage, error) {
	var subs map[string]json.RawMessage
	if len(cfg) == 0 {
		return subs, nil
	}
	if err := json.Unmarshal(cfg, &subs); err != nil {
		return nil, err
	}
	return subs, nil
}

// shorten keeps an error message short when a client sends JavaScript
// source as a tracer name.
func shorten(s string) string {
	const most = 64
	if len(s) <= most {
		return s
	}
	return s[:most] + "..."
}

// TxIndex is the transaction of the block whose state (before it) the
// call runs on, when the request names one.
func (c *CallConfig) TxIndex() (int, bool) {
	if c.txIndex == nil {
		return 0, false
	}
	return int(*c.txIndex), true
}

// BlockContext is the context of a call in the block of header, with the
// block overrides applied as go-ethereum's TraceCall applies them:
// overriding the number to the next block's also makes BLOCKHASH of
// header's number answer header's hash.
func (c *CallConfig) BlockContext(header *types.Header, chain core.ChainContext) (vm.BlockContext, error) {
	h := types.CopyHeader(header)
	ctx := core.NewEVMBlockContext(h, chain, nil)
	o := c.blockOverrides
	if o == nil {
		return ctx, nil
	}
	if o.Number != nil && uint64(*o.Number) == h.Number.Uint64()+1 {
		// The context's BLOCKHASH reads h when it runs: as go-ethereum,
		// make the overridden block the child of header.
		h.ParentHash = h.Hash()
		h.Number = new(big.Int).Add(h.Number, common.Big1)
	}
	if err := o.Apply(&ctx); err != nil {
		return vm.BlockContext{}, err
	}
	return ctx, nil
}

// ApplyState applies the state overrides to st (package override, as
// go-ethereum's TraceCall applies them). It returns the precompiles the
// call must run with when the overrides move or replace one, else nil (the
// fork's).
func (c *CallConfig) ApplyState(st *state.StateDB, rules params.Rules) (vm.PrecompiledContracts, error) {
	if c.stateOverrides == nil {
		return nil, nil
	}
	precompiles := vm.ActivePrecompiledContracts(rules)
	changed, err := c.stateOverrides.Apply(st, precompiles)
	if err != nil || !changed {
		return nil, err
	}
	return precompiles, nil
}

// errTimeout is go-ethereum's word for a trace past its timeout.
var errTimeout = errors.New("execution timeout")
