package faucet

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/drip"
	"github.com/stocknode/stocknode/internal/httpapi"
)

// Remote drips elsewhere: a replica's faucet answers with the sequencer's
// result. Its error (the sequencer unreachable) is answered as 503.
type Remote func(ctx context.Context, req drip.Request) drip.Result

// Drip runs req on this faucet, the sequencer's, for a replica.
func (f *Faucet) Drip(ctx context.Context, req drip.Request) drip.Result {
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
	return drip.Result{Status: fasthttp.StatusOK, TxHash: tx.Hash(), AmountWei: tx.Value().String(), To: req.To.Hex()}
}

func resultOf(err error) drip.Result {
	var e *apiError
	if !errors.As(err, &e) {
		e = &apiError{status: fasthttp.StatusInternalServerError, code: httpapi.Internal, msg: err.Error()}
	}
	return drip.Result{Status: e.status, Code: e.code, Message: e.msg, RetryAfter: e.retryAfter}
}

func writeResult(ctx *fasthttp.RequestCtx, r drip.Result) {
	if r.Status != fasthttp.StatusOK {
		writeError(ctx, &apiError{status: r.Status, code: r.Code, msg: r.Message, retryAfter: r.RetryAfter})
		return
	}
	writeJSON(ctx, dripAnswer{TxHash: r.TxHash, AmountWei: r.AmountWei, To: r.To})
}
