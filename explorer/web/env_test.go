package web

import (
	"bytes"
	"cmp"
	"context"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/chaintest"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/stocks"
)

// env is a running preview chain with the example tokens, a token index,
// a fake address index and an explorer, all behind a router like the
// node's.
type env struct {
	*chaintest.Env
	t       testing.TB
	stocks  *stocks.Index
	history *fakeHistory
	ex      *Explorer
	router  *testRouter
}

// newEnv starts a chain sealing every blockTime, pre-confirming every
// preconf; extra listeners hear the sequencer after the explorer.
func newEnv(t testing.TB, cfg Config, blockTime, preconf time.Duration, extra ...sequencer.Listener) *env {
	t.Helper()
	c := chaintest.New(t, chaintest.Config{BlockTime: blockTime, PreconfInterval: preconf})
	log := chaintest.Quiet()
	e := &env{Env: c, t: t, stocks: stocks.New(c.Chain, c.Store, contracts.FactoryAddress, log), history: &fakeHistory{chain: c.Chain}}
	var err error
	e.ex, err = New(cfg, Deps{Store: c.Store, Chain: c.Chain, Pool: c.Pool, Tokens: e.stocks, History: e.history, Faucet: fakeFaucet}, log)
	if err != nil {
		t.Fatal(err)
	}
	e.router = newTestRouter()
	e.ex.Register(e.router)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { e.stocks.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	e.Run(append([]sequencer.Listener{e.stocks, e.ex}, extra...)...)
	return e
}

// issueExamples issues the example tokens to dev accounts 0 and 1 and
// waits until the token index lists them.
func (e *env) issueExamples() {
	e.t.Helper()
	txs, err := preview.Transactions(e.ChainID, chain.ExampleIssuerKey(), []common.Address{e.Addr(0), e.Addr(1)})
	if err != nil {
		e.t.Fatal(err)
	}
	e.Add(txs...)
	e.WaitFor("the example tokens", func(*pending.Snapshot) bool {
		v := e.stocks.View()
		return v != nil && len(v.Tokens) >= len(preview.Examples()) && v.Tokens[1].Multiplier.Cmp(big.NewInt(params.Ether)) != 0
	})
}

// get runs one request through the router.
func (e *env) get(path string) *fasthttp.Response { return e.do("GET", path) }

func (e *env) do(method, path string, headers ...string) *fasthttp.Response {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(path)
	for i := 0; i+1 < len(headers); i += 2 {
		ctx.Request.Header.Set(headers[i], headers[i+1])
	}
	e.router.serve(&ctx)
	resp := new(fasthttp.Response)
	ctx.Response.CopyTo(resp)
	return resp
}

// page GETs path, wants 200 and returns the body.
func (e *env) page(path string) string {
	e.t.Helper()
	resp := e.get(path)
	if resp.StatusCode() != fasthttp.StatusOK {
		e.t.Fatalf("GET %s: status %d, body:\n%s", path, resp.StatusCode(), resp.Body())
	}
	return string(resp.Body())
}

// testRouter routes as the node's httpserver does: exact GET paths, then
// prefixes for every method; anything else is the server's 404.
type testRouter struct {
	routes map[string]fasthttp.RequestHandler
	mounts []struct {
		prefix string
		h      fasthttp.RequestHandler
	}
}

func newTestRouter() *testRouter { return &testRouter{routes: map[string]fasthttp.RequestHandler{}} }

func (r *testRouter) Handle(path string, h fasthttp.RequestHandler) { r.routes[path] = h }

func (r *testRouter) Mount(prefix string, h fasthttp.RequestHandler) {
	r.mounts = append(r.mounts, struct {
		prefix string
		h      fasthttp.RequestHandler
	}{prefix, h})
}

func (r *testRouter) serve(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	for _, m := range r.mounts {
		if strings.HasPrefix(path, m.prefix) {
			m.h(ctx)
			return
		}
	}
	if h, ok := r.routes[path]; ok && ctx.IsGet() {
		h(ctx)
		return
	}
	ctx.Error("not found", fasthttp.StatusNotFound)
}

func fakeFaucet() (FaucetInfo, error) {
	return FaucetInfo{
		Enabled: true, Address: common.Address{0xfa}, Balance: new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether)),
		Amount: big.NewInt(params.Ether), Cooldown: 24 * time.Hour, DripsLastHour: 3,
	}, nil
}

