// Package stocks follows the tokenized-stock protocol on the chain: the
// tokens the B20 factory created and what they report at the head (name,
// supply, multiplier, paused features, metadata). It reads the chain once per
// sealed block, never per request, so the REST API that serves it costs the
// RPC hot path nothing.
package stocks

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
)

// Token is one stock token as it stands at a View's block. Tokens are
// immutable: a change makes a new Token.
type Token struct {
	Address  common.Address
	Name     string
	Symbol   string
	Decimals uint8
	// TotalSupply is in base units; Multiplier is a WAD (1e18 = 1).
	TotalSupply *big.Int
	Multiplier  *big.Int
	// PausedFeatures are the ordinals of IB20.PausableFeature now paused.
	PausedFeatures []uint8
	// ISIN and IconURL are the extra metadata under "isin" and "icon_url".
	ISIN, IconURL string
	// Created is the block that created the token.
	Created uint64
}

// View is the protocol at one sealed block. It is immutable.
type View struct {
	Number uint64
	Hash   common.Hash
	// Tokens are in creation order.
	Tokens []*Token
	byAddr map[common.Address]*Token
}

// NewView makes a view of tokens (in creation order) at a block.
func NewView(number uint64, hash common.Hash, tokens []*Token) *View {
	v := &View{Number: number, Hash: hash, Tokens: tokens, byAddr: make(map[common.Address]*Token, len(tokens))}
	for _, t := range tokens {
		v.byAddr[t.Address] = t
	}
	return v
}

// Token returns the token at addr, or nil when the factory did not create one there.
func (v *View) Token(addr common.Address) *Token { return v.byAddr[addr] }

// anyKnown reports whether any of addrs is a token of v.
func anyKnown(addrs map[common.Address]bool, v *View) bool {
	for addr := range addrs {
		if v.byAddr[addr] != nil {
			return true
		}
	}
	return false
}

// readGas bounds one view call of the index: the token's code is the
// factory's, but a bound costs nothing.
const readGas = 10_000_000

// Index keeps the View of the current head. Sealed may be called from the
// sequencer's goroutine; everything else runs on Run's.
type Index struct {
	chain   *chain.Chain
	store   *pending.Store
	factory common.Address
	log     *slog.Logger
	abi     abi.ABI

	wake    chan struct{}
	current atomic.Pointer[View]
}

// New returns an index of the tokens factory creates; Run fills it.
func New(c *chain.Chain, store *pending.Store, factory common.Address, log *slog.Logger) *Index {
	return &Index{chain: c, store: store, factory: factory, log: log, abi: tokenABI(), wake: make(chan struct{}, 1)}
}

// View returns the current view, nil until the index has caught up with the
// chain after a start.
func (x *Index) View() *View { return x.current.Load() }

// Sealed tells the index a block became the head (sequencer.Listener). It
// never blocks: heads that come faster than the index reads are coalesced.
func (x *Index) Sealed(*pending.Snapshot, *types.Block) { x.Notify() }

// Preconfirmed is part of sequencer.Listener: the index reads sealed
// blocks only.
func (x *Index) Preconfirmed(*pending.Snapshot) {}

// Notify asks the index to catch up with the store's head.
func (x *Index) Notify() {
	select {
	case x.wake <- struct{}{}:
	default:
	}
}

// Run catches up with the chain, then follows its head until ctx ends.
func (x *Index) Run(ctx context.Context) error {
	x.Notify()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-x.wake:
		}
		switch err := x.update(ctx); {
		case err == nil:
		case ctx.Err() != nil:
			return nil // a shutdown cut the read short: nothing is behind
		default:
			// The next head tries again; the current view stays.
			x.log.Warn("Tokenized-stock index behind the head", "err", err)
		}
	}
}

