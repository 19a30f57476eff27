package web

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
)

// listed is a row of an address page's list: a transaction's hash, and
// whether the row says it is pre-confirmed.
type listed struct {
	hash string
	pre  bool
}

var (
	rowRe   = regexp.MustCompile(`<tr data-tx-hash="(0x[0-9a-fA-F]{64})"(?: data-log-index="\d+")? data-preconfirmed="(true|false)"`)
	olderRe = regexp.MustCompile(`id="older" rel="next" href="([^"]+)"`)
	nextRe  = regexp.MustCompile(`id="holders-next" rel="next" href="([^"]+)"`)
	countRe = regexp.MustCompile(`(\d+) transactions?, (\d+) token transfers?`)
)

// history follows an address page's list (view txs or transfers) from its
// first page to its last, and returns its rows and the first page.
func (e *env) listHistory(addr common.Address, view string) (rows []listed, first string) {
	e.t.Helper()
	return e.listPages("/address/" + addr.Hex() + "?view=" + view)
}

// listPages follows a list paged by cursor (a#older) from path to its last
// page, and returns its rows and the first page.
func (e *env) listPages(path string) (rows []listed, first string) {
	e.t.Helper()
	for pages := 0; path != ""; pages++ {
		if pages > 20 {
			e.t.Fatalf("more than 20 pages of %s", path)
		}
		body := e.page(path)
		if first == "" {
			first = body
		}
		for _, m := range rowRe.FindAllStringSubmatch(body, -1) {
			rows = append(rows, listed{hash: m[1], pre: m[2] == "true"})
		}
		path = ""
		if m := olderRe.FindStringSubmatch(body); m != nil {
			path = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	return rows, first
}

// holders follows a token page's holders from the first page to the last.
func (e *env) holders(token common.Address) []string {
	e.t.Helper()
	var out []string
	holderRe := regexp.MustCompile(`data-holder="(0x[0-9a-fA-F]{40})"`)
	for path := "/token/" + token.Hex(); path != ""; {
		body := e.page(path)
		for _, m := range holderRe.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		path = ""
		if m := nextRe.FindStringSubmatch(body); m != nil {
			path = m[1]
		}
	}
	return out
}

func hashesOf(txs ...*types.Transaction) []string {
	var out []string
	for _, tx := range txs {
		out = append(out, tx.Hash().Hex())
	}
	return out
}

func pendingHas(s *pending.Snapshot, tx *types.Transaction) bool {
	return s.Pending.Header.Number.Cmp(s.HeadHeader.Number) > 0 && slices.ContainsFunc(s.Pending.Transactions, func(p *types.Transaction) bool { return p.Hash() == tx.Hash() })
}

// The address and token pages show what the wallet's RPC already answers,
// whatever the address index holds: they list, newest first and each once,
// the index's entries, those of the sealed blocks above it and the
// pre-confirmed ones, across pages; and say the index is catching up when
// it trails too far to read the blocks above it.
func TestAddressPagesAboveTheIndex(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PageSize = 2
	e := newEnv(t, cfg, time.Second, 20*time.Millisecond)
	e.issueExamples()
	issuer := crypto.PubkeyToAddress(chain.ExampleIssuerKey().PublicKey)
	xrbt := contracts.B20Address(contracts.VariantAsset, issuer, preview.Salt(preview.Examples()[0]))
	to := common.Address{0x5e, 0x11}

	var early []*types.Transaction
	for range 3 {
		early = append(early, e.Send(0, &to, big.NewInt(1), params.TxGas, nil))
	}
	held := e.WaitSealed(early[2])
	e.history.Hold(held)
	late := []*types.Transaction{e.Send(1, &to, big.NewInt(2), params.TxGas, nil)}
	late = append(late, e.Send(1, &to, big.NewInt(2), params.TxGas, nil))
	amount, _ := contracts.MustLoad(contracts.B20Asset).ABI.Pack("transfer", to, big.NewInt(params.Ether))
	transfer := e.Send(0, &xrbt, nil, 200_000, amount)
	for _, tx := range append(late, transfer) {
		e.WaitSealed(tx)
	}
	pre := e.Send(2, &to, big.NewInt(3), params.TxGas, nil)
	e.WaitFor("the last transaction pre-confirmed", func(s *pending.Snapshot) bool { return pendingHas(s, pre) })

	all := hashesOf(pre, late[1], late[0], early[2], early[1], early[0])
	tests := []struct {
		name  string
		setup func()
		txs   []string // the address's transactions, newest first
		// pre: the newest is pre-confirmed (when the page's snapshot
		// certainly had it so).
		pre       bool
		transfers []string
		counts    string // what the page says of the history
		holder    bool   // the address holds XRBT, on both pages
		behind    bool   // the page says the index is catching up
	}{
		{name: "pre-confirmed, sealed above the index, indexed", setup: func() {},
			txs: all, pre: true, transfers: hashesOf(transfer), counts: "5 transactions, 1 token transfer", holder: true},
		{name: "sealed above the index, indexed", setup: func() { e.WaitSealed(pre) },
			txs: all, transfers: hashesOf(transfer), counts: "6 transactions, 1 token transfer", holder: true},
		{name: "the index trails too far", setup: func() {
			e.ex.trailLimit = 1
			e.WaitFor("the head two blocks above the index", func(s *pending.Snapshot) bool { return s.Head.NumberU64() >= held+2 })
		}, txs: all[3:], counts: "3 transactions, 0 token transfers", behind: true},
		{name: "the index caught up", setup: func() {
			e.ex.trailLimit = maxTrail
			e.history.Release()
		}, txs: all, transfers: hashesOf(transfer), counts: "6 transactions, 1 token transfer", holder: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.setup()
			// Pages are cached per snapshot; the index is not part of it.
			seq := e.Store.Load().Seq
			e.WaitFor("a new snapshot", func(s *pending.Snapshot) bool { return s.Seq > seq })
			before := e.Store.Load()
			rows, first := e.listHistory(to, "txs")
			surely := pendingHas(before, pre) && pendingHas(e.Store.Load(), pre)
			var got []string
			for i, r := range rows {
				got = append(got, r.hash)
				if want := tt.pre && i == 0; r.pre != want && (surely || !tt.pre) {
					t.Errorf("row %d (%s): pre-confirmed %v, want %v", i, r.hash, r.pre, want)
				}
			}
			if !slices.Equal(got, tt.txs) {
				t.Errorf("transactions\n got %v\nwant %v", got, tt.txs)
			}
			if m := countRe.FindString(first); m != tt.counts {
				t.Errorf("counts %q, want %q", m, tt.counts)
			}
			if behind := strings.Contains(first, `id="index-progress"`); behind != tt.behind {
				t.Errorf("catching-up notice %v, want %v", behind, tt.behind)
			}
			if holds := strings.Contains(first, `data-token="`+xrbt.Hex()+`"`); holds != tt.holder {
				t.Errorf("XRBT among the holdings: %v, want %v", holds, tt.holder)
			}
			trs, _ := e.listHistory(to, "transfers")
			got = nil
			for _, r := range trs {
				got = append(got, r.hash)
			}
			if !slices.Equal(got, tt.transfers) {
				t.Errorf("token transfers %v, want %v", got, tt.transfers)
			}
			if listed := slices.Contains(e.holders(xrbt), to.Hex()); listed != tt.holder {
				t.Errorf("among XRBT's holders: %v, want %v", listed, tt.holder)
			}
			// XRBT's own transfers, on its contract's page and its token
			// page: its mints to the issuer and dev accounts 0 and 1, then
			// the transfer once it is shown.
			want := 3
			if len(tt.transfers) > 0 {
				want++
			}
			for _, path := range []string{"/address/" + xrbt.Hex() + "?view=token", "/token/" + xrbt.Hex() + "?view=transfers"} {
				rows, first := e.listPages(path)
				if len(rows) != want || (len(tt.transfers) > 0 && rows[0].hash != tt.transfers[0]) {
					t.Errorf("%s: %v, want %d, newest %v", path, rows, want, tt.transfers)
				}
				if !strings.Contains(first, fmt.Sprintf("%d transfers of this token", want)) && !strings.Contains(first, fmt.Sprintf("Transfers (%d)", want)) {
					t.Errorf("%s does not count %d transfers", path, want)
				}
			}
		})
	}
}

// A pre-confirmed token transfer shows on its recipient's token transfers,
// marked, before its block seals.
func TestPreconfirmedTransfer(t *testing.T) {
	e := newEnv(t, DefaultConfig(), 3*time.Second, 20*time.Millisecond)
	e.issueExamples()
	issuer := crypto.PubkeyToAddress(chain.ExampleIssuerKey().PublicKey)
	xrbt := contracts.B20Address(contracts.VariantAsset, issuer, preview.Salt(preview.Examples()[0]))
	to := common.Address{0x5e, 0x12}
	amount, _ := contracts.MustLoad(contracts.B20Asset).ABI.Pack("transfer", to, big.NewInt(params.Ether))
	tx := e.Send(0, &xrbt, nil, 200_000, amount)
	e.WaitFor("the transfer pre-confirmed", func(s *pending.Snapshot) bool { return pendingHas(s, tx) })
	rows, body := e.listHistory(to, "transfers")
	if len(rows) != 1 || rows[0].hash != tx.Hash().Hex() {
		t.Fatalf("token transfers %v, want %s alone", rows, tx.Hash().Hex())
	}
	// Sealed while the page was read (a slow machine), it is listed
	// either way.
	if pendingHas(e.Store.Load(), tx) {
		if !rows[0].pre {
			t.Error("the pre-confirmed transfer is not marked so")
		}
		wantAll(t, "recipient's transfers", within(t, body, "address-transfers", "</tbody>"), `<span class="badge ok">in</span>`, `<span class="badge pre" data-badge>pre-confirmed</span>`)
	}
}

func TestOlderThan(t *testing.T) {
	c := func(block uint64, tx, log uint32) index.Cursor {
		return index.Cursor{Block: block, Index: tx, Log: log}
	}
	tests := []struct {
		pos, before index.Cursor
		want        bool
	}{
		{c(9, 9, 9), index.Cursor{}, true}, // the first page
		{c(4, 0, 0), c(5, 0, 0), true},
		{c(5, 0, 0), c(5, 0, 0), false}, // the cursor's own entry is on the page before
		{c(5, 1, 0), c(5, 2, 0), true},
		{c(5, 2, 0), c(5, 1, 0), false},
		{c(5, 2, 3), c(5, 2, 4), true},
		{c(5, 2, 4), c(5, 2, 3), false},
		{c(6, 0, 0), c(5, 9, 9), false},
	}
	for _, tt := range tests {
		if got := olderThan(tt.pos, tt.before); got != tt.want {
			t.Errorf("olderThan(%v, %v) = %v, want %v", tt.pos, tt.before, got, tt.want)
		}
	}
}

func TestMergeAddresses(t *testing.T) {
	a, b, c, d := common.Address{1}, common.Address{2}, common.Address{3}, common.Address{4}
	tests := []struct {
		name       string
		sorted, in []common.Address
		limit      int
		want       []common.Address
	}{
		{"nothing", nil, nil, 5, []common.Address{}},
		{"index only", []common.Address{a, c}, nil, 5, []common.Address{a, c}},
		{"chain only, unsorted, twice", nil, []common.Address{d, b, d}, 5, []common.Address{b, d}},
		{"both, overlapping", []common.Address{a, c}, []common.Address{c, b}, 5, []common.Address{a, b, c}},
		{"cut at the limit", []common.Address{a, c}, []common.Address{d, b}, 3, []common.Address{a, b, c}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mergeAddresses(tt.sorted, tt.in, tt.limit); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
