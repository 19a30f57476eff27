// Package web is the node's block explorer and faucet page: server-rendered
// HTML over the node's own snapshots, chain database, token index and
// address index, with a little JavaScript that follows the chain live over
// the node's WebSocket. Every asset is embedded; no page loads anything from
// another host, and every page reads without JavaScript.
//
// Pages never slow the RPC hot path: a request loads the current snapshot
// once and reads blocks and receipts by number or hash, and the home page's
// chain statistics come from a small ring of block summaries that the
// sequencer's listener calls fill (Sealed), not from scanning the chain.
package web

import (
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/stocks"
)

// Config names the network and sizes the pages.
type Config struct {
	// Network is the network's name (preview): in page titles, the wallet's
	// chain name and the faucet API's path.
	Network string
	// ChainID is what wallet_addEthereumChain asks the wallet to add.
	ChainID uint64
	// PageSize is the length of every paginated list (clamped to 1..100).
	PageSize int
	// HomeSize is the length of the home page's lists (clamped to 1..50).
	HomeSize int
	// Renders bounds the pages rendered at once, so that a flood of page
	// requests takes at most that many cores from the RPC; 0 means half
	// of GOMAXPROCS, at least one. RenderWait is how long a page waits
	// for its turn before it is answered 503 (0: DefaultRenderWait).
	Renders    int
	RenderWait time.Duration
	// FaucetAPI is the faucet API's path prefix: the page posts to
	// FaucetAPI+"/drip". Empty: "/api/{Network}/faucet".
	FaucetAPI string
	// WSPath is the node's WebSocket endpoint that pages follow the chain
	// over; empty turns live updates off (the node runs without /ws).
	WSPath string
}

// DefaultConfig is the preview network's explorer.
func DefaultConfig() Config {
	return Config{Network: "preview", ChainID: chain.PreviewChainID, PageSize: 25, HomeSize: 12, WSPath: "/ws"}
}

// History is the address index the address and token pages read.
type History interface {
	// Snapshot returns the index as of one moment, which a page reads
	// all of its history from; the page closes it.
	Snapshot() (HistorySnapshot, error)
}

// HistorySnapshot is the address index as of one moment (explorer/index's
// *Snapshot): every read sees the blocks up to Indexed.
type HistorySnapshot interface {
	// Indexed reports the last block the snapshot holds; ok is false when
	// it holds none.
	Indexed() (number uint64, ok bool)
	// Transactions returns an address's transactions strictly older than
	// before, newest first, and the cursor of the next page (zero at the end).
	Transactions(addr common.Address, before index.Cursor, limit int) ([]index.Tx, index.Cursor, error)
	// Transfers returns an address's token transfers like Transactions.
	Transfers(addr common.Address, before index.Cursor, limit int) ([]index.Transfer, index.Cursor, error)
	// TokenTransfers returns the transfers of the token at token (the
	// Transfer logs it emitted) like Transactions.
	TokenTransfers(token common.Address, before index.Cursor, limit int) ([]index.Transfer, index.Cursor, error)
	// Counts returns how many transactions and transfers an address has.
	Counts(addr common.Address) (index.Counts, error)
	// Tokens returns a page of the tokens an address ever sent or
	// received, in address order, strictly after after.
	Tokens(addr, after common.Address, limit int) ([]common.Address, error)
	// Holders returns the addresses that ever held token, in address order,
	// strictly after after.
	Holders(token, after common.Address, limit int) ([]common.Address, error)
	Close() error
}

// IndexHistory is the History of explorer/index's address index.
func IndexHistory(x *index.Index) History { return indexHistory{x} }

type indexHistory struct{ x *index.Index }

func (h indexHistory) Snapshot() (HistorySnapshot, error) {
	s, err := h.x.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("address index: %w", err)
	}
	return s, nil
}

// Pool is the transaction pool (node/txpool's *Pool).
type Pool interface {
	// Get returns a pooled transaction, or nil.
	Get(hash common.Hash) *types.Transaction
	// PendingNonce returns the next nonce of an address whose nonce in
	// the pending state is stateNonce, counting pooled transactions.
	PendingNonce(addr common.Address, stateNonce uint64) uint64
}

// Tokens is the B20 token index (node/stocks' *Index).
type Tokens interface {
	// View returns the tokens at the head, nil while the index catches up.
	View() *stocks.View
}

