// Package ws serves JSON-RPC over WebSocket at /ws: every method of the HTTP
// endpoint through the same handlers, plus eth_subscribe. Notifications go
// through a sharded broadcaster: each event is encoded once and handed as
// bytes to the shards, which queue it on their connections without ever
// blocking the sequencer or one another.
package ws

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/node/txpool"
	"github.com/stocknode/stocknode/peer"
)

// Config holds the WebSocket limits.
type Config struct {
	MaxConns     int           // connections beyond this are refused (503)
	MaxSubs      int           // subscriptions per connection
	SendQueue    int           // queued messages per connection before it is closed as too slow
	MessageLimit int64         // largest incoming message
	Origins      []string      // allowed Origin headers; "*" allows any
	PingInterval time.Duration // keepalive pings
	IdleTimeout  time.Duration // no message or pong for this long closes the connection
	WriteTimeout time.Duration // one write may take this long
	Shards       int           // broadcaster shards
	// Compression accepts permessage-deflate when a client offers it.
	Compression bool
	// ResumeBlocks is how far behind the head a subscription may resume;
	// ResumesRunning how many resumed histories are sent at once (the
	// others wait, their live notifications kept).
	ResumeBlocks   uint64
	ResumesRunning int
	// Peer names the client of an upgrade request (the front end's, which
	// believes trusted proxies); nil takes the connection's peer.
	Peer func(*fasthttp.RequestCtx) *peer.Peer
}

// DefaultConfig sizes the endpoint for 10,000+ subscribers.
func DefaultConfig() Config {
	return Config{
		MaxConns:       20_000,
		MaxSubs:        128,
		SendQueue:      256,
		MessageLimit:   5 * 1024 * 1024,
		Origins:        []string{"*"},
		PingInterval:   30 * time.Second,
		IdleTimeout:    90 * time.Second,
		WriteTimeout:   10 * time.Second,
		Shards:         16,
		Compression:    true,
		ResumeBlocks:   1024,
		ResumesRunning: 32,
	}
}

// Hub owns the connections and broadcasts events to them.
type Hub struct {
	cfg      Config
	rpc      *rpc.Server
	chain    *chain.Chain
	log      *slog.Logger
	upgrader websocket.FastHTTPUpgrader
	deflater deflater
	shards   []*shard
	events   chan event
	nextID   atomic.Uint64
	conns    atomic.Int64
	metrics  metrics
	wg       sync.WaitGroup // connections and loops
	stop     chan struct{}
	stopOnce sync.Once

	lastPending pendingCursor // hub goroutine only
	// lastSealed is the last sealed block the broadcaster announced (the
	// head when it started): resumed histories go up to it.
	lastSealed atomic.Uint64
	// lastFlash is the last flashblock it announced.
	lastFlash atomic.Pointer[flashKey]
	preconfs  Preconfirmations // nil: flashblocks do not resume
	resumes   chan struct{}    // a slot per resumed history being sent
}

type metrics struct {
	slowDropped atomic.Uint64
	subs        atomic.Int64
	// byKind counts live subscriptions per kind: the broadcaster neither
	// encodes nor walks the connections for a kind nobody subscribed to
	// (under a transaction flood, newPendingTransactions alone would encode
	// every accepted transaction for nobody).
	byKind [kindFlashTxFull + 1]atomic.Int64
}

// subscribed adds n subscriptions of kind to the counts.
func (m *metrics) subscribed(kind subKind, n int64) {
	m.subs.Add(n)
	m.byKind[kind].Add(n)
}

// wanted reports whether any connection subscribes to kind.
func (m *metrics) wanted(kind subKind) bool { return m.byKind[kind].Load() > 0 }

// flashKey is a flashblock's key: its block and index.
type flashKey struct{ number, index uint64 }

// after reports whether k comes after o in the stream.
func (k flashKey) after(o flashKey) bool {
	return k.number > o.number || k.number == o.number && k.index > o.index
}

// New returns a hub; Run starts its broadcaster.
func New(cfg Config, rpcServer *rpc.Server, c *chain.Chain, log *slog.Logger) *Hub {
	h := &Hub{
		cfg:    cfg,
		rpc:    rpcServer,
		chain:  c,
		log:    log,
		events: make(chan event, 1024),
		stop:   make(chan struct{}),
	}
	h.upgrader = websocket.FastHTTPUpgrader{
		ReadBufferSize:  1024,
		WriteBufferSize: 4096,
		// Idle connections hold no write buffer: 10,000 subscribers share a
		// few.
		WriteBufferPool: new(sync.Pool),
		CheckOrigin:     h.checkOrigin,
		// Accepted without context takeover either way; the library
		// inflates what clients send, deflate.go deflates what we send.
		EnableCompression: cfg.Compression,
	}
	if c != nil {
		h.lastSealed.Store(c.Head().Number.Uint64())
	}
	h.resumes = make(chan struct{}, max(1, cfg.ResumesRunning))
	h.shards = make([]*shard, max(1, cfg.Shards))
	for i := range h.shards {
		h.shards[i] = newShard()
	}
	return h
}

// Run broadcasts events until ctx ends, then closes every connection.
func (h *Hub) Run(ctx context.Context) {
	for _, s := range h.shards {
		h.wg.Add(1)
		go func() { defer h.wg.Done(); s.run(h.stop) }()
	}
	// Keepalive pings go out in pingSlices parts spread over the interval:
	// pinging 10,000 connections at once is a burst as large as a head's
	// fan-out, and a head fanned out during it is slowed down.
	ping := time.NewTicker(max(h.cfg.PingInterval/pingSlices, time.Millisecond))
	defer ping.Stop()
	var slice uint64
	for {
		select {
		case <-ctx.Done():
			h.shutdown()
			return
		case <-ping.C:
			h.fanOut(delivery{ping: true, pingSlice: slice})
			slice = (slice + 1) % pingSlices
		case ev := <-h.events:
			h.dispatch(ev)
		}
	}
}

