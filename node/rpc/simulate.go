package rpc

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/simulate"
)

// stateTries is how many recent states' tries a full node keeps (pathdb's
// in-memory layers).
const stateTries = 128

// The flags behind eth_simulateV1's bounds, named in its errors.
const (
	flagSimulateBlocks = "--rpc.simulate.maxblocks"
	flagSimulateCalls  = "--rpc.simulate.maxcalls"
	flagGasCap         = "--rpc.gascap"
	flagEVMTimeout     = "--rpc.evmtimeout"
)

// ethSimulateV1 runs node/simulate on a block's state: latest, a historical
// block, or pending. On pending the simulation starts on the head with the
// pre-confirmed transactions executed first, and its first block takes the
// pending block's place: the pending block's number and timestamp, the head
// as its parent, as Base's Flashblocks nodes simulate "against the current
// pre-confirmed Flashblock state". The whole simulation is one task of the
// eth_call bound: --rpc.evmtimeout limits all of it, --rpc.gascap the gas of
// all its calls together.
func ethSimulateV1(s *Server, r *request) error {
	if err := r.maxParams(2); err != nil {
		return err
	}
	raw, err := r.required(0)
	if err != nil {
		return err
	}
	limits := simulate.Limits{Blocks: s.cfg.SimulateMaxBlocks, Calls: s.cfg.SimulateMaxCalls}
	payload, err := simulate.ParsePayload(raw, limits, flagSimulateBlocks, flagSimulateCalls)
	if err != nil {
		return err
	}
	base, err := s.simulateBase(r, 1)
	if err != nil {
		return err
	}
	cfg := s.simulateConfig(limits, r.room)
	var blocks []*simulate.Block
	var simErr error
	if err := s.bounded(r, func(task *callbound.Task) { blocks, simErr = simulate.Run(cfg, task, base, payload) }); err != nil {
		return err
	}
	if simErr != nil {
		return s.simulateError(simErr)
	}
	return r.writeJSON(s.marshalSimulated(blocks, payload.ReturnFullTransactions))
}

// simulateBase resolves argument i (default latest) to the simulation's
// base block and a fresh state of it.
func (s *Server) simulateBase(r *request, i int) (simulate.Base, error) {
	v, err := s.stateView(r, i)
	if err != nil {
		return simulate.Base{}, err
	}
	p := r.snap.Pending
	if v.pending && p.Header.Number.Cmp(r.snap.Head.Number()) > 0 {
		st, err := r.snap.LatestState()
		if err != nil {
			return simulate.Base{}, err
		}
		return simulate.Base{Header: r.snap.HeadHeader, State: st, Pending: &simulate.Pending{Header: p.Header, Transactions: p.Transactions}}, nil
	}
	if v.pending { // no block production: pending is latest
		v = s.latestView(r)
	}
	// The simulated blocks' state roots are computed on the base's trie: a
	// full node reads older states from its state history, which has none.
	if _, err := s.b.Chain.StateDatabase().OpenTrie(v.root); err != nil {
		return simulate.Base{}, fmt.Errorf("eth_simulateV1 on block %d needs the block's state trie, which --gcmode full keeps for the last %d blocks and --gcmode archive for all: %w",
			v.header.Number, stateTries, err)
	}
	st, err := s.stateDB(v)
	if err != nil {
		return simulate.Base{}, err
	}
	return simulate.Base{Header: v.header, State: st}, nil
}

func (s *Server) simulateConfig(limits simulate.Limits, room int) *simulate.Config {
	return &simulate.Config{
		Chain:       s.b.Chain.BlockChain(),
		BaseFee:     s.b.Chain.Engine().CalcBaseFee,
		GasCap:      s.cfg.GasCap,
		BlockTime:   s.cfg.BlockTime,
		Limits:      limits,
		BlocksFlag:  flagSimulateBlocks,
		GasCapFlag:  flagGasCap,
		Precompiles: interruptibleBlake2F,
		MaxResponse: room,
	}
}

// interruptibleBlake2F gives a simulated block's EVM the BLAKE2F that stops
// when the EVM is cancelled (blake2f.go).
func interruptibleBlake2F(evm *vm.EVM, contracts vm.PrecompiledContracts) {
	if _, ok := contracts[blake2FAddress]; ok {
		contracts[blake2FAddress] = &blake2F{evm: evm}
	}
}

// simulateError maps a stopped simulation to the spec's timeout (-32016)
// for its time limit, and to the server's errors for the rest.
func (s *Server) simulateError(err error) error {
	var aborted *simulate.AbortedError
	switch {
	case errors.Is(err, simulate.ErrResponseTooLarge):
		return errResponseTooLarge
	case errors.As(err, &aborted) && errors.Is(aborted.Cause, callbound.ErrTimeLimit):
		return &codec.Error{Code: simulate.CodeTimeout, Message: fmt.Sprintf("execution aborted (timeout = %v, %s)", s.cfg.EVMTimeout, flagEVMTimeout)}
	case errors.As(err, &aborted):
		return s.aborted(aborted.Cause)
	}
	return err
}

// marshalSimulated is the answer: each block as eth_getBlockByNumber shows
// it, with its calls' results, and the senders of its unsigned transactions.
func (s *Server) marshalSimulated(blocks []*simulate.Block, fullTx bool) []map[string]any {
	config := s.b.Chain.Config()
	out := make([]map[string]any, len(blocks))
	for i, b := range blocks {
		fields := marshalBlock(b.Block, b.Block.Hash(), fullTx, config)
		if fullTx {
			for j, tx := range fields["transactions"].([]any) {
				tx.(*rpcTransaction).From = b.Senders[j]
			}
		}
		fields["calls"] = b.Calls
		out[i] = fields
	}
	return out
}
