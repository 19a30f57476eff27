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
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/internal/testchain"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/stocks"
)

// env is a running preview chain with the example tokens, a token index,
// a fake address index and an explorer, all behind a router like the
// node's.
type env struct {
	*testchain.Env
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
	c := testchain.New(t, testchain.Config{BlockTime: blockTime, PreconfInterval: preconf})
	log := testchain.Quiet()
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
// block, on every call: what explorer/index keeps in a database.
type fakeHistory struct {
	chain *chain.Chain

	mu        sync.Mutex
	next      uint64                              // the next block to scan
	txs       map[common.Address][]index.Tx       // oldest first
	transfers map[common.Address][]index.Transfer // oldest first
	tokens    map[common.Address][]common.Address
	holders   map[common.Address][]common.Address
}

var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// catchUp scans the blocks sealed since the last call; mu must be held.
func (h *fakeHistory) catchUp() {
	if h.txs == nil {
		h.txs, h.transfers = map[common.Address][]index.Tx{}, map[common.Address][]index.Transfer{}
		h.tokens, h.holders = map[common.Address][]common.Address{}, map[common.Address][]common.Address{}
	}
	bc := h.chain.BlockChain()
	head := h.chain.Head().Number.Uint64()
	for ; h.next <= head; h.next++ {
		block := bc.GetBlockByNumber(h.next)
		receipts := bc.GetReceiptsByHash(block.Hash())
		signer := types.MakeSigner(h.chain.Config(), block.Number(), block.Time())
		for i, tx := range block.Transactions() {
			from, _ := types.Sender(signer, tx)
			entry := index.Tx{Block: block.NumberU64(), Index: uint32(i), Time: block.Time(), Hash: tx.Hash(), From: from, To: tx.To(),
				Value: tx.Value(), Status: uint8(receipts[i].Status), GasUsed: receipts[i].GasUsed}
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
				for _, a := range []common.Address{t.From, t.To} {
					if a == (common.Address{}) {
						continue
					}
					if len(h.transfers[a]) == 0 || h.transfers[a][len(h.transfers[a])-1] != t {
						h.transfers[a] = append(h.transfers[a], t)
					}
					if !slices.Contains(h.tokens[a], t.Token) {
						h.tokens[a] = append(h.tokens[a], t.Token)
					}
				}
				if t.To != (common.Address{}) && !slices.Contains(h.holders[t.Token], t.To) {
					h.holders[t.Token] = append(h.holders[t.Token], t.To)
				}
			}
		}
	}
}

func (h *fakeHistory) Transactions(addr common.Address, before index.Cursor, limit int) ([]index.Tx, index.Cursor, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUp()
	return page(h.txs[addr], before, limit, func(t index.Tx) index.Cursor { return index.Cursor{Block: t.Block, Index: t.Index} })
}

func (h *fakeHistory) Transfers(addr common.Address, before index.Cursor, limit int) ([]index.Transfer, index.Cursor, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUp()
	return page(h.transfers[addr], before, limit, func(t index.Transfer) index.Cursor {
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

func (h *fakeHistory) Counts(addr common.Address) (index.Counts, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUp()
	return index.Counts{Txs: uint64(len(h.txs[addr])), Transfers: uint64(len(h.transfers[addr]))}, nil
}

func (h *fakeHistory) Tokens(addr, after common.Address, limit int) ([]common.Address, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUp()
	tokens := slices.SortedFunc(slices.Values(h.tokens[addr]), func(a, b common.Address) int { return a.Cmp(b) })
	var page []common.Address
	for _, t := range tokens {
		if t.Cmp(after) > 0 && len(page) < limit {
			page = append(page, t)
		}
	}
	return page, nil
}

func (h *fakeHistory) Holders(token, after common.Address, limit int) ([]common.Address, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUp()
	sorted := slices.SortedFunc(slices.Values(h.holders[token]), func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	var out []common.Address
	for _, a := range sorted {
		if bytes.Compare(a[:], after[:]) > 0 && len(out) < limit {
			out = append(out, a)
		}
	}
	return out, nil
}

func (h *fakeHistory) Progress() (uint64, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUp()
	return h.next - 1, h.chain.Head().Number.Uint64()
}
