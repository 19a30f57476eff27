package rpc

import (
	"errors"
	"fmt"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/txwait"
)

// invalidParamsError marks a problem with the request's parameters (-32602).
type invalidParamsError struct{ err error }

func (e *invalidParamsError) Error() string { return e.err.Error() }
func (e *invalidParamsError) Unwrap() error { return e.err }

func invalidParams(err error) *codec.Error {
	return &codec.Error{Code: codec.CodeInvalidParams, Message: err.Error()}
}

// argError reports a bad positional argument as geth words it.
func argError(i int, err error) error {
	return &invalidParamsError{fmt.Errorf("invalid argument %d: %w", i, err)}
}

// errHeaderNotFound is geth's answer for state or blocks that do not exist.
var errHeaderNotFound = errors.New("header not found")

// toError maps a handler error to a JSON-RPC error object: -32602 for bad
// parameters, the code an error carries, -32005 for overload, -32002 for a
// request whose time ran out while it waited for the call bound, -32000
// else (geth's default for errors from API methods).
func toError(err error) *codec.Error {
	var cerr *codec.Error
	var perr *invalidParamsError
	var share *callbound.ShareError
	var logLimit *logLimitError
	var waiters *txwait.LimitError
	switch {
	case errors.As(err, &cerr):
		return cerr
	case errors.As(err, &logLimit):
		return logLimit.rpcError()
	case errors.As(err, &perr):
		return invalidParams(perr)
	case errors.Is(err, callbound.ErrOverloaded), errors.As(err, &share), errors.As(err, &waiters):
		return &codec.Error{Code: codec.CodeLimitExceeded, Message: err.Error()}
	case errors.Is(err, callbound.ErrTimeout):
		return errTimeout
	default:
		return &codec.Error{Code: codec.CodeServer, Message: err.Error()}
	}
}

// args: positional parameter access with geth's rules.

// maxParams rejects more than n parameters.
func (r *request) maxParams(n int) error {
	if r.nargs > n {
		return &invalidParamsError{fmt.Errorf("too many arguments, want at most %d", n)}
	}
	return nil
}

// arg returns parameter i, or nil when it is absent or null.
func (r *request) arg(i int) []byte {
	if i >= r.nargs || string(r.args[i]) == "null" {
		return nil
	}
	return r.args[i]
}

// required returns parameter i or a "missing value" error.
func (r *request) required(i int) ([]byte, error) {
	raw := r.arg(i)
	if raw == nil {
		return nil, &invalidParamsError{fmt.Errorf("missing value for required argument %d", i)}
	}
	return raw, nil
}
