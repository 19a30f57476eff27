// Package etherscan serves the account module of Etherscan's read API
// (GET /api?module=account&action=txlist|tokentx|balance) from the node's
// address index, in Etherscan's shapes: {status, message, result}, every
// number a decimal string, fields in Etherscan's order, and Etherscan's
// messages for its errors. Tools written against Etherscan (wallet
// histories, accounting exports, block explorer clients) read this chain
// unchanged.
package etherscan

import (
	"log/slog"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
)

// Path is where the API is served.
const Path = "/api"

// Tokens names the tokens that token transfers mention.
type Tokens interface {
	// Token returns the token at addr's name, symbol and decimals; ok is
	// false for a contract the node does not know as a token.
	Token(addr common.Address) (name, symbol string, decimals uint8, ok bool)
}

// maxLag is how many blocks the index may trail the chain's head before
// history answers say it is catching up, rather than leave out the
// newest transactions silently. Following the head it trails by one
// block at most.
const maxLag = 16

// API answers Etherscan requests. It is safe for concurrent use.
type API struct {
	cfg    Config
	calls  *callbound.Bound // the bound of history requests
	index  *index.Index
	store  *pending.Store
	chain  *chain.Chain
	tokens Tokens
	log    *slog.Logger
}

// New returns the API, bounded by cfg, over the address index idx of
// chain c, the pending store for balances and tokens for token names
// (nil: every token is unknown). Close stops it.
func New(cfg Config, idx *index.Index, store *pending.Store, c *chain.Chain, tokens Tokens, log *slog.Logger) (*API, error) {
	cfg, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if tokens == nil {
		tokens = noTokens{}
	}
	calls := callbound.New(callbound.Config{Workers: cfg.Workers, Queue: cfg.Queue})
	return &API{cfg: cfg, calls: calls, index: idx, store: store, chain: c, tokens: tokens, log: log}, nil
}

type noTokens struct{}

func (noTokens) Token(common.Address) (string, string, uint8, bool) { return "", "", 0, false }

// Etherscan's messages, word for word where Etherscan has one.
const (
	msgModule    = "Error! Missing Or invalid Module name"
	msgAction    = "Error! Missing Or invalid Action name"
	msgAddress   = "Error! Invalid address format"
	msgWindow    = "Result window is too large, PageNo x Offset size must be less than or equal to 10000"
	msgNoTxs     = "No transactions found"
	msgChainID   = "Error! Missing or unsupported chainid parameter: this node serves chain "
	msgContract  = "Error! Invalid contractaddress format"
	msgTag       = "Error! Invalid tag: latest or pending"
	msgSort      = "Error! Invalid sort order: asc or desc"
	msgNotLoaded = "Error! The node has not loaded its state yet; retry in a second"
)

// Handler serves GET and HEAD requests for Path; the server handles CORS.
func (a *API) Handler(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Error("Method Not Allowed", fasthttp.StatusMethodNotAllowed) // resets the headers
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		return
	}
	args := ctx.QueryArgs()
	if string(args.Peek("module")) != "account" {
		writeError(ctx, msgModule)
		return
	}
	if id := args.Peek("chainid"); len(id) > 0 && string(id) != a.chain.Config().ChainID.String() {
		writeError(ctx, msgChainID+a.chain.Config().ChainID.String())
		return
	}
	switch string(args.Peek("action")) {
	case "txlist":
		a.txlist(ctx, args)
	case "tokentx":
		a.tokentx(ctx, args)
	case "balance":
		a.balance(ctx, args)
	default:
		writeError(ctx, msgAction)
	}
}

