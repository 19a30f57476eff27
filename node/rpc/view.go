package rpc

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/callstate"
	"github.com/stocknode/stocknode/node/pending"
)

// view is the block and state a block parameter names, as of the request's
// snapshot.
type view struct {
	header  *types.Header
	root    common.Hash  // state root the reader reads (the parent's for pending)
	reader  state.Reader // concurrency-safe
	pending bool
	calls   *callstate.Pool // reusable StateDBs for eth_call; latest and pending only
}

var (
	errHashNotFound = errors.New("header for hash not found")
	errNotCanonical = errors.New("hash is not currently canonical")
)

// blockParam parses argument i as a block parameter; absent means latest.
func (r *request) blockParam(i int) (codec.BlockParam, error) {
	raw := r.arg(i)
	if raw == nil {
		return codec.BlockParam{Tag: codec.TagLatest}, nil
	}
	bp, err := codec.ParseBlockParam(raw)
	if err != nil {
		return bp, argError(i, err)
	}
	return bp, nil
}

// stateView resolves argument i to a block with its state.
func (s *Server) stateView(r *request, i int) (view, error) {
	bp, err := r.blockParam(i)
	if err != nil {
		return view{}, err
	}
	snap := r.snap
	switch bp.Tag {
	case codec.TagLatest, codec.TagSafe, codec.TagFinalized:
		return s.latestView(r), nil
	case codec.TagPending:
		return view{header: snap.Pending.Header, root: snap.Head.Root(), reader: snap.PendingReader(), pending: true, calls: snap.PendingCalls()}, nil
	}
	header, err := s.header(r, bp)
	if err != nil {
		return view{}, err
	}
	if header.Hash() == snap.Head.Hash() {
		return s.latestView(r), nil
	}
	// A full node's pruned states answer chain.ErrStatePruned, whose
	// message names the block and says that --gcmode archive keeps them.
	reader, err := s.b.Chain.StateReaderAt(header)
	if err != nil {
		return view{}, err
	}
	return view{header: header, root: header.Root, reader: reader}, nil
}

func (s *Server) latestView(r *request) view {
	head := r.snap.Head
	return view{header: r.snap.HeadHeader, root: head.Root(), reader: r.snap.LatestReader(), calls: r.snap.LatestCalls()}
}

// header resolves a block parameter to a sealed header, seen from the
// request's snapshot: blocks above its head do not exist yet. A block
// named by number or hash may be past a held view's head (heldSnapshot):
// a client that names it learnt of it elsewhere (a push on its WebSocket,
// another client), and holding it back would be a stale read.
func (s *Server) header(r *request, bp codec.BlockParam) (*types.Header, error) {
	bc, head := s.b.Chain.BlockChain(), r.snap.Head
	switch bp.Tag {
	case codec.TagLatest, codec.TagSafe, codec.TagFinalized:
		return r.snap.HeadHeader, nil
	case codec.TagPending:
		return r.snap.Pending.Header, nil
	case codec.TagEarliest:
		bp.Number = 0
	case codec.TagHash:
		h := bc.GetHeaderByHash(bp.Hash)
		if h == nil || h.Number.Uint64() > r.current.Head.NumberU64() {
			return nil, errHashNotFound
		}
		if bp.RequireCanonical && bc.GetCanonicalHash(h.Number.Uint64()) != bp.Hash {
			return nil, errNotCanonical
		}
		return h, nil
	}
	if bp.Number > r.current.Head.NumberU64() {
		return nil, errHeaderNotFound
	}
	if bp.Number == head.NumberU64() {
		return r.snap.HeadHeader, nil
	}
	h := bc.GetHeaderByNumber(bp.Number)
	if h == nil {
		return nil, errHeaderNotFound
	}
	return h, nil
}

// emptyAccount is what a missing account reads as; shared, never modified.
var emptyAccount = types.NewEmptyStateAccount()

// account reads an account; a missing account reads as empty. The result
// must not be modified.
func (v view) account(addr common.Address) (*types.StateAccount, error) {
	var acct *types.StateAccount
	var err error
	if shared, ok := v.reader.(pending.SharedAccountReader); ok {
		acct, err = shared.AccountShared(addr)
	} else {
		acct, err = v.reader.Account(addr)
	}
	if err != nil {
		return nil, err
	}
	if acct == nil {
		return emptyAccount, nil
	}
	return acct, nil
}

// stateDB returns a fresh StateDB over the view for one caller's exclusive use.
func (s *Server) stateDB(v view) (*state.StateDB, error) {
	return state.NewWithReader(v.root, s.b.Chain.StateDatabase(), v.reader)
}