// fakeHistory is an address index built by scanning the chain, block by
// block, when a snapshot is taken: what explorer/index keeps in a
// database. Hold makes it trail the chain, as the real one does for a
// moment after every seal.
type fakeHistory struct {
	chain *chain.Chain

	mu        sync.Mutex
	next      uint64                              // the next block to scan
	hold      *uint64                             // scan no block above this
	txs       map[common.Address][]index.Tx       // oldest first
	transfers map[common.Address][]index.Transfer // oldest first
	emitted   map[common.Address][]index.Transfer // by token, oldest first
}

// Hold stops the index at block n (it may be there already or below);
// Release lets it follow the chain again.
func (h *fakeHistory) Hold(n uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUp()
	h.hold = &n
}

func (h *fakeHistory) Release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hold = nil
}

// catchUp scans the blocks sealed since the last call; mu must be held.
func (h *fakeHistory) catchUp() {
	if h.txs == nil {
		h.txs, h.transfers, h.emitted = map[common.Address][]index.Tx{}, map[common.Address][]index.Transfer{}, map[common.Address][]index.Transfer{}
	}
	bc := h.chain.BlockChain()
	head := h.chain.Head().Number.Uint64()
	if h.hold != nil {
		head = min(head, *h.hold)
	}
	for ; h.next <= head; h.next++ {
		block := bc.GetBlockByNumber(h.next)
		receipts := bc.GetReceiptsByHash(block.Hash())
		signer := types.MakeSigner(h.chain.Config(), block.Number(), block.Time())
		for i, tx := range block.Transactions() {
			from, _ := types.Sender(signer, tx)
			entry := index.Tx{Block: block.NumberU64(), Index: uint32(i), Time: block.Time(), Hash: tx.Hash(), From: from, To: tx.To(),
				Value: tx.Value(), Status: uint8(receipts[i].Status), GasUsed: receipts[i].GasUsed, InputLen: uint32(len(tx.Data()))}
			copy(entry.Selector[:], tx.Data())
			other := receipts[i].ContractAddress
			if tx.To() != nil {
				other = *tx.To()
			} else {
				entry.Created = other
			}
			h.txs[from] = append(h.txs[from], entry)
			if other != from {
				h.txs[other] = append(h.txs[other], entry)
			}
			for _, l := range receipts[i].Logs {
				if len(l.Topics) != 3 || l.Topics[0] != transferTopic || len(l.Data) != 32 {
					continue
				}
				t := index.Transfer{Block: l.BlockNumber, TxIndex: uint32(l.TxIndex), LogIndex: uint32(l.Index), Time: block.Time(), TxHash: l.TxHash,
					Token: l.Address, From: common.BytesToAddress(l.Topics[1][12:]), To: common.BytesToAddress(l.Topics[2][12:]), Value: new(big.Int).SetBytes(l.Data)}
				h.emitted[t.Token] = append(h.emitted[t.Token], t)
				for _, a := range []common.Address{t.From, t.To} {
					if len(h.transfers[a]) == 0 || h.transfers[a][len(h.transfers[a])-1] != t {
						h.transfers[a] = append(h.transfers[a], t)
					}
				}
			}
		}
	}
}

// Snapshot catches up (as far as held) and reads as of the last block
// scanned.
func (h *fakeHistory) Snapshot() (HistorySnapshot, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUp()
	return &fakeSnapshot{h: h, indexed: h.next - 1, ok: h.next > 0}, nil
}

// fakeSnapshot reads fakeHistory's entries of the blocks up to indexed:
// the later ones it scans only grow its lists.
type fakeSnapshot struct {
	h       *fakeHistory
	indexed uint64
	ok      bool
}

func (s *fakeSnapshot) Indexed() (uint64, bool) { return s.indexed, s.ok }

func (s *fakeSnapshot) Close() error { return nil }

