package web

import (
	"errors"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/node/stocks"
)

// searchData is the page of a search that found several tokens, or none.
type searchData struct {
	Query  string
	Tokens []*stocks.Token
}

// search sends a block number (decimal or 0x hex) or hash, a transaction
// hash, an address or a token's symbol or name to its page (303), lists
// the tokens it may mean, or says nothing was found.
func (e *Explorer) search(r *request) (result, error) {
	q := strings.TrimSpace(string(r.ctx.QueryArgs().Peek("q")))
	switch {
	case q == "":
		return result{}, badRequest("Type a block number or hash, a transaction hash, an address, or a token's symbol or name.")
	case len(q) > maxQuery:
		return result{}, badRequest("The search is too long: a hash is 66 characters.")
	}
	if to, err := e.resolve(r, q); err != nil || to != "" {
		return result{redirect: to}, err
	}
	// A token by its symbol or name: one that is exactly the query is
	// the answer; else the one token whose name or symbol holds it.
	exact, partial := e.tokenSet().find(q, e.cfg.PageSize)
	switch {
	case len(exact) == 1:
		return result{redirect: "/token/" + exact[0].Address.Hex()}, nil
	case len(exact) == 0 && len(partial) == 1:
		return result{redirect: "/token/" + partial[0].Address.Hex()}, nil
	case len(exact) == 0 && len(partial) == 0:
		return result{}, &httpError{fasthttp.StatusNotFound, "Nothing found",
			"No block, transaction, address, token name or symbol matches “" + clip(q, echoLimit) + "”."}
	}
	matches := append(exact, partial...)
	return result{page: "search", title: "Search", data: searchData{Query: clip(q, echoLimit), Tokens: matches[:min(len(matches), e.cfg.PageSize)]}}, nil
}

// resolve finds the page of a number, hash or address; "" when q is none
// of them.
func (e *Explorer) resolve(r *request, q string) (string, error) {
	if n, ok := parseNumber(q); ok {
		if _, err := e.findBlock(r.snap, q); err != nil {
			return "", err
		}
		return "/block/" + strconv.FormatUint(n, 10), nil
	}
	if addr, ok := parseAddress(q); ok {
		return "/address/" + addr.Hex(), nil
	}
	hash, ok := parseHash(q)
	if !ok {
		return "", nil
	}
	if b, err := e.findBlock(r.snap, hash.Hex()); err == nil {
		return "/block/" + b.Hash().Hex(), nil
	}
	if _, err := e.findTx(r.snap, hash); err != nil {
		var he *httpError
		if errors.As(err, &he) && he.status == fasthttp.StatusNotFound {
			return "", notFound("No block or transaction has the hash %s.", hash.Hex())
		}
		return "", err
	}
	return "/tx/" + hash.Hex(), nil
}
