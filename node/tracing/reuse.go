package tracing

import "github.com/ethereum/go-ethereum/eth/tracers"

// reusedCallTracer is a callTracer with its meter and guard, built once
// for a request's configuration and reset for each of its transactions.
// Building them for every transaction (the tracer's hooks, the meter's,
// the guard's wrappers around them) was a twentieth of tracing a block of
// token transfers; callTracer is what block explorers and indexers ask
// for. The other tracers are built for each transaction.
type reusedCallTracer struct {
	cfg    *Config // the configuration it was built for
	call   *callTracer
	frames *frames
	g      *guard
	tracer *tracers.Tracer // call's hooks, metered by frames into g
}

// newReusedCallTracer is cfg's callTracer, metered.
func newReusedCallTracer(cfg *Config) (*reusedCallTracer, error) {
	call, err := parseCallTracer(cfg.TracerConfig)
	if err != nil {
		return nil, err
	}
	r := &reusedCallTracer{cfg: cfg, call: call, g: new(guard), tracer: call.tracer()}
	r.frames = &frames{least: callFrameLeast, onlyTop: call.onlyTopCall}
	r.tracer.Hooks = r.g.wrap(r.tracer.Hooks, r.frames.meter())
	return r, nil
}

// reset readies r for a transaction whose result may take room bytes.
func (r *reusedCallTracer) reset(room int) {
	*r.g = guard{room: room}
	r.frames.open = r.frames.open[:0]
	r.call.reset()
}

// tracer is cfg's tracer for one transaction, and the guard that meters
// it against room (its stop is the caller's to set).
func (e *Env) tracer(cfg *Config, txctx *tracers.Context, room int) (*tracers.Tracer, *guard, error) {
	if r := e.callTracer; r != nil && r.cfg == cfg {
		r.reset(room)
		return r.tracer, r.g, nil
	}
	if name, _ := cfg.tracerName(); name == "callTracer" {
		r, err := newReusedCallTracer(cfg)
		if err != nil {
			return nil, nil, err
		}
		e.callTracer = r
		r.reset(room)
		return r.tracer, r.g, nil
	}
	g := &guard{room: room}
	tracer, err := cfg.newTracer(txctx, e.Config, room, g)
	return tracer, g, err
}
