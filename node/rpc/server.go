// Package rpc is the node's JSON-RPC method table and handlers. It turns one
// request body (a single request or a batch) into one response body; the
// transport (HTTP, WebSocket) is someone else's job.
package rpc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/metrics"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/tracing"
	"github.com/stocknode/stocknode/node/txpool"
	"github.com/stocknode/stocknode/node/txwait"
	"github.com/stocknode/stocknode/peer"
	"github.com/stocknode/stocknode/ratelimit"
)

// Config holds the limits of the method set, with geth's defaults.
type Config struct {
	// GasCap caps the gas of eth_call and eth_estimateGas; omitted gas means this.
	GasCap uint64
	// EVMTimeout bounds one eth_call.
	EVMTimeout time.Duration
	// LogsBlockRange caps the block range of eth_getLogs and log filters.
	LogsBlockRange uint64
	// LogsMaxResults caps the logs one query returns; past it the answer is
	// an error that names the range that fits.
	LogsMaxResults int
	// BatchLimit is the most requests one batch may hold.
	BatchLimit int
	// BatchResponseLimit is the most bytes one response may hold, a batch's
	// as a whole; handlers that build long lists stop when they would pass it.
	BatchResponseLimit int
	// RequestTimeout is the deadline of one request, and of a batch as a
	// whole: queued calls past it are dropped, running ones cancelled, and
	// the batch's remaining elements answered -32002 "request timed out".
	RequestTimeout time.Duration
	// FilterTimeout expires filters that nobody polled for this long.
	FilterTimeout time.Duration
	// MaxFilters caps installed polling filters in all, FiltersPerClient
	// per client; 0: no cap.
	MaxFilters, FiltersPerClient int
	// ClientVersion is what web3_clientVersion answers.
	ClientVersion string
	// AllowUnprotectedTxs accepts transactions signed without a chain ID.
	AllowUnprotectedTxs bool
	// RateLimit meters each client's requests and compute units; off when
	// its rates are zero.
	RateLimit ratelimit.Config
	// MaxStorageKeys caps the storage keys of one eth_getProof and the slots
	// of one eth_getStorageValues (geth: 1024); 0: no cap.
	MaxStorageKeys int
	// SimulateMaxBlocks caps eth_simulateV1's blocks, gaps in their numbers
	// included (0: 256), SimulateMaxCalls its calls in all (0: no cap).
	SimulateMaxBlocks, SimulateMaxCalls int
	// BlockTime is the chain's (--block-time): eth_simulateV1 spaces
	// blocks without a timestamp by it; 0: 12 s, as geth.
	BlockTime time.Duration
	// PreconfirmedReceipts makes the Standard view (/) answer as the
	// Preconf one (/preconf): pre-confirmed transactions' receipts and
	// block positions as Base's Flashblocks RPC gives them. Off (the
	// default), a receipt on / means a sealed block.
	PreconfirmedReceipts bool
	// ReceiptHold is how long after a client's eth_sendRawTransaction the
	// Standard view shows that client the chain as it was before the
	// transaction's block sealed (sendhold.go: ethers' 250 ms request
	// cache); 0: never.
	ReceiptHold time.Duration
	// TxSyncDefaultTimeout is how long eth_sendRawTransactionSync waits for
	// the receipt when its request names no valid timeout, TxSyncMaxTimeout
	// the most it waits whatever the request says (geth's
	// --rpc.txsync.defaulttimeout, --rpc.txsync.maxtimeout).
	TxSyncDefaultTimeout, TxSyncMaxTimeout time.Duration
	// RevertReasons makes a reverted eth_call's and eth_estimateGas's
	// message say why, "execution reverted: <reason>" (Error(string)'s
	// reason, a panic's meaning, a shipped contract's custom error); code
	// and data stay the spec's. Off (the default), the message is exactly
	// "execution reverted", which viem needs to decode the data of a
	// -32000 error.
	RevertReasons bool
	// TracePrefixBytes bounds the states of sealed blocks that traces
	// keep for later traces of the same block (tracing.Prefixes,
	// estimated); 0 keeps none.
	TracePrefixBytes int64
	// CallResultsBytes bounds, per state (a block's or a pre-confirmation's),
	// the eth_call results remembered for identical calls on the same state
	// (callstate.Results); 0 remembers none.
	CallResultsBytes int64
}