func (s *fakeSnapshot) txs(addr common.Address) []index.Tx {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return held(s, s.h.txs[addr], func(t index.Tx) uint64 { return t.Block })
}

func (s *fakeSnapshot) transfers(addr common.Address) []index.Transfer {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return held(s, s.h.transfers[addr], func(t index.Transfer) uint64 { return t.Block })
}

func (s *fakeSnapshot) emitted(token common.Address) []index.Transfer {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return held(s, s.h.emitted[token], func(t index.Transfer) uint64 { return t.Block })
}

// held is the entries of blocks up to the snapshot's.
func held[T any](s *fakeSnapshot, all []T, block func(T) uint64) []T {
	var out []T
	for _, e := range all {
		if s.ok && block(e) <= s.indexed {
			out = append(out, e)
		}
	}
	return out
}

func (s *fakeSnapshot) Transactions(addr common.Address, before index.Cursor, limit int) ([]index.Tx, index.Cursor, error) {
	return page(s.txs(addr), before, limit, func(t index.Tx) index.Cursor { return index.Cursor{Block: t.Block, Index: t.Index} })
}

func (s *fakeSnapshot) Transfers(addr common.Address, before index.Cursor, limit int) ([]index.Transfer, index.Cursor, error) {
	return page(s.transfers(addr), before, limit, func(t index.Transfer) index.Cursor {
		return index.Cursor{Block: t.Block, Index: t.TxIndex, Log: t.LogIndex}
	})
}

func (s *fakeSnapshot) TokenTransfers(token common.Address, before index.Cursor, limit int) ([]index.Transfer, index.Cursor, error) {
	return page(s.emitted(token), before, limit, func(t index.Transfer) index.Cursor {
		return index.Cursor{Block: t.Block, Index: t.TxIndex, Log: t.LogIndex}
	})
}

// page returns up to limit entries strictly older than before, newest
// first, and the cursor of the next page (zero when nothing older is left).
func page[T any](all []T, before index.Cursor, limit int, pos func(T) index.Cursor) ([]T, index.Cursor, error) {
	var out []T
	for i := len(all) - 1; i >= 0; i-- {
		if !before.IsZero() && cmpCursor(pos(all[i]), before) >= 0 {
			continue
		}
		if len(out) == limit {
			return out, pos(out[len(out)-1]), nil
		}
		out = append(out, all[i])
	}
	return out, index.Cursor{}, nil
}

func cmpCursor(a, b index.Cursor) int {
	return cmp.Or(cmp.Compare(a.Block, b.Block), cmp.Compare(a.Index, b.Index), cmp.Compare(a.Log, b.Log))
}

func (s *fakeSnapshot) Counts(addr common.Address) (index.Counts, error) {
	return index.Counts{Txs: uint64(len(s.txs(addr))), Transfers: uint64(len(s.transfers(addr))), TokenTransfers: uint64(len(s.emitted(addr)))}, nil
}

func (s *fakeSnapshot) Tokens(addr, after common.Address, limit int) ([]common.Address, error) {
	var tokens []common.Address
	for _, t := range s.transfers(addr) {
		tokens = append(tokens, t.Token)
	}
	return pageAfter(tokens, after, limit), nil
}

// Holders are the addresses a transfer of token went to, the zero address
// (burns) aside.
func (s *fakeSnapshot) Holders(token, after common.Address, limit int) ([]common.Address, error) {
	s.h.mu.Lock()
	var holders []common.Address
	for a, trs := range s.h.transfers {
		for _, t := range trs {
			if t.Token == token && t.To == a && a != (common.Address{}) && s.ok && t.Block <= s.indexed {
				holders = append(holders, a)
			}
		}
	}
	s.h.mu.Unlock()
	return pageAfter(holders, after, limit), nil
}

// pageAfter is a page of addrs, in address order and each once, after after.
func pageAfter(addrs []common.Address, after common.Address, limit int) []common.Address {
	sorted := slices.SortedFunc(slices.Values(addrs), func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	var out []common.Address
	for _, a := range slices.Compact(sorted) {
		if bytes.Compare(a[:], after[:]) > 0 && len(out) < limit {
			out = append(out, a)
		}
	}
	return out
}