func (a *API) balance(ctx *fasthttp.RequestCtx, args *fasthttp.Args) {
	addr, ok := parseAddress(args.Peek("address"))
	if !ok {
		writeError(ctx, msgAddress)
		return
	}
	snap := a.store.Load()
	if snap == nil {
		writeError(ctx, msgNotLoaded)
		return
	}
	reader := snap.LatestReader()
	switch string(args.Peek("tag")) {
	case "", "latest":
	case "pending":
		reader = snap.PendingReader()
	default:
		writeError(ctx, msgTag)
		return
	}
	acct, err := reader.Account(addr)
	if err != nil {
		a.log.Warn("Etherscan API: balance unreadable", "address", addr, "err", err)
		writeError(ctx, "Error! The balance is unreadable; the node's log says why")
		return
	}
	balance := "0"
	if acct != nil {
		balance = acct.Balance.Dec()
	}
	out := codec.AppendString(appendHead(nil, "1", "OK"), balance)
	write(ctx, append(out, '}'))
}

// history is what txlist and tokentx have in common: the window of an
// address's history a request asks for, and the head its confirmations
// count from.
type history struct {
	addr  common.Address
	query index.Query
	head  uint64
}

// parseHistory reads the parameters of a history request, answering the
// error itself when there is one.
func (a *API) parseHistory(ctx *fasthttp.RequestCtx, args *fasthttp.Args) (history, bool) {
	addr, ok := parseAddress(args.Peek("address"))
	if !ok {
		writeError(ctx, msgAddress)
		return history{}, false
	}
	q, msg := parseQuery(args, a.cfg)
	if msg != "" {
		writeError(ctx, msg)
		return history{}, false
	}
	indexed, head := a.index.Progress()
	if head > indexed+maxLag {
		writeError(ctx, catchingUp(indexed, head))
		return history{}, false
	}
	return history{addr: addr, query: q, head: head}, true
}

func catchingUp(indexed, head uint64) string {
	return "Error! The address index is catching up with the chain (block " + uitoa(indexed) + " of " + uitoa(head) + "); retry shortly"
}

func (a *API) txlist(ctx *fasthttp.RequestCtx, args *fasthttp.Args) {
	h, ok := a.parseHistory(ctx, args)
	if !ok {
		return
	}
	var out []byte
	var err error
	if !a.bounded(ctx, func() { out, err = a.txlistAnswer(h) }) {
		return
	}
	if err != nil {
		a.failed(ctx, "txlist", err)
		return
	}
	write(ctx, out)
}

// txlistAnswer reads and encodes h's transactions.
func (a *API) txlistAnswer(h history) ([]byte, error) {
	txs, err := a.index.QueryTransactions(h.addr, h.query)
	if err != nil || len(txs) == 0 {
		return noneAnswer(), err
	}
	out, err := a.appendTxs(append(appendHead(make([]byte, 0, 64+len(txs)*txSize), "1", "OK"), '['), txs, h.head)
	if err != nil {
		return nil, err
	}
	return append(out, "]}"...), nil
}

func (a *API) tokentx(ctx *fasthttp.RequestCtx, args *fasthttp.Args) {
	var token *common.Address
	if raw := args.Peek("contractaddress"); len(raw) > 0 {
		addr, ok := parseAddress(raw)
		if !ok {
			writeError(ctx, msgContract)
			return
		}
		token = &addr
	}
	h, ok := a.parseHistory(ctx, args)
	if !ok {
		return
	}
	var out []byte
	var err error
	if !a.bounded(ctx, func() { out, err = a.tokentxAnswer(h, token) }) {
		return
	}
	if err != nil {
		a.failed(ctx, "tokentx", err)
		return
	}
	write(ctx, out)
}

// tokentxAnswer reads and encodes h's token transfers (of token, when not nil).
func (a *API) tokentxAnswer(h history, token *common.Address) ([]byte, error) {
	trs, err := a.index.QueryTransfers(h.addr, token, h.query)
	if err != nil || len(trs) == 0 {
		return noneAnswer(), err
	}
	out, err := a.appendTransfers(append(appendHead(make([]byte, 0, 64+len(trs)*transferSize), "1", "OK"), '['), trs, h.head)
	if err != nil {
		return nil, err
	}
	return append(out, "]}"...), nil
}

// failed answers an error of the node's own (the request was valid).
func (a *API) failed(ctx *fasthttp.RequestCtx, action string, err error) {
	a.log.Warn("Etherscan API: index unreadable", "action", action, "err", err)
	writeError(ctx, "Error! The address index is unreadable; the node's log says why")
}
