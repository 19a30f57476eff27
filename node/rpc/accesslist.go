package rpc

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"

	"github.com/stocknode/stocknode/callbound"
)

// accessListResult is eth_createAccessList's answer.
type accessListResult struct {
	AccessList types.AccessList `json:"accessList"`
	GasUsed    hexUint64        `json:"gasUsed"`
	Error      string           `json:"error,omitempty"`
}

// ethCreateAccessList answers the access list the call touches and the gas
// it uses with that list.
func ethCreateAccessList(s *Server, r *request) error {
	msg, env, err := s.prepareCall(r, 3, false)
	if err != nil {
		return err
	}
	var result accessListResult
	var listErr error
	if err := s.bounded(r, func(task *callbound.Task) { result, listErr = s.accessList(task, msg, env) }); err != nil {
		return err
	}
	if listErr != nil {
		return listErr
	}
	return r.writeJSON(result)
}

// accessList runs the message until the access list it touches is stable
// (geth's AccessList): each run starts from the list the previous run
// recorded, and the answer is the list that reproduced itself.
func (s *Server) accessList(task *callbound.Task, msg *core.Message, env *callEnv) (accessListResult, error) {
	exclude := map[common.Address]struct{}{msg.From: {}}
	if msg.To != nil {
		exclude[*msg.To] = struct{}{}
	} else {
		exclude[crypto.CreateAddress(msg.From, env.state.GetNonce(msg.From))] = struct{}{}
	}
	rules := s.b.Chain.Config().Rules(env.header.Number, true, env.header.Time)
	for _, p := range vm.ActivePrecompiles(rules) {
		exclude[p] = struct{}{}
	}
	chainID := s.b.Chain.Config().ChainID
	for _, auth := range msg.SetCodeAuthorizations {
		if (!auth.ChainID.IsZero() && auth.ChainID.CmpBig(chainID) != 0) || auth.Nonce+1 < auth.Nonce {
			continue
		}
		if authority, err := auth.Authority(); err == nil {
			exclude[authority] = struct{}{}
		}
	}
	base := env.state.Copy()
	prev := logger.NewAccessListTracer(msg.AccessList, exclude)
	for {
		if err := task.Err(); err != nil {
			return accessListResult{}, fmt.Errorf("access list not stable: %w", s.aborted(err))
		}
		list := prev.AccessList()
		tracer := logger.NewAccessListTracer(list, exclude)
		run := *msg
		run.AccessList = list
		env.state = base.Copy()
		res, err := s.execute(task, env, s.newEVM(env, env.state, vm.Config{Tracer: tracer.Hooks()}), &run)
		if err != nil {
			return accessListResult{}, fmt.Errorf("failed to apply transaction: %w", err)
		}
		if tracer.Equal(prev) {
			out := accessListResult{AccessList: list, GasUsed: hexUint64(res.UsedGas)}
			if out.AccessList == nil {
				out.AccessList = types.AccessList{}
			}
			if res.Err != nil {
				out.Error = res.Err.Error()
			}
			return out, nil
		}
		prev = tracer
	}
}
