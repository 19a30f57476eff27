package web

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/node/pending"
)

// request is one page request: the snapshot it reads, taken once.
type request struct {
	ctx  *fasthttp.RequestCtx
	snap *pending.Snapshot
	now  time.Time
}

// result is what a page handler renders: a template with its data, or a
// redirect.
type result struct {
	page     string // template name, also body's data-page
	title    string
	data     any
	redirect string
	csp      string // a Content-Security-Policy of the page's own; empty: the explorer's
	// fragment names a template of the page's to render alone, without
	// the frame (/fragment/home); empty: the whole page.
	fragment string
}

// handlerFunc is one page.
type handlerFunc func(r *request) (result, error)

// httpError is a failure the visitor caused or can act on, shown as a page
// with its status.
type httpError struct {
	status int
	title  string
	msg    string
}

func (e *httpError) Error() string { return e.title + ": " + e.msg }

// Status, Title and Message are what the error page shows.
func (e *httpError) Status() int     { return e.status }
func (e *httpError) Title() string   { return e.title }
func (e *httpError) Message() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{fasthttp.StatusBadRequest, "Bad request", fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &httpError{fasthttp.StatusNotFound, "Not found", fmt.Sprintf(format, args...)}
}

func unavailable(format string, args ...any) error {
	return &httpError{fasthttp.StatusServiceUnavailable, "Not available yet", fmt.Sprintf(format, args...)}
}

// echoLimit bounds the part of a visitor's input an error page repeats.
const echoLimit = 80

// page wraps a handler: GET and HEAD only, one snapshot per request, and
// errors as pages.
func (e *Explorer) page(h handlerFunc) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if !ctx.IsGet() && !ctx.IsHead() {
			ctx.Response.Header.Set("Allow", "GET, HEAD")
			e.renderError(ctx, &httpError{fasthttp.StatusMethodNotAllowed, "Method not allowed", "Explorer pages answer GET and HEAD only."})
			return
		}
		snap := e.deps.Store.Load()
		if snap == nil {
			e.renderError(ctx, unavailable("The node is starting; try again in a moment."))
			return
		}
		now := time.Now()
		cache, key := e.cacheOf(snap, now), ctx.RequestURI()
		if cache.serveCached(ctx, key) {
			return
		}
		if !e.acquire() {
			ctx.Response.Header.Set("Retry-After", "1")
			e.renderError(ctx, &httpError{fasthttp.StatusServiceUnavailable, "Busy", "The explorer is rendering as many pages as it may at once (the node keeps the rest of its cores for JSON-RPC); try again in a moment."})
			return
		}
		defer func() { <-e.renders }()
		defer cache.keep(ctx, key)
		res, err := h(&request{ctx: ctx, snap: snap, now: now})
		switch {
		case err != nil:
			e.renderError(ctx, err)
		case res.redirect != "":
			setPageHeaders(ctx)
			ctx.Response.Header.Set("Location", res.redirect)
			ctx.SetStatusCode(fasthttp.StatusSeeOther)
		default:
			e.render(ctx, fasthttp.StatusOK, res)
		}
	}
}

// acquire takes a render slot, waiting at most Config.RenderWait.
func (e *Explorer) acquire() bool {
	select {
	case e.renders <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(e.cfg.RenderWait)
	defer t.Stop()
	select {
	case e.renders <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// renderError shows err as a page: its own status for an httpError, 500
// (logged, details withheld) otherwise.
func (e *Explorer) renderError(ctx *fasthttp.RequestCtx, err error) {
	var he *httpError
	if !errors.As(err, &he) {
		e.log.Warn("Explorer page failed", "path", clip(string(ctx.Path()), echoLimit), "err", err)
		he = &httpError{fasthttp.StatusInternalServerError, "Something went wrong", "The node could not build this page; the error is in its log."}
	}
	e.render(ctx, he.status, result{page: "error", title: he.title, data: he})
}

// render executes a page template into the response.
func (e *Explorer) render(ctx *fasthttp.RequestCtx, status int, res result) {
	var buf bytes.Buffer
	data := layout{
		Title: res.title, Page: res.page, Net: e.netInfo(), Query: clip(string(ctx.QueryArgs().Peek("q")), maxQuery), Body: res.data,
		Now: time.Now().UnixMilli(),
	}
	if err := e.pages.execute(&buf, res.page, res.fragment, data); err != nil {
		e.log.Error("Explorer template failed", "page", res.page, "err", err)
		setPageHeaders(ctx)
		ctx.Response.Header.SetContentType("text/plain; charset=utf-8")
		ctx.SetStatusCode(fasthttp.StatusInternalServerError)
		ctx.SetBodyString("the page could not be rendered")
		return
	}
	setPageHeaders(ctx)
	if res.csp != "" {
		ctx.Response.Header.Set("Content-Security-Policy", res.csp)
	}
	ctx.Response.Header.SetContentType("text/html; charset=utf-8")
	ctx.SetStatusCode(status)
	ctx.SetBody(buf.Bytes())
}

// contentSecurityPolicy allows the page's own scripts, styles, images and
// connections (the WebSocket and the faucet API) and nothing else: no
// inline script, nothing from another host.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// setPageHeaders marks a page live (never cached: it shows the head) and
// locks down what it may load.
func setPageHeaders(ctx *fasthttp.RequestCtx) {
	h := &ctx.Response.Header
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
}

// layout is what every page's frame reads.
type layout struct {
	Title string
	Page  string
	Net   netInfo
	Query string
	Body  any
	// Now is the server's clock (unix ms) as the page renders, which the
	// page's script counts ages from (body[data-now]).
	Now int64
}

// netInfo is the network as the frame shows it and the wallet button adds it.
type netInfo struct {
	Name       string
	ChainID    uint64
	ChainIDHex string
	WSPath     string
}

func (e *Explorer) netInfo() netInfo {
	return netInfo{
		Name:       e.cfg.Network,
		ChainID:    e.cfg.ChainID,
		ChainIDHex: "0x" + strconv.FormatUint(e.cfg.ChainID, 16),
		WSPath:     e.cfg.WSPath,
	}
}

// segment is the single path segment after prefix, e.g. the hash of
// /tx/{hash}; a missing or nested one is no page.
func segment(r *request, prefix string) (string, error) {
	rest, ok := strings.CutPrefix(string(r.ctx.Path()), prefix)
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", notFound("There is no page at this address.")
	}
	if len(rest) > maxQuery {
		return "", badRequest("The path is too long.")
	}
	return rest, nil
}

// start parses the ?start= offset of a paginated list; garbage is a 400.
func start(r *request) (int, error) {
	raw := r.ctx.QueryArgs().Peek("start")
	if len(raw) == 0 {
		return 0, nil
	}
	n, err := strconv.ParseUint(string(raw), 10, 31)
	if err != nil {
		return 0, badRequest("start must be a non-negative number.")
	}
	return int(n), nil
}
