package tracing

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/eth/tracers/native"
	"github.com/ethereum/go-ethereum/params"
)

// Tracers are built here rather than by go-ethereum's directory alone:
// some have no Stop (keccak256PreimageTracer's is nil, and the muxTracer
// calls each child's), and a timeout or a client's hang-up stops a trace
// from another goroutine, where a nil Stop took the node down. Every
// tracer here has one, a mux's children included: the mux is built here
// over children built here.

// builder builds one transaction's tracers.
type builder struct {
	txctx       *tracers.Context
	chainConfig *params.ChainConfig
}

// named builds the tracer name with its configuration.
func (b *builder) named(name string, cfg json.RawMessage) (*tracers.Tracer, error) {
	if len(cfg) == 0 {
		cfg = json.RawMessage("{}") // as go-ethereum's directory
	}
	if name == "muxTracer" {
		return b.mux(cfg)
	}
	t, err := tracers.DefaultDirectory.New(name, b.txctx, cfg, b.chainConfig)
	if err != nil {
		return nil, err
	}
	if t.Stop == nil {
		t.Stop = func(error) {}
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
