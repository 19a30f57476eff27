package web

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/node/stocks"
)

// maxHoldings bounds the balanceOf calls of one address page: the B20
// tokens an address touched are few, but an address can be sent anything.
const maxHoldings = 50

// maxTouched bounds the tokens an address page looks through for its B20
// holdings (the index's largest page).
const maxTouched = 100

// addressData is the address page.
type addressData struct {
	Address common.Address
	Name    string        // a protocol contract's name
	Token   *stocks.Token // set when the address is a B20 token

	Contract       bool
	CodeSize       int
	Balance        *big.Int
	PendingBalance *big.Int
	Nonce          uint64
	PendingNonce   uint64

	Holdings     []holding
	MoreHoldings int

	View          string // "txs", "transfers" or "token"
	TxCount       uint64
	TransferCount uint64
	// TokenTransferCount counts the transfers of the token at the address
	// (the Transfer logs it emitted), which view "token" lists.
	TokenTransferCount uint64
	// Txs and Transfers are a page of the address's history, newest
	// first: pre-confirmed entries, then those of sealed blocks the index
	// has not reached, then the index's.
	Txs            []txEntry
	Transfers      []transferRow
	Older          string // the next page's cursor, empty at the end
	Paged          bool   // this is not the first page
	Indexed, Head  uint64
	IndexingBehind bool // the index trails by more than maxTrail: the history may miss the newest
}

// holding is an address's balance of one token.
type holding struct {
	Token   *stocks.Token
	Address common.Address
	Balance *big.Int
}

// transferRow is a token transfer seen from one address.
type transferRow struct {
	index.Transfer
	Token *stocks.Token
	// In and Out say which side the page's address is on (both for a
	// transfer to itself).
	In, Out bool
	Pre     bool // pre-confirmed
}

func (e *Explorer) address(r *request) (result, error) {
	id, err := segment(r, "/address/")
	if err != nil {
		return result{}, err
	}
	addr, ok := parseAddress(id)
	if !ok {
		return result{}, badRequest("An address is 0x and 40 hex digits.")
	}
	view := string(r.ctx.QueryArgs().Peek("view"))
	switch view {
	case "":
		view = "txs"
	case "txs", "transfers", "token":
	default:
		return result{}, badRequest("view is txs, transfers or token.")
	}
	before, err := parseCursor(string(r.ctx.QueryArgs().Peek("before")))
	if err != nil {
		return result{}, badRequest("%v", err)
	}
	tokens := e.tokenSet()
	d := addressData{Address: addr, Name: knownNames[addr], Token: tokens.get(&addr), View: view, Paged: !before.IsZero()}
	if err := e.account(r, &d); err != nil {
		return result{}, err
	}
	err = e.withHistory(func(hs HistorySnapshot) error { return e.history(r, &d, hs, before, tokens) })
	if err != nil {
		return result{}, err
	}
	return result{page: "address", title: "Address " + addr.Hex(), data: d}, nil
}

// withHistory runs f over a snapshot of the address index.
func (e *Explorer) withHistory(f func(HistorySnapshot) error) (err error) {
	hs, err := e.deps.History.Snapshot()
	if err != nil {
		return err
	}
	defer func() {
		if cerr := hs.Close(); err == nil {
			err = cerr
		}
	}()
	return f(hs)
}

// history fills the address's counts, holdings and page of history from
// the index snapshot hs and the blocks above it.
func (e *Explorer) history(r *request, d *addressData, hs HistorySnapshot, before index.Cursor, tokens tokenSet) error {
	t, err := e.trailOf(r, hs)
	if err != nil {
		return err
	}
	d.Indexed, d.Head, d.IndexingBehind = t.indexed, t.head, !t.complete
	// One more than a page of each: the page, and whether there is more.
	u, err := e.unindexedOf(t, d.Address, before, e.cfg.PageSize+1)
	if err != nil {
		return err
	}
	counts, err := hs.Counts(d.Address)
	if err != nil {
		return fmt.Errorf("history counts of %s: %w", d.Address.Hex(), err)
	}
	d.TxCount, d.TransferCount = counts.Txs+u.sealedTxs, counts.Transfers+u.sealedTransfers
	d.TokenTransferCount = counts.TokenTransfers + u.sealedTokenTransfers
	if err := e.holdings(r, d, hs, u, tokens); err != nil {
		return err
	}
	switch d.View {
	case "transfers":
		d.Transfers, d.Older, err = e.transferPage(d.Address, u.transfers, hs.Transfers, u.before, tokens)
		return err
	case "token":
		d.Transfers, d.Older, err = e.transferPage(d.Address, u.tokenTransfers, hs.TokenTransfers, u.before, tokens)
		return err
	}
	return e.transactions(d, hs, u)
}

