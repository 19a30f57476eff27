// Package rest serves the public, read-only Tokenized Stocks REST API in the
// shape of Coinbase's (api.coinbase.com/v1/tokenized-stocks): the protocol's
// contract addresses per chain, the stock tokens on the node's own chain and
// their supplies, and its OpenAPI document. Answers are encoded once per
// chain head and served from memory with an ETag; every other outcome is the
// spec's error status object, as grpc-gateway writes it.
package rest

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/internal/httpapi"
	"github.com/stocknode/stocknode/node/stocks"
)

// Prefix is the path prefix the API serves; mount the handler there.
const Prefix = "/v1/"

const (
	pathChains  = "/v1/tokenized-stocks/chains"
	pathTokens  = "/v1/tokenized-stocks"
	pathSupply  = "/v1/tokenized-stocks/total-supply/"
	pathOpenAPI = "/v1/openapi.json"
)

// How long a client or cache may reuse an answer: the chains list changes
// only with the node's configuration; token data with any block (200 ms),
// so one second, after which the ETag makes a revalidation cheap.
const (
	cacheChains  = "public, max-age=60"
	cacheTokens  = "public, max-age=1"
	cacheOpenAPI = "public, max-age=3600"
)

//go:embed openapi.json
var openAPIDocument []byte

// Source is the token index the API reports.
type Source interface {
	// View returns the protocol at the head, nil while the index catches up.
	View() *stocks.View
}

// API is the REST handler. It is safe for concurrent use.
type API struct {
	src     Source
	chains  entity
	openapi entity

	mu      sync.Mutex // one encoder per new view
	current atomic.Pointer[encodedView]
}

// New returns the API over chains (sorted here by chain ID; IDs must be
// unique) and the token index src.
func New(chains []Chain, src Source) (*API, error) {
	sorted := slices.SortedFunc(slices.Values(chains), func(a, b Chain) int { return cmp.Compare(a.ChainID, b.ChainID) })
	for i := 1; i < len(sorted); i++ {
		if sorted[i].ChainID == sorted[i-1].ChainID {
			return nil, fmt.Errorf("chain %d (%s) is listed twice: once is the node's own chain, or the registry repeats it", sorted[i].ChainID, sorted[i].Name)
		}
	}
	body, err := json.Marshal(struct {
		Chains []Chain `json:"chains"`
	}{sorted})
	if err != nil {
		return nil, err
	}
	return &API{src: src, chains: newEntity(body), openapi: newEntity(openAPIDocument)}, nil
}

// route is one of the API's paths.
type route int

const (
	routeNone route = iota
	routeChains
	routeTokens
	routeSupply
	routeOpenAPI
)

func routeOf(path []byte) route {
	switch {
	case string(path) == pathChains:
		return routeChains
	case string(path) == pathTokens:
		return routeTokens
	case len(path) > len(pathSupply) && string(path[:len(pathSupply)]) == pathSupply && bytes.IndexByte(path[len(pathSupply):], '/') < 0:
		return routeSupply
	case string(path) == pathOpenAPI:
		return routeOpenAPI
	}
	return routeNone
}

// Handler serves every request under Prefix, whatever its method. It does
// not allocate on a hit: answers are encoded already.
func (a *API) Handler(ctx *fasthttp.RequestCtx) {
	path := ctx.Path()
	r := routeOf(path)
	switch {
	case r == routeNone:
		httpapi.NotFound(ctx)
		return
	case !ctx.IsGet() && !ctx.IsHead():
		// grpc-gateway's answer to a wrong method on a known path.
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		httpapi.Write(ctx, fasthttp.StatusNotImplemented, httpapi.Unimplemented, "Method Not Allowed")
		return
	}
	// fasthttp leaves out a HEAD answer's body.
	switch r {
	case routeChains:
		a.chains.write(ctx, cacheChains)
	case routeTokens:
		a.serveTokens(ctx)
	case routeSupply:
		a.serveSupply(ctx, path[len(pathSupply):])
	case routeOpenAPI:
		a.openapi.write(ctx, cacheOpenAPI)
	}
}