// FaucetInfo is the faucet's state, as the faucet page shows it.
type FaucetInfo struct {
	// Enabled is false when the node runs no faucet.
	Enabled bool
	// Address is the faucet's account; Balance what it holds (wei).
	Address common.Address
	Balance *big.Int
	// Amount is what one drip sends (wei).
	Amount *big.Int
	// Cooldown is how long an address waits between drips.
	Cooldown time.Duration
	// DripsLastHour counts the drips of the last hour.
	DripsLastHour int
	// CaptchaProvider ("turnstile" or "hcaptcha") and CaptchaSiteKey are
	// set when a drip needs a solved captcha: the page then shows the
	// provider's widget, the one thing a page loads from another host,
	// and only because the operator asked for it (--faucet.captcha).
	CaptchaProvider, CaptchaSiteKey string
}

// Deps are what the explorer reads.
type Deps struct {
	Store   *pending.Store
	Chain   *chain.Chain
	Pool    Pool
	Tokens  Tokens
	History History
	// Faucet reports the faucet's state; nil when the node has no faucet.
	Faucet func() (FaucetInfo, error)
}

// Router is where the explorer registers its pages (httpserver.Server):
// Handle serves GET on one exact path, Mount every method under a prefix.
type Router interface {
	Handle(path string, h fasthttp.RequestHandler)
	Mount(prefix string, h fasthttp.RequestHandler)
}

// Explorer serves the pages. It is safe for concurrent use, and is the
// sequencer.Listener that keeps the home page's statistics.
type Explorer struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	pages   *pages
	assets  *assets
	decoder *decoder
	recent  ring
	renders chan struct{} // a slot per page being rendered (Config.Renders)
	cache   atomic.Pointer[pageCache]
	// trailLimit is maxTrail; tests lower it.
	trailLimit uint64
}

var _ sequencer.Listener = (*Explorer)(nil)

// New returns the explorer; it reads the chain's last few blocks so that the
// home page has blocks to show before the next one seals.
func New(cfg Config, deps Deps, log *slog.Logger) (*Explorer, error) {
	if deps.Store == nil || deps.Chain == nil || deps.Pool == nil || deps.Tokens == nil || deps.History == nil {
		return nil, errors.New("explorer: store, chain, pool, token index and address index are all required")
	}
	cfg = cfg.withDefaults()
	a, err := loadAssets()
	if err != nil {
		return nil, fmt.Errorf("explorer assets: %w", err)
	}
	p, err := parsePages(a)
	if err != nil {
		return nil, fmt.Errorf("explorer templates: %w", err)
	}
	d, err := newDecoder()
	if err != nil {
		return nil, fmt.Errorf("explorer ABIs: %w", err)
	}
	e := &Explorer{cfg: cfg, deps: deps, log: log, pages: p, assets: a, decoder: d, renders: make(chan struct{}, cfg.Renders), trailLimit: maxTrail}
	e.recent.seed(deps.Chain, cfg.HomeSize, d.methodName)
	return e, nil
}

// DefaultRenderWait is how long a page waits for a render slot.
const DefaultRenderWait = time.Second

func (c Config) withDefaults() Config {
	if c.Renders <= 0 {
		c.Renders = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if c.RenderWait <= 0 {
		c.RenderWait = DefaultRenderWait
	}
	if c.Network == "" {
		c.Network = "preview"
	}
	if c.FaucetAPI == "" {
		c.FaucetAPI = "/api/" + c.Network + "/faucet"
	}
	c.PageSize = clamp(c.PageSize, 25, 1, 100)
	c.HomeSize = clamp(c.HomeSize, 12, 1, 50)
	return c
}

// clamp bounds v to [lo, hi], zero taking def.
func clamp(v, def, lo, hi int) int {
	if v == 0 {
		v = def
	}
	return max(lo, min(v, hi))
}

// Register adds the explorer's routes.
func (e *Explorer) Register(r Router) {
	r.Handle("/", e.page(e.home))
	r.Handle(homeFragmentPath, e.page(e.homeFragment))
	r.Handle("/tokens", e.page(e.tokens))
	r.Handle("/search", e.page(e.search))
	r.Handle("/faucet", e.page(e.faucet))
	r.Mount("/block/", e.page(e.block))
	r.Mount("/tx/", e.page(e.tx))
	r.Mount("/address/", e.page(e.address))
	r.Mount("/token/", e.page(e.token))
	r.Mount("/assets/", e.serveAsset)
}

// Sealed records a block that became the head (sequencer.Listener). It
// summarizes the block and swaps the ring: no lock, no I/O.
func (e *Explorer) Sealed(_ *pending.Snapshot, block *types.Block) {
	e.recent.add(summarize(e.deps.Chain.Config(), block, time.Now(), e.cfg.HomeSize, e.decoder.methodName))
}

// Preconfirmed is part of sequencer.Listener: pages read the pre-confirmed
// block from the snapshot they load, so there is nothing to keep.
func (e *Explorer) Preconfirmed(*pending.Snapshot) {}
