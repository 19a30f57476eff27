// Package rpc is the node's JSON-RPC method table and handlers. It turns one
// request body (a single request or a batch) into one response body; the
// transport (HTTP, WebSocket) is someone else's job.
package rpc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/metrics"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/txpool"
	"github.com/stocknode/stocknode/pool"
)

// Config holds the limits of the method set, with geth's defaults.
type Config struct {
	// GasCap caps the gas of eth_call and eth_estimateGas; omitted gas means this.
	GasCap uint64
	// EVMTimeout bounds one eth_call.
	EVMTimeout time.Duration
	// LogsBlockRange caps the block range of eth_getLogs and log filters.
	LogsBlockRange uint64
	// BatchLimit is the most requests one batch may hold.
	BatchLimit int
	// BatchResponseLimit is the most bytes one batch response may hold.
	BatchResponseLimit int
	// FilterTimeout expires filters that nobody polled for this long.
	FilterTimeout time.Duration
	// ClientVersion is what web3_clientVersion answers.
	ClientVersion string
	// AllowUnprotectedTxs accepts transactions signed without a chain ID.
	AllowUnprotectedTxs bool
}

// DefaultConfig returns geth's defaults.
func DefaultConfig() Config {
	return Config{
		GasCap:             50_000_000,
		EVMTimeout:         5 * time.Second,
		LogsBlockRange:     10_000,
		BatchLimit:         1000,
		BatchResponseLimit: 25 * 1000 * 1000,
		FilterTimeout:      5 * time.Minute,
		ClientVersion:      "stocknode/v0.1.0",
	}
}

// Backend is what the handlers read and write.
type Backend struct {
	Chain     *chain.Chain
	Pool      *txpool.Pool
	Snapshots *pending.Store
	Calls     *pool.Pool // runs eth_call and eth_estimateGas
}

// Server dispatches JSON-RPC requests. It is safe for concurrent use.
type Server struct {
	cfg      Config
	b        Backend
	methods  map[string]*method
	unknown  *method // counts requests for methods that do not exist
	filters  *filterSet
	requests sync.Pool // *request
}

// method is a handler with its counters; the map is read-only after New,
// so a lookup by the request's method bytes neither locks nor allocates.
type method struct {
	run      handler
	ok, fail *metrics.Counter
	duration *metrics.Histogram
}

// handler runs one method: it appends the JSON result to r.out or returns an
// error, which the server turns into a JSON-RPC error object.
type handler func(s *Server, r *request) error

// maxArgs is the most positional parameters any method takes.
const maxArgs = 4

// request is the per-call scratch state, pooled so a hot call allocates nothing.
type request struct {
	ctx   context.Context
	snap  *pending.Snapshot // one snapshot for the whole request: no torn reads
	args  [maxArgs][]byte
	nargs int
	out   []byte
	call  codec.CallArgs // reusable decode buffer for call objects
	msg   callMessage    // reusable message built from call
	req   codec.Request
}

// New returns a server over b; reg (may be nil) receives its metrics.
func New(cfg Config, b Backend, reg *metrics.Registry) *Server {
	if reg == nil {
		reg = metrics.NewRegistry()
	}
	s := &Server{cfg: cfg, b: b, filters: newFilterSet(cfg.FilterTimeout), methods: map[string]*method{}}
	for name, h := range methodTable() {
		s.methods[name] = newMethod(reg, name, h)
	}
	s.unknown = newMethod(reg, "unknown", nil)
	s.requests.New = func() any { return new(request) }
	return s
}

func newMethod(reg *metrics.Registry, name string, h handler) *method {
	const help = "JSON-RPC requests by method and outcome."
	return &method{
		run:      h,
		ok:       reg.Counter(`rpc_requests_total{method="`+name+`",outcome="ok"}`, help),
		fail:     reg.Counter(`rpc_requests_total{method="`+name+`",outcome="error"}`, help),
		duration: reg.Histogram(`rpc_request_duration_seconds{method="`+name+`"}`, "JSON-RPC request latency by method."),
	}
}

// Close stops background work (filter expiry).
func (s *Server) Close() { s.filters.close() }

// Extension answers methods a transport adds to the table (eth_subscribe
// over WebSocket). It appends a whole response to dst and reports true, or
// reports false for a method it does not know.
type Extension func(req *codec.Request, dst []byte) ([]byte, bool)

// Handle answers body, a single request or a batch, by appending the
// response to dst. It returns dst unchanged when nothing is to be sent back
// (a notification, or a batch of notifications).
func (s *Server) Handle(ctx context.Context, body, dst []byte) []byte {
	return s.HandleWith(ctx, body, dst, nil)
}

