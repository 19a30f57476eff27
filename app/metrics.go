package app

import (
	"time"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/faucet"
	"github.com/stocknode/stocknode/metrics"
	"github.com/stocknode/stocknode/node/seqlog"
	"github.com/stocknode/stocknode/node/sequencer"
)

// The node is the only package that knows the metrics registry besides the
// JSON-RPC server (whose per-method series it resolves once in rpc.New).
// The engine is handed what it must time as plain callbacks: the sequencer
// (sequencer.Config.ObserveSeal, ObservePreconf) and its log
// (seqlog.Config.ObserveAppend) take a func(time.Duration) that is a
// histogram's Observe here, so they import no metrics package and their
// tests run without one. The REST API and the faucet are timed where the
// node mounts them (observedMux), which neither package has to know about:
// a fasthttp handler's answer is complete when it returns, so its status
// and duration are known there.

// observeSequencer gives the sequencer its timers: the seal of a block and
// each pre-confirmation.
func (n *Node) observeSequencer(cfg *sequencer.Config) {
	cfg.ObserveSeal = n.reg.Histogram("sequencer_seal_duration_seconds").Observe
	cfg.ObservePreconf = n.reg.Histogram("sequencer_preconf_duration_seconds").Observe
}

// observeLog gives the sequencer's log its timer: the append of an entry
// until JetStream acknowledged it.
func (n *Node) observeLog(cfg *seqlog.Config) {
	cfg.ObserveAppend = n.reg.Histogram("seqlog_append_duration_seconds").Observe
}

// observedMux is the node's port for an API that mounts itself (a
// faucet.Mux): each handler mounted through it is counted and timed into
// the API's response metrics.
type observedMux struct {
	mux  faucet.Mux
	resp *metrics.Responses
}

// observedMux returns the port through which the API named api (a metric
// name prefix) is mounted.
func (n *Node) observedMux(api string) observedMux {
	return observedMux{n.http, n.reg.Responses(api)}
}

// Mount implements faucet.Mux.
func (m observedMux) Mount(prefix string, h fasthttp.RequestHandler) {
	resp := m.resp
	m.mux.Mount(prefix, func(ctx *fasthttp.RequestCtx) {
		start := time.Now()
		h(ctx)
		resp.Observe(ctx.Response.StatusCode(), time.Since(start))
	})
}

// registerGauges exposes the node's state for --metrics. Counts kept by
// other packages (the call pool's, the port's, the WebSocket hub's) are
// counters, written once they are not zero.
func (n *Node) registerGauges() {
	r := n.reg
	// node_role: 1 for the role the node has now (health's "role"), 0 for
	// the others, so that a dashboard sums the roles of a deployment.
	for _, role := range []string{roleSequencer, roleStandby, roleReplica} {
		r.Gauge(`node_role{role="`+role+`"}`, func() float64 {
			if n.role() == role {
				return 1
			}
			return 0
		})
	}
	// chain_head_number: number of the latest sealed block.
	r.Gauge("chain_head_number", func() float64 {
		if snap := n.store.Load(); snap != nil {
			return float64(snap.Head.NumberU64())
		}
		return 0
	})
	// chain_head_age_seconds: wall-clock age of the latest block's timestamp.
	r.Gauge("chain_head_age_seconds", func() float64 {
		return n.healthReport().age.Seconds()
	})
	// pending_snapshot_age_seconds: time since the last pending snapshot was published.
	r.Gauge("pending_snapshot_age_seconds", func() float64 {
		if snap := n.store.Load(); snap != nil {
			return time.Since(snap.Published).Seconds()
		}
		return 0
	})
	// pending_transactions: transactions in the block being built.
	r.Gauge("pending_transactions", func() float64 {
		if snap := n.store.Load(); snap != nil {
			return float64(len(snap.Pending.Transactions))
		}
		return 0
	})
	// txpool_transactions: pooled transactions.
	r.Gauge(`txpool_transactions{state="executable"}`, func() float64 { p, _ := n.pool.Stats(); return float64(p) })
	r.Gauge(`txpool_transactions{state="queued"}`, func() float64 { _, q := n.pool.Stats(); return float64(q) })
	// call_pool_running: eth_calls running (slots of the call bound in use).
	r.Gauge("call_pool_running", func() float64 { run, _, _, _ := n.calls.Stats(); return float64(run) })
	// call_pool_waiting: eth_calls waiting for a slot.
	r.Gauge("call_pool_waiting", func() float64 { _, wait, _, _ := n.calls.Stats(); return float64(wait) })
	// call_pool_rejected_total: eth_calls rejected with -32005 (bound full,
	// client over its share).
	r.CounterFunc("call_pool_rejected_total", func() uint64 { _, _, rej, _ := n.calls.Stats(); return rej })
	// call_pool_heavy_clients: clients whose calls ran long lately, kept off
	// the last slot of the call bound.
	r.Gauge("call_pool_heavy_clients", func() float64 { return float64(n.calls.Heavy()) })
	// call_pool_dropped_total: eth_calls dropped before they ran (request
	// deadline passed, client gone).
	r.CounterFunc("call_pool_dropped_total", func() uint64 { _, _, _, drop := n.calls.Stats(); return drop })
	// txsync_waiting: eth_sendRawTransactionSync requests waiting for their transaction.
	r.Gauge("txsync_waiting", func() float64 { return float64(n.txwait.Len()) })
	// http_connections: open connections on the public port (HTTP and WebSocket).
	r.Gauge("http_connections", func() float64 { open, _ := n.http.Conns(); return float64(open) })
	// http_connections_refused_total: connections refused at --http.maxconns
	// or --http.maxconns-per-ip.
	r.CounterFunc("http_connections_refused_total", func() uint64 { _, refused := n.http.Conns(); return refused })
	// ws_connections: open WebSocket connections.
	r.Gauge("ws_connections", func() float64 { c, _, _ := n.WSStats(); return float64(c) })
	// ws_subscriptions: live eth_subscribe subscriptions.
	r.Gauge("ws_subscriptions", func() float64 { _, s, _ := n.WSStats(); return float64(s) })
	if f := n.follower; f != nil {
		// replica_lag_entries: entries of the sequencer's log stored after
		// the last one this replica applied.
		r.Gauge("replica_lag_entries", func() float64 { e, _, _ := f.Lag(); return float64(e) })
		// replica_lag_seconds: time from the logging of the last entry this
		// replica applied to its application.
		r.Gauge("replica_lag_seconds", func() float64 { _, d, _ := f.Lag(); return d.Seconds() })
		// replica_applied_sequence: sequence of the last log entry this
		// replica applied (a position, not a count: a gauge).
		r.Gauge("replica_applied_sequence", func() float64 { _, _, s := f.Lag(); return float64(s) })
	}
	// ws_slow_dropped_total: WebSocket subscribers closed for falling behind.
	r.CounterFunc("ws_slow_dropped_total", func() uint64 { _, _, d := n.WSStats(); return d })
}

// Metrics is the node's metrics registry (served by --metrics).
func (n *Node) Metrics() *metrics.Registry { return n.reg }