// account reads the address's balance and nonce at latest and pending.
func (e *Explorer) account(r *request, d *addressData) error {
	latest, err := readAccount(r.snap.LatestReader(), d.Address)
	if err != nil {
		return err
	}
	pend, err := readAccount(r.snap.PendingReader(), d.Address)
	if err != nil {
		return err
	}
	d.Balance, d.Nonce = latest.Balance.ToBig(), latest.Nonce
	d.PendingBalance = pend.Balance.ToBig()
	// As eth_getTransactionCount("pending"): pooled transactions count too.
	d.PendingNonce = e.deps.Pool.PendingNonce(d.Address, pend.Nonce)
	if hash := common.BytesToHash(latest.CodeHash); hash != types.EmptyCodeHash {
		d.Contract = true
		d.CodeSize = r.snap.LatestReader().CodeSize(d.Address, hash)
	}
	return nil
}

// readAccount reads an account; a missing one reads as empty.
func readAccount(reader state.Reader, addr common.Address) (*types.StateAccount, error) {
	acct, err := reader.Account(addr)
	if err != nil {
		return nil, fmt.Errorf("account %s: %w", addr.Hex(), err)
	}
	if acct == nil {
		return types.NewEmptyStateAccount(), nil
	}
	return acct, nil
}

// holdings reads the address's balance of every B20 token it ever touched,
// at the head.
func (e *Explorer) holdings(r *request, d *addressData, hs HistorySnapshot, u *unindexed, tokens tokenSet) error {
	// Beyond maxTouched tokens the page names no more: a spam token
	// airdropped everywhere must not make every address page slow.
	indexed, err := hs.Tokens(d.Address, common.Address{}, maxTouched)
	if err != nil {
		return fmt.Errorf("tokens of %s: %w", d.Address.Hex(), err)
	}
	var b20 []*stocks.Token
	for _, t := range mergeAddresses(indexed, u.tokens, maxTouched) {
		if tok := tokens.get(&t); tok != nil {
			b20 = append(b20, tok)
		}
	}
	if len(b20) == 0 {
		return nil
	}
	d.MoreHoldings = max(0, len(b20)-maxHoldings)
	v, err := newViewer(e.deps.Chain, r.snap, e.decoder.asset.abi)
	if err != nil {
		return err
	}
	for _, tok := range b20[:min(len(b20), maxHoldings)] {
		d.Holdings = append(d.Holdings, holding{Token: tok, Address: tok.Address, Balance: v.balanceOf(tok.Address, d.Address)})
	}
	return nil
}

// mergeAddresses returns the first limit addresses of the sorted list a
// and the unsorted b together, in address order, each once.
func mergeAddresses(a, b []common.Address, limit int) []common.Address {
	out := append(slices.Clone(a), b...)
	slices.SortFunc(out, func(x, y common.Address) int { return x.Cmp(y) })
	out = slices.Compact(out)
	return out[:min(len(out), limit)]
}

// transactions lists a page of the address's transactions: those the
// index does not hold yet (u), newest, then the index's.
func (e *Explorer) transactions(d *addressData, hs HistorySnapshot, u *unindexed) error {
	txs, next, err := hs.Transactions(d.Address, u.before, e.cfg.PageSize)
	if err != nil {
		return fmt.Errorf("transactions of %s: %w", d.Address.Hex(), err)
	}
	list := u.txs
	for _, t := range txs {
		list = append(list, txEntry{Tx: t})
	}
	more := len(list) > e.cfg.PageSize || !next.IsZero()
	list = list[:min(len(list), e.cfg.PageSize)]
	for i := range list {
		list[i].Method = e.decoder.methodName(list[i].Selector[:min(4, list[i].InputLen)])
	}
	d.Txs = list
	if more {
		last := list[len(list)-1]
		d.Older = cursorString(index.Cursor{Block: last.Block, Index: last.Index})
	}
	return nil
}

// transferPage lists a page of transfers older than before, newest
// first: those the index does not hold yet (fresh), then those read from
// the index; older is the next page's cursor, empty at the end. Rows say
// which side of each transfer addr is on.
func (e *Explorer) transferPage(addr common.Address, fresh []transferEntry,
	read func(common.Address, index.Cursor, int) ([]index.Transfer, index.Cursor, error),
	before index.Cursor, tokens tokenSet) (rows []transferRow, older string, err error) {
	ts, next, err := read(addr, before, e.cfg.PageSize)
	if err != nil {
		return nil, "", fmt.Errorf("transfers of %s: %w", addr.Hex(), err)
	}
	list := fresh
	for _, t := range ts {
		list = append(list, transferEntry{Transfer: t})
	}
	more := len(list) > e.cfg.PageSize || !next.IsZero()
	list = list[:min(len(list), e.cfg.PageSize)]
	for _, t := range list {
		rows = append(rows, transferRow{Transfer: t.Transfer, Token: tokens.get(&t.Token), In: t.To == addr, Out: t.From == addr, Pre: t.Pre})
	}
	if more {
		last := list[len(list)-1]
		older = cursorString(index.Cursor{Block: last.Block, Index: last.TxIndex, Log: last.LogIndex})
	}
	return rows, older, nil
}