func (a *API) serveTokens(ctx *fasthttp.RequestCtx) {
	ev := a.encoded()
	if ev == nil {
		catchingUp(ctx)
		return
	}
	ev.list.write(ctx, cacheTokens)
}

// serveSupply answers the total supply of the token at raw (the path's
// last segment).
func (a *API) serveSupply(ctx *fasthttp.RequestCtx, raw []byte) {
	addr, ok := httpapi.LowerHexAddress(raw)
	if !ok {
		// The slow path: mixed case (a checksum to verify) or an error to explain.
		var err error
		if addr, err = httpapi.ParseAddress(string(raw)); err != nil {
			httpapi.Write(ctx, fasthttp.StatusBadRequest, httpapi.InvalidArgument, "contract_address: "+err.Error())
			return
		}
	}
	ev := a.encoded()
	if ev == nil {
		catchingUp(ctx)
		return
	}
	e, ok := ev.supplies[addr]
	if !ok {
		httpapi.Write(ctx, fasthttp.StatusNotFound, httpapi.NotFoundCode, "no tokenized stock at "+addr.Hex()+": the token factory did not create a token there")
		return
	}
	e.write(ctx, cacheTokens)
}

func catchingUp(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("Retry-After", "1")
	httpapi.Write(ctx, fasthttp.StatusServiceUnavailable, httpapi.Unavailable, "the token index is catching up with the chain after a start; retry in a second")
}

// encodedView is one View's answers, encoded.
type encodedView struct {
	view     *stocks.View
	list     entity
	supplies map[common.Address]entity
}

// encoded returns the answers of the index's current view, encoding them
// the first time a request sees that view (once per head at most).
func (a *API) encoded() *encodedView {
	view := a.src.View()
	if view == nil {
		return nil
	}
	if ev := a.current.Load(); ev != nil && ev.view == view {
		return ev
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	prev := a.current.Load()
	if prev != nil && prev.view == view {
		return prev
	}
	ev := encodeView(view, prev)
	a.current.Store(ev)
	return ev
}

// encodeView encodes view's answers, reusing prev's when no token changed
// (a token that changes is a new *Token).
func encodeView(view *stocks.View, prev *encodedView) *encodedView {
	if prev != nil && slices.Equal(prev.view.Tokens, view.Tokens) {
		return &encodedView{view: view, list: prev.list, supplies: prev.supplies}
	}
	ev := &encodedView{view: view, supplies: make(map[common.Address]entity, len(view.Tokens))}
	list := make([]tokenJSON, len(view.Tokens))
	for i, t := range view.Tokens {
		list[i] = newTokenJSON(t)
		supply, err := json.Marshal(list[i].TotalSupply) // the notation of the list's
		if err != nil {
			panic("rest: encode supply: " + err.Error()) // a finite float64
		}
		ev.supplies[t.Address] = newEntity(supply)
	}
	body, err := json.Marshal(struct {
		Tokens []tokenJSON `json:"tokens"`
	}{list})
	if err != nil {
		panic("rest: encode tokens: " + err.Error()) // plain strings and numbers
	}
	ev.list = newEntity(body)
	return ev
}

// entity is one encoded answer and its validator.
type entity struct {
	body []byte
	etag string
}

func newEntity(body []byte) entity {
	h := fnv.New64a()
	h.Write(body)
	return entity{body: body, etag: fmt.Sprintf(`"%016x"`, h.Sum64())}
}

var jsonContentType = []byte("application/json")

// write answers e, or 304 when the client holds it already.
func (e entity) write(ctx *fasthttp.RequestCtx, cacheControl string) {
	h := &ctx.Response.Header
	h.Set("ETag", e.etag)
	h.Set("Cache-Control", cacheControl)
	if etagMatches(ctx.Request.Header.Peek("If-None-Match"), e.etag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	h.SetContentTypeBytes(jsonContentType)
	ctx.SetBody(e.body)
}
