package etherscan

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/peer"
)

// Config bounds the work the API does for its history requests (txlist,
// tokentx): reading and encoding thousands of entries takes a CPU for tens
// of milliseconds, and a flood of them would take every CPU from block
// production and JSON-RPC. They run under a bound of their own, a
// callbound.Bound as eth_call's: at most Workers at once, the last slot kept
// from clients whose requests run long, waiting requests served
// round-robin by client.
type Config struct {
	// Workers is how many history requests run at once (default: one per
	// CPU; --explorer.api.workers).
	Workers int
	// Queue is how many may wait for a turn (default 1024;
	// --explorer.api.queue), and Wait how long each may wait
	// (DefaultWait; --explorer.api.wait) before it is answered that the
	// node is busy.
	Queue int
	Wait  time.Duration
	// MaxRows is the most entries one answer holds (DefaultMaxRows;
	// --explorer.api.max-rows): an offset above it is refused. Without an
	// offset, a page holds DefaultRows, or MaxRows if fewer.
	MaxRows int
	// Peer names a request's client, whose requests share its turns (the
	// front end's, which trusts its proxies); nil: the connection's peer.
	Peer func(*fasthttp.RequestCtx) *peer.Peer
}

// Defaults of Config.
const (
	// DefaultRows is a page's size when the request names no offset.
	// Etherscan answers 10,000 entries then (5.7 MB of transactions); a
	// tool that wants that many asks for them.
	DefaultRows = 1_000
	// DefaultMaxRows is the most entries an answer holds: Etherscan's own
	// limit, so that tools that page by 10,000 work unchanged.
	DefaultMaxRows = index.MaxWindow
	// DefaultWait is how long a request waits for a turn: a turn takes
	// milliseconds, so a longer wait means the node is saturated.
	DefaultWait = time.Second
)

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Workers: callbound.DefaultWorkers(), Queue: 1024, Wait: DefaultWait, MaxRows: DefaultMaxRows}
}

// check fills in zero values and refuses limits that make no sense,
// naming their flags.
func (c Config) check() (Config, error) {
	d := DefaultConfig()
	if c.Workers == 0 {
		c.Workers = d.Workers
	}
	if c.Queue == 0 {
		c.Queue = d.Queue
	}
	if c.Wait == 0 {
		c.Wait = d.Wait
	}
	if c.MaxRows == 0 {
		c.MaxRows = d.MaxRows
	}
	switch {
	case c.Workers < 0:
		return c, fmt.Errorf("--explorer.api.workers %d: want at least 1 (0: one per CPU)", c.Workers)
	case c.Queue < 0:
		return c, fmt.Errorf("--explorer.api.queue %d: want at least 1 (0: the default)", c.Queue)
	case c.Wait < 0:
		return c, fmt.Errorf("--explorer.api.wait %v: want a positive duration", c.Wait)
	case c.MaxRows < 0 || c.MaxRows > index.MaxWindow:
		return c, fmt.Errorf("--explorer.api.max-rows %d: want 1 to %d (Etherscan's result window)", c.MaxRows, index.MaxWindow)
	}
	return c, nil
}

// defaultRows is a page's size when the request names no offset.
func (c Config) defaultRows() uint64 { return uint64(min(DefaultRows, c.MaxRows)) }

// tooManyRows is the error of an offset above MaxRows.
func (c Config) tooManyRows(offset uint64) string {
	return "Error! offset " + uitoa(offset) + " is more rows than this node answers at once (" + strconv.Itoa(c.MaxRows) +
		", --explorer.api.max-rows); ask for pages of at most " + strconv.Itoa(c.MaxRows) + " rows"
}

// msgBusy answers a history request that found no turn within Config.Wait,
// in Etherscan's words: its clients (ethers' EtherscanProvider among them)
// back off and retry an answer whose result mentions a rate limit.
const msgBusy = "Max rate limit reached: the node is answering as many history requests as it may at once (--explorer.api.workers); retry in a moment"

// bounded runs fn in a turn of the API's bound, waiting at most
// Config.Wait for it. When there is none, it answers the error itself
// and reports false.
func (a *API) bounded(ctx *fasthttp.RequestCtx, fn func()) bool {
	// The deadline bounds the wait only: fn never looks at its task, and
	// once it runs it finishes, in milliseconds.
	c := callbound.Caller{Deadline: time.Now().Add(a.cfg.Wait)}
	if p := a.peerOf(ctx); p != nil {
		c.Key, c.Peer = p.Key(), p
	}
	err := a.calls.Do(c, 0, func(*callbound.Task) { fn() })
	switch {
	case err == nil:
		return true
	case errors.Is(err, callbound.ErrClosed):
		writeError(ctx, "Error! The node is shutting down")
	default: // waited too long, too many waiting, or the client left
		ctx.Response.Header.Set("Retry-After", "1")
		writeError(ctx, msgBusy)
	}
	return false
}

// peerOf is the client of ctx: Config.Peer's, or the connection's.
func (a *API) peerOf(ctx *fasthttp.RequestCtx) *peer.Peer {
	if a.cfg.Peer != nil {
		return a.cfg.Peer(ctx)
	}
	if conn := ctx.Conn(); conn != nil {
		return peer.FromConn(conn)
	}
	return nil // a local caller (tests)
}

// Close stops the bound: requests still waiting are answered that the node
// is shutting down.
func (a *API) Close() { a.calls.Close() }
