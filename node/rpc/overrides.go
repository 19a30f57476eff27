package rpc

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/override"
)

// applyOverrides decodes the state override (arg 2) and the block override
// (arg 3; eth_createAccessList takes none, and moves no precompile, as
// go-ethereum's), and applies them: the block override first, since the
// fork it sets decides which precompiles the state override finds.
func (s *Server) applyOverrides(env *callEnv, stateRaw, blockRaw []byte, moves bool) error {
	if stateRaw == nil && blockRaw == nil {
		return nil
	}
	accounts, err := override.ParseState(stateRaw)
	if err != nil {
		return argError(2, err)
	}
	block, err := override.ParseBlock(blockRaw)
	if err == nil {
		err = block.ForCall()
	}
	if err != nil {
		return argError(3, err)
	}
	if block != nil {
		env.block = block
		env.header = block.MakeHeader(env.header)
	}
	var precompiles vm.PrecompiledContracts
	var blake *blake2F
	if moves && accounts != nil {
		h := env.header
		precompiles = vm.ActivePrecompiledContracts(s.b.Chain.Config().Rules(h.Number, h.Difficulty.Sign() == 0, h.Time))
		if _, ok := precompiles[blake2FAddress]; ok {
			blake = new(blake2F)
			precompiles[blake2FAddress] = blake
		}
	}
	changed, err := accounts.Apply(env.state, precompiles)
	if err != nil {
		return overrideError(2, err)
	}
	if changed {
		env.precompiles = &overridden{contracts: precompiles, blake: blake}
	}
	return nil
}

// overrideError is argError keeping the code of an override the
// specification refuses with one of its own (a precompile move's).
func overrideError(i int, err error) error {
	var cerr *codec.Error
	if errors.As(err, &cerr) {
		return &codec.Error{Code: cerr.Code, Message: fmt.Sprintf("invalid argument %d: %s", i, cerr.Message)}
	}
	return argError(i, err)
}