// DefaultConfig returns geth's defaults.
func DefaultConfig() Config {
	return Config{
		GasCap:             50_000_000,
		EVMTimeout:         5 * time.Second,
		TracePrefixBytes:   64 << 20,
		CallResultsBytes:   4 << 20,
		LogsBlockRange:     10_000,
		LogsMaxResults:     10_000,
		BatchLimit:         1000,
		BatchResponseLimit: 25 * 1000 * 1000,
		RequestTimeout:     30 * time.Second,
		FilterTimeout:      5 * time.Minute,
		MaxFilters:         10_000,
		FiltersPerClient:   1_000,
		ClientVersion:      "stocknode/v0.1.0",
		MaxStorageKeys:     1024,
		SimulateMaxBlocks:  256,
		SimulateMaxCalls:   10_000,
		ReceiptHold:        DefaultReceiptHold,
		// EIP-7966's recommended default; the maximum keeps a waiter's
		// connection a short while (geth: 20 s and 1 min, for 12 s blocks).
		TxSyncDefaultTimeout: 2 * time.Second,
		TxSyncMaxTimeout:     10 * time.Second,
	}
}

// Backend is what the handlers read and write.
type Backend struct {
	Chain     *chain.Chain
	Pool      *txpool.Pool
	Snapshots *pending.Store
	Calls     *callbound.Bound // runs eth_call and eth_estimateGas
	// TxWait holds eth_sendRawTransactionSync's waiters, woken by the
	// sequencer's listeners; nil: the method answers that it is off.
	TxWait *txwait.Registry
	// Known, on a read replica, asks the sequencer whether it knows a
	// transaction that the replica does not (base_transactionStatus);
	// nil on the sequencer.
	Known func(ctx context.Context, hash common.Hash) (bool, error)
}

