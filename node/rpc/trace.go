package rpc

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/tracing"
)

// The debug_trace methods run go-ethereum's tracers (node/tracing) on
// sealed blocks and on the pre-confirmed one. They share the eth_call
// bound: one slot per request, a block's transactions traced one after
// another in it (no fan-out that could take the sequencer's core). The
// time limit is go-ethereum's, per transaction: the request's "timeout"
// (default 5 s) capped by --rpc.evmtimeout; the request's deadline and the
// client's hang-up end the whole.

// errTxNotFound is go-ethereum's answer for a transaction no block holds.
var errTxNotFound = errors.New("transaction not found")

func debugTraceTransaction(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	hash, err := r.hashArg(0)
	if err != nil {
		return err
	}
	cfg, err := tracing.ParseConfig(r.arg(1), s.b.Chain.Config())
	if err != nil {
		return argError(1, err)
	}
	b, index, err := s.txBlock(r, hash)
	if err != nil {
		return err
	}
	return s.traced(r, func(env *tracing.Env) error {
		if err := env.Replay(b, index); err != nil {
			return err
		}
		res, err := env.TraceTx(cfg, b, index, r.room)
		if err != nil {
			return err
		}
		env.Keep(b)
		r.out = append(r.out, res...)
		return nil
	})
}

func debugTraceBlockByNumber(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	if _, err := r.required(0); err != nil {
		return err
	}
	bp, err := r.blockParam(0)
	if err != nil {
		return err
	}
	if bp.Tag == codec.TagHash {
		return argError(0, errors.New("a block number or tag, not a hash (debug_traceBlockByHash takes hashes)"))
	}
	cfg, err := tracing.ParseConfig(r.arg(1), s.b.Chain.Config())
	if err != nil {
		return argError(1, err)
	}
	var b *tracing.Block
	if bp.Tag == codec.TagPending {
		b, err = s.pendingTraceBlock(r)
	} else {
		b, err = s.numberedTraceBlock(r, bp)
	}
	if err != nil {
		return err
	}
	return s.traceBlock(r, b, cfg)
}

func debugTraceBlockByHash(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	hash, err := r.hashArg(0)
	if err != nil {
		return err
	}
	cfg, err := tracing.ParseConfig(r.arg(1), s.b.Chain.Config())
	if err != nil {
		return argError(1, err)
	}
	block := s.b.Chain.BlockChain().GetBlockByHash(hash)
	if block == nil || block.NumberU64() > r.current.Head.NumberU64() {
		return fmt.Errorf("block %s not found", hash.Hex())
	}
	b, err := s.sealedTraceBlock(r, block)
	if err != nil {
		return err
	}
	return s.traceBlock(r, b, cfg)
}

// traceBlock traces b's transactions in order into go-ethereum's
// [{"txHash", "result"}], each within what the response has left.
func (s *Server) traceBlock(r *request, b *tracing.Block, cfg *tracing.Config) error {
	mark := len(r.out)
	return s.traced(r, func(env *tracing.Env) error {
		if err := env.Replay(b, 0); err != nil {
			return err
		}
		r.out = append(r.out, '[')
		for i, tx := range b.Txs {
			if i > 0 {
				r.out = append(r.out, ',')
			}
			r.out = append(r.out, `{"txHash":`...)
			r.out = codec.AppendHash(r.out, tx.Hash())
			r.out = append(r.out, `,"result":`...)
			res, err := env.TraceTx(cfg, b, i, r.room-(len(r.out)-mark)-len("}]"))
			if err != nil {
				return err
			}
			r.out = append(append(r.out, res...), '}')
		}
		r.out = append(r.out, ']')
		return nil
	})
}

// traced runs fn under the eth_call bound with no time limit of its own:
// the tracer's timeout limits each transaction. A panic in fn is the
// request's error: the tracers recover their own (node/tracing), and the
// rest (a block's replay, the state overrides) is go-ethereum's code run
// on a client's input too, on a goroutine nothing else recovers.
func (s *Server) traced(r *request, fn func(env *tracing.Env) error) error {
	var err error
	if berr := s.b.Calls.Do(r.caller(), 0, func(task *callbound.Task) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("tracing failed: %v", p)
			}
		}()
		env := s.traceEnv(task)
		defer env.Close()
		env.Head = r.snap.Head.NumberU64()
		err = fn(env)
	}); berr != nil {
		return berr
	}
	var tooLarge *tracing.TooLargeError
	if errors.As(err, &tooLarge) {
		return &codec.Error{Code: codec.CodeResponseTooLarge, Message: err.Error()}
	}
	return err
}

