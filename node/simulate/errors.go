package simulate

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/override"
)

// The error codes of eth_simulateV1 (execution-apis src/eth/execute.yaml).
const (
	CodeReverted           = 3 // a call that reverted (as eth_call's)
	CodeNonceTooLow        = -38010
	CodeNonceTooHigh       = -38011
	CodeBaseFeeTooLow      = -38012
	CodeIntrinsicGas       = -38013
	CodeInsufficientFunds  = -38014
	CodeBlockGasLimit      = -38015
	CodeBlockNumberOrder   = -38020
	CodeBlockTimeOrder     = -38021
	CodeMoveToItself       = override.CodeMoveToItself      // -38022
	CodeMoveToSameAddress  = override.CodeMoveToSameAddress // -38023
	CodeSenderNotEOA       = -38024
	CodeMaxInitCodeSize    = -38025
	CodeClientLimit        = -38026
	CodeVMError            = -32015 // a call that failed in the EVM other than by reverting
	CodeTimeout            = -32016
	codeInvalidParams      = codec.CodeInvalidParams
	codeInternal           = codec.CodeInternal
	maxWithdrawalsPerBlock = 16 // the spec's bound on a block's withdrawals
)

func codeError(code int, format string, args ...any) *codec.Error {
	return &codec.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func invalidParams(format string, args ...any) *codec.Error {
	return codeError(codeInvalidParams, format, args...)
}

// txValidationError is the spec's code for a call the protocol refuses to
// run (geth's txValidationError): the simulation as a whole fails with it.
func txValidationError(err error) *codec.Error {
	code := codeInternal
	switch {
	case errors.Is(err, core.ErrNonceTooHigh), errors.Is(err, core.ErrNonceMax):
		code = CodeNonceTooHigh
	case errors.Is(err, core.ErrNonceTooLow):
		code = CodeNonceTooLow
	case errors.Is(err, core.ErrSenderNoEOA):
		code = CodeSenderNotEOA
	case errors.Is(err, core.ErrFeeCapVeryHigh), errors.Is(err, core.ErrTipVeryHigh), errors.Is(err, core.ErrTipAboveFeeCap):
		code = codeInvalidParams
	case errors.Is(err, core.ErrFeeCapTooLow):
		code = CodeBaseFeeTooLow
	case errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInsufficientFundsForTransfer):
		code = CodeInsufficientFunds
	case errors.Is(err, core.ErrIntrinsicGas), errors.Is(err, core.ErrFloorDataGas):
		code = CodeIntrinsicGas
	case errors.Is(err, vm.ErrMaxInitCodeSizeExceeded):
		code = CodeMaxInitCodeSize
	}
	return &codec.Error{Code: code, Message: err.Error()}
}

// AbortedError is a simulation stopped from outside (its time limit, the
// request's deadline, the client's hang-up): Cause says why.
type AbortedError struct{ Cause error }

func (e *AbortedError) Error() string { return "simulation aborted: " + e.Cause.Error() }
func (e *AbortedError) Unwrap() error { return e.Cause }

// ErrResponseTooLarge is a simulation whose answer would pass the response
// size limit; it is stopped as soon as that is sure.
var ErrResponseTooLarge = errors.New("response too large")
