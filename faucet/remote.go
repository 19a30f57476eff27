package faucet

import (
	"context"
	"errors"
	"net/netip"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/internal/apistatus"
)

// DripRequest is one checked drip: the address, the client its cooldown
// counts (as the node that took the request resolved it) and the captcha
// token. A read replica hands it to the sequencer's faucet (node/relay),
// so that every replica drips from one account under one set of cooldowns.
type DripRequest struct {
	To      common.Address `json:"to"`
	Client  netip.Addr     `json:"client"`
	Captcha string         `json:"captcha,omitempty"`
	// Replica, set by the sequencer (never taken from the wire), is the
	// replica that relayed the drip when its word on Client is not
	// trusted: the replica's cooldown then stands for its clients'.
	Replica string `json:"-"`
}

// DripResult is a drip's answer as the faucet API writes it: 200 with the
// transaction, or an error status with its code and message.
type DripResult struct {
	Status     int           `json:"status"`
	Code       int           `json:"code,omitempty"`
	Message    string        `json:"message,omitempty"`
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	TxHash     common.Hash   `json:"tx_hash"`
	AmountWei  string        `json:"amount_wei,omitempty"`
	To         string        `json:"to,omitempty"`
}

// Remote drips elsewhere: a replica's faucet answers with the sequencer's
// result. Its error (the sequencer unreachable) is answered as 503.
type Remote func(ctx context.Context, req DripRequest) DripResult

// Drip runs req on this faucet, the sequencer's, for a replica.
func (f *Faucet) Drip(ctx context.Context, req DripRequest) DripResult {
	if !f.cfg.Enabled || f.signer == nil {
		return resultOf(unavailable("the faucet is off on the sequencer (--faucet=false)"))
	}
	if req.To == (common.Address{}) || req.To == f.addr {
		return resultOf(badRequest("address: %s cannot receive drips; name your own account", req.To.Hex()))
	}
	tx, err := f.dripTo(ctx, req)
	if err != nil {
		return resultOf(err)
	}
	return DripResult{Status: fasthttp.StatusOK, TxHash: tx.Hash(), AmountWei: tx.Value().String(), To: req.To.Hex()}
}

// RemoteUnavailable is the result of a drip the sequencer could not be
// asked for.
func RemoteUnavailable(err error) DripResult {
	return resultOf(unavailable("the sequencer's faucet did not answer (%v); retry in a moment", err))
}

// RemoteRefused is the result of a drip the sequencer refused to run (its
// faucet off, too many requests at once), in the sequencer's words.
func RemoteRefused(msg string) DripResult {
	return resultOf(unavailable("%s", msg))
}

func resultOf(err error) DripResult {
	var e *apiError
	if !errors.As(err, &e) {
		e = &apiError{status: fasthttp.StatusInternalServerError, code: apistatus.Internal, msg: err.Error()}
	}
	return DripResult{Status: e.status, Code: e.code, Message: e.msg, RetryAfter: e.retryAfter}
}

func writeResult(ctx *fasthttp.RequestCtx, r DripResult) {
	if r.Status != fasthttp.StatusOK {
		writeError(ctx, &apiError{status: r.Status, code: r.Code, msg: r.Message, retryAfter: r.RetryAfter})
		return
	}
	writeJSON(ctx, dripAnswer{TxHash: r.TxHash, AmountWei: r.AmountWei, To: r.To})
}