func (h *Hub) shutdown() {
	h.stopOnce.Do(func() { close(h.stop) })
	for _, s := range h.shards {
		s.closeAll(websocket.CloseGoingAway, "server shutting down")
	}
	h.wg.Wait()
}

// Stats reports open connections, live subscriptions and connections
// dropped as too slow.
func (h *Hub) Stats() (conns, subs int64, slowDropped uint64) {
	return h.conns.Load(), h.metrics.subs.Load(), h.metrics.slowDropped.Load()
}

func (h *Hub) checkOrigin(ctx *fasthttp.RequestCtx) bool {
	origin := string(ctx.Request.Header.Peek("Origin"))
	if origin == "" {
		return true
	}
	for _, o := range h.cfg.Origins {
		if o == "*" || o == origin {
			return true
		}
	}
	return false
}

// Handler upgrades GET /ws: its JSON-RPC calls are answered in the
// Standard view.
func (h *Hub) Handler(ctx *fasthttp.RequestCtx) { h.upgrade(ctx, rpc.Standard) }

// PreconfHandler upgrades GET /preconf/ws: its JSON-RPC calls are answered
// in the Preconf view (Base's Flashblocks RPC). The subscriptions are the
// same on both.
func (h *Hub) PreconfHandler(ctx *fasthttp.RequestCtx) { h.upgrade(ctx, rpc.Preconf) }

func (h *Hub) upgrade(ctx *fasthttp.RequestCtx, view rpc.View) {
	if !websocket.FastHTTPIsWebSocketUpgrade(ctx) {
		ctx.Error("expected a WebSocket upgrade", fasthttp.StatusBadRequest)
		return
	}
	select {
	case <-h.stop:
		ctx.Error("shutting down", fasthttp.StatusServiceUnavailable)
		return
	default:
	}
	if h.conns.Add(1) > int64(h.cfg.MaxConns) {
		h.conns.Add(-1)
		ctx.Error("too many WebSocket connections", fasthttp.StatusServiceUnavailable)
		return
	}
	client := h.peerOf(ctx)
	deflate := h.cfg.Compression && offersDeflate(ctx.Request.Header.Peek("Sec-WebSocket-Extensions"))
	h.wg.Add(1)
	err := h.upgrader.Upgrade(ctx, func(ws *websocket.Conn) {
		defer h.wg.Done()
		defer h.conns.Add(-1)
		h.serve(ws, client, view, deflate)
	})
	if err != nil {
		h.wg.Done()
		h.conns.Add(-1)
	}
}

// peerOf is the client of an upgrade request: Config.Peer's answer (which
// believes trusted proxies), or the connection's own.
func (h *Hub) peerOf(ctx *fasthttp.RequestCtx) *peer.Peer {
	if h.cfg.Peer != nil {
		if p := h.cfg.Peer(ctx); p != nil {
			return p
		}
	}
	return peer.FromConn(ctx.Conn())
}

// serve reads client's requests until the connection ends. A call still
// running when the client hangs up, or the server closes the connection,
// is stopped by the call bound, which asks client whether it is still there.
func (h *Hub) serve(ws *websocket.Conn, client *peer.Peer, view rpc.View, deflate bool) {
	c := newConn(h, ws)
	c.peer, c.view, c.deflate = client, view, deflate
	shard := h.shards[c.id%uint64(len(h.shards))]
	shard.add(c)
	c.readLoop()
	shard.remove(c)
	c.mu.Lock()
	for _, sub := range c.subs {
		h.metrics.subscribed(sub.kind, -1)
	}
	c.subs = nil
	c.mu.Unlock()
	c.waitFlushed()
}

// event is what the sequencer and the pool report, in order.
type event struct {
	sealed *types.Block
	snap   *pending.Snapshot
	newTxs []*types.Transaction
}

// publish hands an event to the broadcaster without blocking the caller
// (the sequencer). The buffer holds minutes of events; if it ever fills,
// the event is dropped and counted rather than stalling block production.
func (h *Hub) publish(ev event) {
	select {
	case h.events <- ev:
	default:
		h.log.Warn("WebSocket broadcaster behind: dropped an event")
	}
}

// Sealed implements sequencer.Listener.
// snap, which holds the next block's first pre-confirmation, comes as a
// Preconfirmed event of its own right after.
func (h *Hub) Sealed(_ *pending.Snapshot, block *types.Block) {
	h.publish(event{sealed: block})
}

// Preconfirmed implements sequencer.Listener.
func (h *Hub) Preconfirmed(snap *pending.Snapshot) { h.publish(event{snap: snap}) }

// WatchPool forwards transactions the pool accepts as newPendingTransactions.
func (h *Hub) WatchPool(ctx context.Context, pool *txpool.Pool) {
	ch := make(chan core.NewTxsEvent, 256)
	sub := pool.SubscribeNewTransactions(ch)
	defer sub.Unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return
		case err := <-sub.Err():
			if err != nil {
				h.log.Error("Pool subscription ended", "err", err)
			}
			return
		case ev := <-ch:
			h.NewTransactions(ev.Txs)
		}
	}
}

// NewTransactions announces txs as newPendingTransactions: the pool's
// (WatchPool), or a read replica's newly pre-confirmed ones.
func (h *Hub) NewTransactions(txs []*types.Transaction) { h.publish(event{newTxs: txs}) }