// HandleWith is Handle with the transport's extra methods.
func (s *Server) HandleWith(ctx context.Context, body, dst []byte, ext Extension) []byte {
	if !codec.IsBatch(body) {
		return s.handleSingle(ctx, body, dst, ext)
	}
	return s.handleBatch(ctx, body, dst, ext)
}

func (s *Server) handleBatch(ctx context.Context, body, dst []byte, ext Extension) []byte {
	if !codec.Valid(body) {
		return codec.AppendError(dst, nil, codec.ErrParse)
	}
	it, err := codec.Array(body)
	if err != nil {
		return codec.AppendError(dst, nil, codec.ErrParse)
	}
	count, firstID := 0, []byte(nil)
	for it.Next() {
		if count == 0 {
			var req codec.Request
			if codec.ScanRequest(it.Value(), &req) == nil {
				firstID = req.ID
			}
		}
		count++
	}
	switch {
	case count == 0:
		return codec.AppendError(dst, nil, &codec.Error{Code: codec.CodeInvalidRequest, Message: "empty batch"})
	case count > s.cfg.BatchLimit:
		dst = append(dst, '[')
		dst = codec.AppendError(dst, firstID, &codec.Error{Code: codec.CodeInvalidRequest, Message: "batch too large"})
		return append(dst, ']')
	}
	start := len(dst)
	dst = append(dst, '[')
	it, _ = codec.Array(body)
	for it.Next() {
		before := len(dst)
		if before > start+1 {
			dst = append(dst, ',')
		}
		if len(dst)-start > s.cfg.BatchResponseLimit {
			dst = s.appendTooLarge(dst, it.Value())
			continue
		}
		if next := s.handleSingle(ctx, it.Value(), dst, ext); len(next) == len(dst) {
			dst = dst[:before] // a notification: no element, no comma
		} else {
			dst = next
		}
	}
	if len(dst) == start+1 {
		return dst[:start] // only notifications
	}
	return append(dst, ']')
}

// appendTooLarge answers a batch element once the batch response is full.
func (s *Server) appendTooLarge(dst, elem []byte) []byte {
	var req codec.Request
	if codec.ScanRequest(elem, &req) != nil || req.ID == nil {
		return dst
	}
	return codec.AppendError(dst, req.ID, &codec.Error{Code: codec.CodeResponseTooLarge, Message: "response too large"})
}

func (s *Server) handleSingle(ctx context.Context, body, dst []byte, ext Extension) []byte {
	// The envelope lives in the pooled request: a local would escape
	// through ext and cost an allocation per call.
	r := s.requests.Get().(*request)
	defer s.release(r)
	req := &r.req
	if cerr := codec.ScanRequest(body, req); cerr != nil {
		return codec.AppendError(dst, req.ID, cerr)
	}
	if ext != nil {
		if out, ok := ext(req, dst); ok {
			return out
		}
	}
	m, ok := s.methods[string(req.Method)]
	if !ok {
		s.unknown.fail.Inc()
		if req.ID == nil {
			return dst
		}
		return codec.AppendError(dst, req.ID, &codec.Error{Code: codec.CodeMethodNotFound,
			Message: "the method " + string(req.Method) + " does not exist/is not available"})
	}
	start := time.Now()
	defer func() { m.duration.Observe(time.Since(start)) }()
	r.ctx, r.snap = ctx, s.b.Snapshots.Load()
	if err := r.splitArgs(req.Params); err != nil {
		m.fail.Inc()
		return codec.AppendError(dst, req.ID, invalidParams(err))
	}
	r.out = codec.AppendResultStart(dst, req.ID)
	mark := len(r.out)
	if err := m.run(s, r); err != nil {
		m.fail.Inc()
		return codec.AppendError(r.out[:len(dst)], req.ID, toError(err))
	}
	m.ok.Inc()
	if len(r.out) == mark {
		r.out = append(r.out, "null"...)
	}
	out := codec.AppendResultEnd(r.out)
	if req.ID == nil {
		return out[:len(dst)]
	}
	return out
}

func (s *Server) release(r *request) {
	r.ctx, r.snap, r.out, r.req = nil, nil, nil, codec.Request{}
	r.args = [maxArgs][]byte{}
	s.requests.Put(r)
}

// splitArgs keeps the positional parameters as raw JSON values.
func (r *request) splitArgs(params []byte) error {
	r.nargs = 0
	if params == nil {
		return nil
	}
	it, err := codec.Array(params)
	if err != nil {
		return errors.New("non-array args")
	}
	for it.Next() {
		if r.nargs == maxArgs {
			return fmt.Errorf("too many arguments, want at most %d", maxArgs)
		}
		r.args[r.nargs] = it.Value()
		r.nargs++
	}
	return it.Err()
}
