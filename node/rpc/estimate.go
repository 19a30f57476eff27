package rpc

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/codec"
)

// ethEstimateGas answers the least gas (within estimateErrorRatio) with
// which the call does not fail, or why it always fails.
func ethEstimateGas(s *Server, r *request) error {
	msg, env, err := s.prepareCall(r, 4, false)
	if err != nil {
		return err
	}
	if !r.call.HasGas {
		msg.GasLimit = 0 // let the estimator search up to the block gas limit
	}
	var gas uint64
	var estErr error
	if err := s.bounded(r, func(task *callbound.Task) {
		var revert []byte
		gas, revert, estErr = s.estimateGas(task, msg, env)
		if len(revert) > 0 {
			estErr = s.revertError(revert)
		}
	}); err != nil {
		return err
	}
	if estErr != nil {
		return estErr
	}
	r.out = codec.AppendUint64(r.out, gas)
	return nil
}

// estimateErrorRatio is geth's estimateGasErrorRatio: an estimate within
// 1.5% above the least gas that works is good enough (wallets add 20-25%).
const estimateErrorRatio = 0.015

// estimateGas is go-ethereum's gas estimator (eth/gasestimator.Estimate):
// the same bounds, shortcuts and binary search, with each trial run
// through execute. go-ethereum's estimator builds EVMs of its own, so its
// trials would run outside the call bound's cancellation and with
// go-ethereum's BLAKE2F, which cannot be interrupted (blake2f.go). It
// returns the revert data when the call always reverts.
func (s *Server) estimateGas(task *callbound.Task, msg *core.Message, env *callEnv) (uint64, []byte, error) {
	hi, err := s.estimateCeiling(msg, env)
	if err != nil {
		return 0, nil, err
	}
	// A plain transfer runs no code and earns no refund: one trial is exact.
	if len(msg.Data) == 0 && msg.To != nil && env.state.GetCodeSize(*msg.To) == 0 {
		if failed, res, err := s.trial(task, msg, env, params.TxGas); !failed && err == nil {
			return res.UsedGas, nil, nil
		}
	}
	failed, res, err := s.trial(task, msg, env, hi)
	switch {
	case err != nil:
		return 0, nil, err
	case failed && res != nil && !errors.Is(res.Err, vm.ErrOutOfGas):
		return 0, res.Revert(), res.Err
	case failed:
		return 0, nil, fmt.Errorf("gas required exceeds allowance (%d)", hi)
	}
	lo := res.UsedGas - 1
	// The gas the unconstrained run used, plus its refund and a call
	// stipend, nearly always suffices: try it before bisecting.
	if optimistic := (res.MaxUsedGas + params.CallStipend) * 64 / 63; optimistic < hi {
		failed, _, err := s.trial(task, msg, env, optimistic)
		if err != nil {
			return 0, nil, err
		}
		if failed {
			lo = optimistic
		} else {
			hi = optimistic
		}
	}
	for lo+1 < hi && float64(hi-lo)/float64(hi) >= estimateErrorRatio {
		// Most calls need little more than they use: bisect skewed low.
		mid := min(lo+(hi-lo)/2, lo*2)
		failed, _, err := s.trial(task, msg, env, mid)
		if err != nil {
			return 0, nil, err
		}
		if failed {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil, nil
}

// estimateCeiling is the most gas the estimate may reach: the call's gas or
// the block's limit, capped by EIP-7825 from Osaka, by what the sender's
// balance pays for at the call's fee cap, and by the gas cap.
func (s *Server) estimateCeiling(msg *core.Message, env *callEnv) (uint64, error) {
	cfg, h := s.b.Chain.Config(), env.header
	hi := h.GasLimit
	if msg.GasLimit >= params.TxGas {
		hi = msg.GasLimit
	}
	if hi > params.MaxTxGas && cfg.IsOsaka(h.Number, h.Time) && !cfg.IsAmsterdam(h.Number, h.Time) {
		hi = params.MaxTxGas
	}
	feeCap := msg.GasFeeCap
	if feeCap == nil {
		feeCap = msg.GasPrice
	}
	if feeCap != nil && !feeCap.IsZero() {
		available := env.state.GetBalance(msg.From).Clone()
		if msg.Value != nil {
			if msg.Value.Cmp(available) >= 0 {
				return 0, core.ErrInsufficientFundsForTransfer
			}
			available.Sub(available, msg.Value)
		}
		if cfg.IsCancun(h.Number, h.Time) && len(msg.BlobHashes) > 0 {
			blobCost := uint256.NewInt(uint64(len(msg.BlobHashes)) * params.BlobTxBlobGasPerBlob)
			blobCost.Mul(blobCost, msg.BlobGasFeeCap)
			if blobCost.Cmp(available) >= 0 {
				return 0, core.ErrInsufficientFunds
			}
			available.Sub(available, blobCost)
		}
		if allowance := new(uint256.Int).Div(available, feeCap); allowance.IsUint64() && hi > allowance.Uint64() {
			hi = allowance.Uint64()
		}
	}
	if s.cfg.GasCap != 0 && hi > s.cfg.GasCap {
		hi = s.cfg.GasCap
	}
	return hi, nil
}

// trial runs msg with gas on a copy of env's state. failed reports a
// failure more gas might cure; err one it cannot (including cancellation).
func (s *Server) trial(task *callbound.Task, msg *core.Message, env *callEnv, gas uint64) (failed bool, res *core.ExecutionResult, err error) {
	defer func(gas uint64) { msg.GasLimit = gas }(msg.GasLimit)
	msg.GasLimit = gas
	st := env.state.Copy()
	res, err = s.apply(task, env, s.newEVM(env, st, vm.Config{}), msg)
	if dbErr := st.Error(); dbErr != nil {
		return true, nil, dbErr
	}
	switch {
	case err == nil:
		return res.Failed(), res, nil
	case isCancelled(err):
		return true, nil, err
	case errors.Is(err, core.ErrIntrinsicGas), errors.Is(err, core.ErrGasLimitTooHigh):
		return true, nil, nil // more gas, or less, may work
	default:
		return true, nil, fmt.Errorf("failed with %d gas: %w", gas, err)
	}
}
