package web

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/node/stocks"
)

// tokenSet is the token index's view of one request; nil-safe while the
// index catches up.
type tokenSet struct{ v *stocks.View }

func (e *Explorer) tokenSet() tokenSet { return tokenSet{e.deps.Tokens.View()} }

// get returns the B20 token at addr, or nil.
func (s tokenSet) get(addr *common.Address) *stocks.Token {
	if s.v == nil || addr == nil {
		return nil
	}
	return s.v.Token(*addr)
}

// find returns the tokens a search names, in any letter case: exact are
// those whose symbol or name is q, partial those whose name or symbol
// holds it. The token index is in memory, and small next to a page of
// history; at most limit of each.
func (s tokenSet) find(q string, limit int) (exact, partial []*stocks.Token) {
	if s.v == nil || q == "" {
		return nil, nil
	}
	lq := strings.ToLower(q)
	for _, t := range s.v.Tokens {
		switch sym, name := strings.ToLower(t.Symbol), strings.ToLower(t.Name); {
		case sym == lq || name == lq:
			if len(exact) < limit {
				exact = append(exact, t)
			}
		case strings.Contains(name, lq) || strings.Contains(sym, lq):
			if len(partial) < limit {
				partial = append(partial, t)
			}
		}
	}
	return exact, partial
}

// tokensData is the token list.
type tokensData struct {
	Block  uint64
	Tokens []*stocks.Token
	Pager  pager
}

func (e *Explorer) tokens(r *request) (result, error) {
	v := e.deps.Tokens.View()
	if v == nil {
		return result{}, unavailable("The token index is catching up with the chain; try again in a moment.")
	}
	from, err := start(r)
	if err != nil {
		return result{}, err
	}
	pg, err := newPager(from, e.cfg.PageSize, len(v.Tokens))
	if err != nil {
		return result{}, err
	}
	d := tokensData{Block: v.Number, Tokens: v.Tokens[pg.Start:pg.End()], Pager: pg}
	return result{page: "tokens", title: "Stock tokens", data: d}, nil
}

// tokenData is a token's page.
type tokenData struct {
	Token     *stocks.Token
	Block     uint64
	SupplyCap *big.Int
	Policies  []policySlot
	// View is "holders" (the default) or "transfers".
	View    string
	Holders []holding
	// TransferCount counts the token's transfers; Transfers are a page of
	// them, newest first (pre-confirmed, then those of sealed blocks the
	// index has not reached, then the index's), Older the next page's
	// cursor, empty at the end.
	TransferCount uint64
	Transfers     []transferRow
	Older         string
	Paged         bool
	After         string // this page's ?after=, empty on the first
	Next          string // the next page's ?after=, empty at the end
	Indexed       uint64
	Head          uint64
	// IndexingBehind: the index trails by more than maxTrail, and the
	// holders may miss the newest.
	IndexingBehind bool
}

// policySlot is one of a token's policy slots and the policy in it.
type policySlot struct {
	Scope  string
	Policy string // empty when the token did not answer
}

// policyScopes are a B20 token's policy slots.
var policyScopes = []struct {
	name  string
	scope common.Hash
}{
	{"Transfer sender", contracts.TransferSenderPolicy},
	{"Transfer receiver", contracts.TransferReceiverPolicy},
	{"Transfer executor", contracts.TransferExecutorPolicy},
	{"Mint receiver", contracts.MintReceiverPolicy},
}

func (e *Explorer) token(r *request) (result, error) {
	id, err := segment(r, "/token/")
	if err != nil {
		return result{}, err
	}
	addr, ok := parseAddress(id)
	if !ok {
		return result{}, badRequest("A token is named by its address: 0x and 40 hex digits.")
	}
	view := string(r.ctx.QueryArgs().Peek("view"))
	switch view {
	case "":
		view = "holders"
	case "holders", "transfers":
	default:
		return result{}, badRequest("view is holders or transfers.")
	}
	before, err := parseCursor(string(r.ctx.QueryArgs().Peek("before")))
	if err != nil {
		return result{}, badRequest("%v", err)
	}
	var after common.Address
	if raw := string(r.ctx.QueryArgs().Peek("after")); raw != "" {
		if after, ok = parseAddress(raw); !ok {
			return result{}, badRequest("after must be a holder's address, as the page's own links write it.")
		}
	}
	v := e.deps.Tokens.View()
	if v == nil {
		return result{}, unavailable("The token index is catching up with the chain; try again in a moment.")
	}
	tok := v.Token(addr)
	if tok == nil {
		return result{}, notFound("%s is not a B20 token created by the factory; its address page may say more.", addr.Hex())
	}
	d := tokenData{Token: tok, Block: v.Number, View: view, Paged: !before.IsZero()}
	if after != (common.Address{}) {
		d.After = after.Hex()
	}
	vw, err := newViewer(e.deps.Chain, r.snap, e.decoder.asset.abi)
	if err != nil {
		return result{}, err
	}
	d.SupplyCap = vw.supplyCap(addr)
	for _, s := range policyScopes {
		slot := policySlot{Scope: s.name}
		if id, ok := vw.policyID(addr, s.scope); ok {
			slot.Policy = policy(id)
		}
		d.Policies = append(d.Policies, slot)
	}
	err = e.withHistory(func(hs HistorySnapshot) error { return e.tokenHistory(r, &d, hs, after, before, vw) })
	if err != nil {
		return result{}, err
	}
	return result{page: "token", title: clip(tok.Symbol, 16) + " · " + clip(tok.Name, 64), data: d}, nil
}

// tokenHistory fills the token's transfer count and its page of holders or
// of transfers from the index snapshot hs and the blocks above it.
func (e *Explorer) tokenHistory(r *request, d *tokenData, hs HistorySnapshot, after common.Address, before index.Cursor, vw *viewer) error {
	addr := d.Token.Address
	t, err := e.trailOf(r, hs)
	if err != nil {
		return err
	}
	d.Indexed, d.Head, d.IndexingBehind = t.indexed, t.head, !t.complete
	// One more than a page: the page, and whether there is more.
	u, err := e.unindexedOf(t, addr, before, e.cfg.PageSize+1)
	if err != nil {
		return err
	}
	counts, err := hs.Counts(addr)
	if err != nil {
		return fmt.Errorf("history counts of %s: %w", addr.Hex(), err)
	}
	d.TransferCount = counts.TokenTransfers + u.sealedTokenTransfers
	if d.View == "transfers" {
		d.Transfers, d.Older, err = e.transferPage(addr, u.tokenTransfers, hs.TokenTransfers, before, e.tokenSet())
		return err
	}
	return e.holders(d, hs, t, after, vw)
}

// holders lists a page of the token's holders after after: the index's and
// those of the sealed blocks above it, in address order, with their
// balances at the head.
func (e *Explorer) holders(d *tokenData, hs HistorySnapshot, t trail, after common.Address, vw *viewer) error {
	addr := d.Token.Address
	// One more than a page, to know whether there is a next one.
	indexed, err := hs.Holders(addr, after, e.cfg.PageSize+1)
	if err != nil {
		return fmt.Errorf("holders of %s: %w", addr.Hex(), err)
	}
	fresh, err := t.holders(addr, after)
	if err != nil {
		return err
	}
	holders := mergeAddresses(indexed, fresh, e.cfg.PageSize+1)
	if len(holders) > e.cfg.PageSize {
		holders = holders[:e.cfg.PageSize]
		d.Next = holders[len(holders)-1].Hex()
	}
	for _, h := range holders {
		d.Holders = append(d.Holders, holding{Token: d.Token, Address: h, Balance: vw.balanceOf(addr, h)})
	}
	return nil
}