// update brings the view to the store's head: new tokens from the factory's
// B20Created logs, and a fresh read of every token that logged anything (a
// B20 token emits an event for every change of what the index reports).
func (x *Index) update(ctx context.Context) error {
	snap := x.store.Load()
	if snap == nil {
		return nil
	}
	head := snap.HeadHeader
	prev := x.current.Load()
	from := uint64(0)
	if prev != nil {
		if prev.Hash == head.Hash() {
			return nil
		}
		from = prev.Number + 1
	}
	created, touched, err := x.scan(ctx, from, head.Number.Uint64())
	if err != nil {
		return err
	}
	if prev != nil && len(created) == 0 && !anyKnown(touched, prev) {
		// Nothing the index reports changed: the same tokens at a new head.
		x.current.Store(&View{Number: head.Number.Uint64(), Hash: head.Hash(), Tokens: prev.Tokens, byAddr: prev.byAddr})
		return nil
	}
	var tokens []*Token
	if prev != nil {
		tokens = slices.Clone(prev.Tokens)
	}
	st, err := snap.LatestState()
	if err != nil {
		return fmt.Errorf("state at block %d: %w", head.Number, err)
	}
	r := x.reader(head, st)
	for i, t := range tokens {
		if touched[t.Address] {
			tokens[i] = r.read(t.Address, t.Created)
		}
	}
	// CREATE2 never makes the same address twice: each creation is new.
	for _, c := range created {
		tokens = append(tokens, r.read(c.addr, c.block))
	}
	x.current.Store(NewView(head.Number.Uint64(), head.Hash(), tokens))
	return nil
}

type creation struct {
	addr  common.Address
	block uint64
}

// scan reads the logs of blocks from..to: the tokens the factory created,
// in order, and every address that logged.
func (x *Index) scan(ctx context.Context, from, to uint64) ([]creation, map[common.Address]bool, error) {
	bc := x.chain.BlockChain()
	var created []creation
	touched := map[common.Address]bool{}
	for n := from; n <= to; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		header := bc.GetHeaderByNumber(n)
		if header == nil {
			return nil, nil, fmt.Errorf("header %d missing", n)
		}
		// Most blocks of a long chain hold no log at all: the header's
		// bloom saves reading their receipts.
		if header.Bloom == (types.Bloom{}) {
			continue
		}
		for _, receipt := range bc.GetRawReceipts(header.Hash(), n) {
			for _, l := range receipt.Logs {
				touched[l.Address] = true
				if l.Address == x.factory && len(l.Topics) >= 2 && l.Topics[0] == b20CreatedTopic {
					created = append(created, creation{common.BytesToAddress(l.Topics[1][12:]), n})
				}
			}
		}
	}
	return created, touched, nil
}

// tokenReader runs the index's view calls on one state.
type tokenReader struct {
	x   *Index
	evm *vm.EVM
}

func (x *Index) reader(head *types.Header, st *state.StateDB) *tokenReader {
	ctx := core.NewEVMBlockContext(head, x.chain.BlockChain(), nil)
	evm := vm.NewEVM(ctx, st, x.chain.Config(), vm.Config{NoBaseFee: true})
	return &tokenReader{x: x, evm: evm}
}

// read returns the token at addr; a field whose call fails stays empty (a
// token is listed even if one of its views misbehaves).
func (r *tokenReader) read(addr common.Address, created uint64) *Token {
	t := &Token{Address: addr, Created: created, TotalSupply: new(big.Int), Multiplier: new(big.Int)}
	r.call(addr, "name", &t.Name)
	r.call(addr, "symbol", &t.Symbol)
	r.call(addr, "decimals", &t.Decimals)
	r.call(addr, "totalSupply", &t.TotalSupply)
	r.call(addr, "multiplier", &t.Multiplier)
	r.call(addr, "pausedFeatures", &t.PausedFeatures)
	r.call(addr, "extraMetadata", &t.ISIN, "isin")
	r.call(addr, "extraMetadata", &t.IconURL, "icon_url")
	return t
}

func (r *tokenReader) call(addr common.Address, method string, out any, args ...any) {
	input, err := r.x.abi.Pack(method, args...)
	if err != nil {
		panic(fmt.Sprintf("stocks: pack %s: %v", method, err)) // constant ABI
	}
	ret, _, err := r.evm.StaticCall(common.Address{}, addr, input, vm.NewGasBudget(readGas, 0))
	if err != nil {
		r.x.log.Debug("Token view call failed", "token", addr, "method", method, "err", err)
		return
	}
	values, err := r.x.abi.Unpack(method, ret)
	if err != nil || len(values) != 1 || !assign(out, values[0]) {
		r.x.log.Debug("Token view answer unreadable", "token", addr, "method", method, "err", err)
	}
}

// assign stores an unpacked ABI value into out if the types agree.
func assign(out, v any) bool {
	switch o := out.(type) {
	case *string:
		s, ok := v.(string)
		*o = s
		return ok
	case *uint8:
		u, ok := v.(uint8)
		*o = u
		return ok
	case **big.Int:
		b, ok := v.(*big.Int)
		if ok {
			*o = b
		}
		return ok
	case *[]uint8:
		u, ok := v.([]uint8)
		*o = u
		return ok
	}
	return false
}
