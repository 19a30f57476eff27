package web

import (
	"fmt"
	"math/big"

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

	View           string // "txs" or "transfers"
	TxCount        uint64
	TransferCount  uint64
	Preconfirmed   []txRow // on the first page of transactions
	Txs            []index.Tx
	Transfers      []transferRow
	Older          string // the next page's cursor, empty at the end
	Paged          bool   // this is not the first page
	Indexed, Head  uint64
	IndexingBehind bool
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
	case "txs", "transfers":
	default:
		return result{}, badRequest("view is txs or transfers.")
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
	counts, err := e.deps.History.Counts(addr)
	if err != nil {
		return result{}, fmt.Errorf("history counts of %s: %w", addr.Hex(), err)
	}
	d.TxCount, d.TransferCount = counts.Txs, counts.Transfers
	d.Indexed, d.Head = e.deps.History.Progress()
	d.IndexingBehind = d.Indexed < d.Head
	if err := e.holdings(r, &d, tokens); err != nil {
		return result{}, err
	}
	if view == "transfers" {
		err = e.transfers(&d, before, tokens)
	} else {
		err = e.transactions(r, &d, before, tokens)
	}
	if err != nil {
		return result{}, err
	}
	return result{page: "address", title: "Address " + addr.Hex(), data: d}, nil
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
func (e *Explorer) holdings(r *request, d *addressData, tokens tokenSet) error {
	// Beyond maxTouched tokens the page names no more: a spam token
	// airdropped everywhere must not make every address page slow.
	touched, err := e.deps.History.Tokens(d.Address, common.Address{}, maxTouched)
	if err != nil {
		return fmt.Errorf("tokens of %s: %w", d.Address.Hex(), err)
	}
	var b20 []*stocks.Token
	for _, t := range touched {
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

// transactions lists a page of the address's transactions, and on the
// first page its pre-confirmed ones above them.
func (e *Explorer) transactions(r *request, d *addressData, before index.Cursor, tokens tokenSet) error {
	txs, next, err := e.deps.History.Transactions(d.Address, before, e.cfg.PageSize)
	if err != nil {
		return fmt.Errorf("transactions of %s: %w", d.Address.Hex(), err)
	}
	d.Txs, d.Older = txs, cursorString(next)
	if !before.IsZero() {
		return nil
	}
	p := r.snap.Pending
	if p.Header.Number.Cmp(r.snap.HeadHeader.Number) <= 0 {
		return nil
	}
	signer := types.MakeSigner(e.deps.Chain.Config(), p.Header.Number, p.Header.Time)
	for i := len(p.Transactions) - 1; i >= 0 && len(d.Preconfirmed) < e.cfg.PageSize; i-- {
		tx := p.Transactions[i]
		from, _ := types.Sender(signer, tx)
		to, created := tx.To(), p.Receipts[i].ContractAddress
		if from == d.Address || (to != nil && *to == d.Address) || (to == nil && created == d.Address) {
			row := e.row(signer, tx, p.Receipts[i], p.Header.Number.Uint64(), p.Header.BaseFee, tokens)
			row.Pre = true
			d.Preconfirmed = append(d.Preconfirmed, row)
		}
	}
	return nil
}

// transfers lists a page of the address's token transfers.
func (e *Explorer) transfers(d *addressData, before index.Cursor, tokens tokenSet) error {
	ts, next, err := e.deps.History.Transfers(d.Address, before, e.cfg.PageSize)
	if err != nil {
		return fmt.Errorf("transfers of %s: %w", d.Address.Hex(), err)
	}
	d.Older = cursorString(next)
	for _, t := range ts {
		d.Transfers = append(d.Transfers, transferRow{Transfer: t, Token: tokens.get(&t.Token), In: t.To == d.Address, Out: t.From == d.Address})
	}
	return nil
}