func (s *Server) traceEnv(task *callbound.Task) *tracing.Env {
	return &tracing.Env{
		Chain:      s.b.Chain.BlockChain(),
		Config:     s.b.Chain.Config(),
		Task:       task,
		MaxTimeout: s.cfg.EVMTimeout,
		Prefixes:   s.tracePrefixes,
		JumpDests:  s.b.Chain.BlockChain().JumpDestCache(),
		Precompiles: func(evm *vm.EVM) func() {
			set := s.precompiles.install(evm)
			return set.release
		},
	}
}

// txBlock finds the block of the transaction hash, pre-confirmed or
// sealed as of the request's snapshot, and its index there.
func (s *Server) txBlock(r *request, hash common.Hash) (*tracing.Block, int, error) {
	for i, tx := range r.snap.Pending.Transactions {
		if tx.Hash() == hash {
			b, err := s.pendingTraceBlock(r)
			return b, i, err
		}
	}
	tx, block, index := s.b.Chain.CanonicalTx(hash, r.snap.Head.NumberU64())
	if tx == nil {
		if r.snap.Head.NumberU64() > 0 && !s.b.Chain.BlockChain().TxIndexDone() {
			return nil, 0, errTxIndexing
		}
		return nil, 0, errTxNotFound
	}
	b, err := s.sealedTraceBlock(r, block)
	return b, index, err
}

// numberedTraceBlock is the sealed block bp names, with go-ethereum's
// words for one that does not exist.
func (s *Server) numberedTraceBlock(r *request, bp codec.BlockParam) (*tracing.Block, error) {
	header, err := s.header(r, bp)
	if errors.Is(err, errHeaderNotFound) {
		return nil, fmt.Errorf("block #%d not found", bp.Number)
	}
	if err != nil {
		return nil, err
	}
	return s.blockTraceBlock(r, header)
}

// blockTraceBlock readies the sealed block of header for tracing.
func (s *Server) blockTraceBlock(r *request, header *types.Header) (*tracing.Block, error) {
	// The head's header is the snapshot's own (Server.header): no hash to
	// compare. A header is hashed once: on a block of a few transactions,
	// hashing headers was a twentieth of its trace.
	if header == r.snap.HeadHeader {
		return s.sealedTraceBlock(r, r.snap.Head)
	}
	hash := header.Hash()
	if hash == r.snap.Head.Hash() {
		return s.sealedTraceBlock(r, r.snap.Head)
	}
	block := s.b.Chain.BlockChain().GetBlock(hash, header.Number.Uint64())
	if block == nil {
		return nil, fmt.Errorf("block #%d not found", header.Number)
	}
	return s.sealedTraceBlock(r, block)
}

// sealedTraceBlock readies a sealed block for tracing on its parent's state.
func (s *Server) sealedTraceBlock(r *request, block *types.Block) (*tracing.Block, error) {
	if block.NumberU64() == 0 {
		return nil, tracing.ErrGenesis
	}
	bc := s.b.Chain.BlockChain()
	parent := bc.GetHeader(block.ParentHash(), block.NumberU64()-1)
	if parent == nil {
		return nil, fmt.Errorf("parent %#x not found", block.ParentHash())
	}
	st, err := s.stateAfter(r, parent, block.ParentHash())
	if err != nil {
		return nil, err
	}
	return &tracing.Block{Header: block.Header(), Hash: block.Hash(), Parent: parent, Txs: block.Transactions(), State: st}, nil
}

// pendingTraceBlock readies the pre-confirmed block for tracing on the
// head's state; without block production, pending is the head block.
func (s *Server) pendingTraceBlock(r *request) (*tracing.Block, error) {
	p := r.snap.Pending
	if p.Header.Number.Cmp(r.snap.Head.Number()) == 0 {
		return s.sealedTraceBlock(r, r.snap.Head)
	}
	st, err := r.snap.LatestState()
	if err != nil {
		return nil, err
	}
	return &tracing.Block{Header: p.Header, Parent: r.snap.HeadHeader, Txs: p.Transactions, State: st}, nil
}

// stateAfter is a fresh StateDB of the state after the block of header,
// whose hash is hash; a full node's pruned states answer
// chain.ErrStatePruned's clear error.
func (s *Server) stateAfter(r *request, header *types.Header, hash common.Hash) (*state.StateDB, error) {
	if hash == r.snap.Head.Hash() {
		return r.snap.LatestState()
	}
	reader, err := s.traceReaders.Reader(header, r.snap.Head.NumberU64(), func() (state.Reader, error) {
		return s.b.Chain.StateReaderAt(header)
	})
	if err != nil {
		return nil, err
	}
	return state.NewWithReader(header.Root, s.b.Chain.StateDatabase(), reader)
}
