package tracing

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
	"github.com/ethereum/go-ethereum/eth/tracers/native"
	"github.com/ethereum/go-ethereum/params"
)

// Tracers are built here rather than by go-ethereum's directory alone, for
// two reasons. Some have no Stop (keccak256PreimageTracer's is nil, and
// the muxTracer calls each child's), and a timeout or a client's hang-up
// stops a trace from another goroutine, where a nil Stop took the node
// down: every tracer here, a mux's children included, has one. And each
// gets the meter that bounds what it keeps (guard.go), which a mux cannot
// give its children: the mux is built here over children built here.

// builder builds one transaction's tracers: g, when not nil, meters them.
type builder struct {
	txctx       *tracers.Context
	chainConfig *params.ChainConfig
	g           *guard
}

// named builds the tracer name with its configuration.
func (b *builder) named(name string, cfg json.RawMessage) (*tracers.Tracer, error) {
	if len(cfg) == 0 {
		cfg = json.RawMessage("{}") // as go-ethereum's directory
	}
	if name == "muxTracer" {
		return b.mux(cfg)
	}
	var t *tracers.Tracer
	var err error
	if name == "callTracer" {
		t, err = newCallTracer(cfg)
	} else {
		t, err = tracers.DefaultDirectory.New(name, b.txctx, cfg, b.chainConfig)
	}
	if err != nil {
		return nil, err
	}
	if t.Stop == nil {
		t.Stop = func(error) {}
	}
	if b.g == nil {
		return t, nil
	}
	m, err := newMeter(name, cfg, b.chainConfig)
	if err != nil {
		return nil, err
	}
	if m != nil {
		t.Hooks = b.g.wrap(t.Hooks, m)
	}
	return t, nil
}

// mux is go-ethereum's muxTracer over children built here, in the order
// of their names (go-ethereum's follows a map's).
func (b *builder) mux(cfg json.RawMessage) (*tracers.Tracer, error) {
	var subs map[string]json.RawMessage
	if err := json.Unmarshal(cfg, &subs); err != nil {
		return nil, err
	}
	names := slices.Sorted(maps.Keys(subs))
	children := make([]*tracers.Tracer, 0, len(names))
	for _, name := range names {
		t, err := b.named(name, subs[name])
		if err != nil {
			return nil, err
		}
		children = append(children, t)
	}
	return native.NewMuxTracer(names, children)
}

// newMeter is the meter of the tracer name with cfg (which the tracer
// accepted), or nil for one that keeps nothing that grows (noopTracer).
func newMeter(name string, cfg json.RawMessage, chainConfig *params.ChainConfig) (*meter, error) {
	switch name {
	case "callTracer":
		var c struct{ OnlyTopCall bool }
		if !emptyConfig(cfg) {
			if err := json.Unmarshal(cfg, &c); err != nil {
				return nil, err
			}
		}
		return (&frames{least: callFrameLeast, onlyTop: c.OnlyTopCall}).meter(), nil
	case "flatCallTracer":
		var c struct{ IncludePrecompiles bool }
		if err := json.Unmarshal(cfg, &c); err != nil {
			return nil, err
		}
		f := &frames{least: callFrameLeast, flat: true, dropsPrecompiles: !c.IncludePrecompiles, chainConfig: chainConfig}
		return f.meter(), nil
	case "erc7562Tracer":
		var c erc7562Config
		if err := json.Unmarshal(cfg, &c); err != nil {
			return nil, err
		}
		return newERC7562(c).meter(), nil
	case "keccak256PreimageTracer":
		return keccakMeter(), nil
	case "prestateTracer":
		var c native.PrestateTracerConfig
		if err := json.Unmarshal(cfg, &c); err != nil {
			return nil, err
		}
		return prestateMeter(c, chainConfig), nil
	case "4byteTracer":
		return fourByteMeter(chainConfig), nil
	}
	return nil, nil
}

// structLogger is the struct logger with cfg, recording at most limit
// bytes of logs; g, when not nil, meters it.
func structLogger(cfg logger.Config, limit int, g *guard) *tracers.Tracer {
	metered := cfg.Limit <= 0 || cfg.Limit >= limit
	if metered {
		cfg.Limit = limit
	}
	l := logger.NewStructLogger(&cfg)
	t := &tracers.Tracer{Hooks: l.Hooks(), GetResult: l.GetResult, Stop: l.Stop}
	// A smaller limit of the request's own keeps the logs within it: the
	// result is what it asked for, never refused.
	if g != nil && metered {
		t.Hooks = g.wrap(t.Hooks, structLogMeter(cfg))
	}
	return t
}

// describe names the tracer of cfg in errors: a muxTracer with its
// children.
func describe(name string, cfg json.RawMessage) string {
	if name == "" {
		return "the struct logger"
	}
	if name != "muxTracer" {
		return "tracer " + shorten(name)
	}
	subs, err := muxConfig(cfg)
	if err != nil || len(subs) == 0 {
		return "tracer muxTracer"
	}
	var children []string
	for _, sub := range slices.Sorted(maps.Keys(subs)) {
		children = append(children, strings.TrimPrefix(describe(sub, subs[sub]), "tracer "))
	}
	return "tracer muxTracer (" + strings.Join(children, ", ") + ")"
}