// Server dispatches JSON-RPC requests. It is safe for concurrent use.
type Server struct {
	cfg      Config
	b        Backend
	methods  map[string]*method
	unknown  *method // counts requests for methods that do not exist
	filters  *filterSet
	limiter  *ratelimit.Limiter // nil: no rate limits
	requests sync.Pool          // *request
	// precompiles are the EVM's, with an interruptible BLAKE2F (blake2f.go).
	precompiles callPrecompiles
	// tracePrefixes are sealed blocks' states kept by traces.
	tracePrefixes *tracing.Prefixes
	// traceReaders cache the states traced blocks start from.
	traceReaders *tracing.Readers
	// pendingProofs holds the tries of the pending state that
	// eth_getProof("pending") proves against (proof_pending.go).
	pendingProofs pendingProofCache
	// sends holds a sender's receipts on / past ethers' cache (sendhold.go).
	sends *recentSends
	// callResultCount counts eth_calls answered from a remembered result
	// (hit) and run (miss), over states that remember them.
	callResultCount struct{ hit, miss *metrics.Counter }
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

// origin is who sent a body, until when it must be answered, and how much
// room its response has left.
type origin struct {
	peer     *peer.Peer // nil: a local caller (tests, benchmarks)
	view     View
	deadline time.Time // zero: none
	room     int       // bytes the response may still take
}

// request is the per-call scratch state, pooled so a hot call allocates nothing.
type request struct {
	origin
	snap *pending.Snapshot // one snapshot for the whole request: no torn reads
	// current is the newest snapshot when snap is a sender's held view
	// (heldSnapshot): blocks it names by number or hash beyond snap's
	// head are read from it. Otherwise it is snap.
	current *pending.Snapshot
	args    [maxArgs][]byte
	nargs   int
	out     []byte
	call    codec.CallArgs // reusable decode buffer for call objects
	callKey []byte         // reusable key of a call's remembered result
	msg     callMessage    // reusable message built from call
	req     codec.Request
}

// New returns a server over b; reg (may be nil) receives its metrics.
func New(cfg Config, b Backend, reg *metrics.Registry) *Server {
	if reg == nil {
		reg = metrics.NewRegistry()
	}
	s := &Server{cfg: cfg, b: b, filters: newFilterSet(cfg.FilterTimeout, cfg.MaxFilters, cfg.FiltersPerClient), limiter: ratelimit.New(cfg.RateLimit), methods: map[string]*method{},
		sends: newRecentSends(cfg.ReceiptHold), tracePrefixes: tracing.NewPrefixes(cfg.TracePrefixBytes), traceReaders: tracing.NewReaders()}
	for name, h := range methodTable() {
		s.methods[name] = newMethod(reg, name, h)
	}
	s.unknown = newMethod(reg, "unknown", nil)
	s.callResultCount.hit = reg.Counter(`rpc_call_results_total{outcome="hit"}`)
	s.callResultCount.miss = reg.Counter(`rpc_call_results_total{outcome="miss"}`)
	s.requests.New = func() any { return new(request) }
	return s
}

// newMethod resolves the method's series once: JSON-RPC requests by method
// and outcome, and their latency. Each appears on its first record.
func newMethod(reg *metrics.Registry, name string, h handler) *method {
	return &method{
		run:      h,
		ok:       reg.Counter(`rpc_requests_total{method="` + name + `",outcome="ok"}`),
		fail:     reg.Counter(`rpc_requests_total{method="` + name + `",outcome="error"}`),
		duration: reg.Histogram(`rpc_request_duration_seconds{method="` + name + `"}`),
	}
}

// Close stops background work (filter expiry).
func (s *Server) Close() { s.filters.close() }

// Extension answers methods a transport adds to the table (eth_subscribe
// over WebSocket). It appends a whole response to dst and reports true, or
// reports false for a method it does not know.
type Extension func(req *codec.Request, dst []byte) ([]byte, bool)

// Handle answers body, a single request or a batch, for a local caller by
// appending the response to dst. It returns dst unchanged when nothing is
// to be sent back (a notification, or a batch of notifications).
func (s *Server) Handle(body, dst []byte) []byte {
	out, _ := s.HandleFrom(nil, Standard, body, dst, nil)
	return out
}

// Serve is HandleFrom for HTTP in the Standard view, which has no extra
// methods.
func (s *Server) Serve(p *peer.Peer, body, dst []byte) ([]byte, time.Duration) {
	return s.HandleFrom(p, Standard, body, dst, nil)
}

// HandleFrom answers body for the client p (nil: a local caller) in view v,
// with the transport's extra methods (ext may be nil). p's rate limits are
// charged first: over them, every request is answered -32005 and
// retryAfter says when p may try again. p keys the client's share of the
// call bound, and work for p stops when p hangs up.
func (s *Server) HandleFrom(p *peer.Peer, v View, body, dst []byte, ext Extension) (out []byte, retry time.Duration) {
	// One clock read for the deadline, the rate limits and a single
	// request's duration: each costs about as much as the limiter.
	now := time.Now()
	o := origin{peer: p, view: s.effective(v), room: s.cfg.BatchResponseLimit}
	if s.cfg.RequestTimeout > 0 {
		o.deadline = now.Add(s.cfg.RequestTimeout)
	}
	if o.room <= 0 {
		o.room = math.MaxInt
	}
	metered := s.limiter != nil && p != nil
	if codec.IsBatch(body) {
		if d := s.admitBatch(p, body, metered, now); d != nil {
			return appendDenied(dst, body, d), retryAfter(d)
		}
		return s.handleBatch(o, body, dst, ext), 0
	}
	// A single request's envelope is scanned once, for its cost and for
	// its dispatch.
	r := s.requests.Get().(*request)
	defer s.release(r)
	cerr := codec.ScanRequest(body, &r.req)
	if metered {
		if d := s.admitOne(p, r.req.Method, cerr, now); d != nil {
			return appendDenied(dst, body, d), retryAfter(d)
		}
	}
	if cerr != nil {
		return codec.AppendError(dst, r.req.ID, cerr), 0
	}
	return s.handleScanned(o, r, dst, ext, now), 0
}

func (s *Server) handleBatch(o origin, body, dst []byte, ext Extension) []byte {
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
	limit := o.room
	var gone hangUp
	for it.Next() {
		before := len(dst)
		if before > start+1 {
			dst = append(dst, ',')
		}
		if o.room = limit - (len(dst) - start); o.room <= 0 {
			dst = appendElementError(dst, it.Value(), errResponseTooLarge)
			continue
		}
		if o.expired() {
			dst = appendElementError(dst, it.Value(), errTimeout)
			continue
		}
		if gone.check(o.peer) {
			return dst[:start] // nobody is left to read the rest
		}
		if next := s.handleSingle(o, it.Value(), dst, ext); len(next) == len(dst) {
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

// appendElementError answers a batch element that is not run (the batch
// response is full, or its time is up).
func appendElementError(dst, elem []byte, err *codec.Error) []byte {
	var req codec.Request
	if codec.ScanRequest(elem, &req) != nil || req.ID == nil {
		return dst
	}
	return codec.AppendError(dst, req.ID, err)
}

var (
	errResponseTooLarge = &codec.Error{Code: codec.CodeResponseTooLarge, Message: "response too large"}
	errTimeout          = &codec.Error{Code: codec.CodeTimeout, Message: "request timed out"}
)

// expired reports whether the request's time is up.
func (o *origin) expired() bool { return !o.deadline.IsZero() && !time.Now().Before(o.deadline) }

// hangUp asks, between the elements of a long batch, whether its client is
// still there: after the batch has run a while, and then now and again, so a
// short batch never pays for the system call.
type hangUp struct{ start, last time.Time }

func (h *hangUp) check(p *peer.Peer) bool {
	if p == nil {
		return false
	}
	now := time.Now()
	if h.start.IsZero() {
		h.start = now
		return false
	}
	if now.Sub(h.start) < 50*time.Millisecond || now.Sub(h.last) < 50*time.Millisecond {
		return false
	}
	h.last = now
	return p.Gone()
}

func (s *Server) handleSingle(o origin, body, dst []byte, ext Extension) []byte {
	// The envelope lives in the pooled request: a local would escape
	// through ext and cost an allocation per call.
	r := s.requests.Get().(*request)
	defer s.release(r)
	if cerr := codec.ScanRequest(body, &r.req); cerr != nil {
		return codec.AppendError(dst, r.req.ID, cerr)
	}
	return s.handleScanned(o, r, dst, ext, time.Now())
}

// handleScanned answers the request whose envelope r holds, which arrived
// at start.
func (s *Server) handleScanned(o origin, r *request, dst []byte, ext Extension, start time.Time) []byte {
	req := &r.req
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
	defer func() { m.duration.Observe(time.Since(start)) }()
	r.origin, r.snap = o, s.b.Snapshots.Load()
	r.current = r.snap
	if o.view == Standard {
		r.snap = s.heldSnapshot(r)
	}
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
	r.origin, r.snap, r.out, r.req = origin{}, nil, nil, codec.Request{}
	r.args = [maxArgs][]byte{}
	if cap(r.callKey) > maxKeptCallKey {
		r.callKey = nil // one large call object does not stay with every pooled request
	}
	s.requests.Put(r)
}

// maxKeptCallKey is the largest call key buffer a pooled request keeps.
const maxKeptCallKey = 4 << 10

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
